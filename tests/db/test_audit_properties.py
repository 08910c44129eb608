"""GET /audit's findings (placer.db.audit) against brute force, on every
backend.

Random clouds (tests/helpers/audit_clouds.py) are written as rows: trees,
sharing providers in aggregates, inventories with reserved amounts, ratios
(0.9 among them: MySQL keeps a single-precision ratio) and unit limits,
allocations drawn without regard for any of them, so that every kind of
fault is planted at random, consumers without allocations or without a row,
providers of every age, projects and users no one uses. The findings must
be exactly what the rules, read literally over every row, find: counts, and
items in order, cut at the limit. A floor makes sure enough examples hold a
fault, and every kind is seen in some.
"""

import functools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placer.db import audit
from tests.helpers import audit_clouds
from tests.helpers.floors import answered, at_least, examples

_seen: Counter = Counter()


def every_kind_seen(test):
    """Fails the test if some kind was found in none of its examples."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        _seen.clear()
        test(*args, **kwargs)
        missing = [kind for kind in audit.KINDS if not _seen[kind]]
        assert not missing, f"no example found {missing} ({dict(_seen)})"
    return run


@pytest.fixture(scope="module")
def clouds_db(migrated_db):
    yield migrated_db
    migrated_db.write(audit_clouds.clear)


@at_least(60)  # faults of some kind are in most drawn clouds
@every_kind_seen
@settings(max_examples=examples(100),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cloud=audit_clouds.clouds(),
       kinds=st.one_of(st.just(audit.KINDS), st.sets(st.sampled_from(audit.KINDS), min_size=1)),
       limit=st.sampled_from([1000, 1000, 1, 2, 3]))
def test_findings_are_the_planted_faults(clouds_db, cloud, kinds, limit):
    clouds_db.write(audit_clouds.store, cloud)
    found = clouds_db.snapshot_read(audit.findings, tuple(kinds), limit, cloud["idle_days"],
                                    audit_clouds.NOW)
    expected = audit_clouds.brute_force(clouds_db.read(audit_clouds.read_rows),
                                        cloud["idle_days"])
    assert found == audit_clouds.limited(expected, kinds, limit)
    assert list(found) == [kind for kind in audit.KINDS if kind in kinds]
    faults = [kind for kind, f in found.items() if f["count"]]
    _seen.update(faults)
    answered(faults)


def _isolation(conn):
    if conn.dialect.name == "postgresql":
        return conn.exec_driver_sql("SHOW transaction_isolation").scalar_one().upper()
    if conn.dialect.name == "mysql":
        variable = ("@@transaction_isolation" if conn.dialect._is_mysql
                    or conn.dialect.server_version_info >= (11, 1) else "@@tx_isolation")
        return conn.exec_driver_sql(f"SELECT {variable}").scalar_one().replace("-", " ")
    return None


def test_snapshot_read_is_one_snapshot(migrated_db):
    """PostgreSQL and MySQL (whose engine reads at READ COMMITTED) read the
    audit at REPEATABLE READ; other reads are left as they were."""
    expected = {"postgresql": ("REPEATABLE READ", "READ COMMITTED"),
                "mysql": ("REPEATABLE READ", "READ COMMITTED"),
                "sqlite": (None, None)}[migrated_db.backend]
    assert migrated_db.snapshot_read(_isolation) == expected[0]
    assert migrated_db.read(_isolation) == expected[1]
    assert migrated_db.snapshot_read(_isolation) == expected[0]


def test_unknown_kinds_and_bad_numbers_are_refused(migrated_db):
    with pytest.raises(ValueError, match="unknown audit kinds: nope"):
        migrated_db.read(audit.findings, ("over_capacity", "nope"))
    with pytest.raises(ValueError):
        migrated_db.read(audit.findings, audit.KINDS, -1)


def test_idle_days_past_any_date_find_nothing_idle(clouds_db):
    cloud = {"providers": [{"uuid": audit_clouds._uuid("a", 1), "name": "old", "parent": None,
                            "sharing": False, "aggregates": set(), "inventory": {},
                            "created_at": audit_clouds.NOW - 40 * audit_clouds.DAY,
                            "updated_at": None}],
             "consumers": [], "projects": 0, "users": 0}
    clouds_db.write(audit_clouds.store, cloud)
    for days, count in ((30, 1), (40, 1), (41, 0), (10**12, 0)):
        found = clouds_db.read(audit.findings, ("idle_providers",), 10, days, audit_clouds.NOW)
        assert found["idle_providers"]["count"] == count, days
