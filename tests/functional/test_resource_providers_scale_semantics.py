"""GET /resource_providers as a whole: every filter combined, checked against
a brute-force model of the same providers, and every listed item byte for
byte what GET /resource_providers/{uuid} shows, on every microversion
boundary. The list is built for large answers (one SQL statement, rows as
tuples, links pre-encoded); these tests pin that it still says exactly what
the per-provider path says."""

import dataclasses
import datetime
import email.utils
import random
import uuid as uuidlib

import orjson
import pytest
import sqlalchemy as sa
import webob

from placer.db import tables as t
from placer.model.inventory import InventoryRecord, amount_within_units
from tests.helpers import factories
from tests.helpers.providers import (
    RPS,
    make,
)

AGGS = [f"cccccccc-0000-0000-0000-00000000000{i}" for i in range(1, 4)]
TRAITS = ["CUSTOM_A", "CUSTOM_B", "CUSTOM_C"]
CLASSES = ["VCPU", "MEMORY_MB", "DISK_GB"]
# Ratios exact in single precision (MySQL's FLOAT), so every backend agrees.
RATIOS = [1.0, 0.5, 1.5, 2.0, 4.0]
BOUNDARIES = ["1.0", "1.1", "1.3", "1.4", "1.5", "1.6", "1.10", "1.11", "1.13", "1.14",
              "1.15", "1.17", "1.18", "1.21", "1.22", "1.23", "1.24", "1.31", "1.32",
              "1.36", "1.37", "1.38", "1.39"]


@dataclasses.dataclass
class Model:
    uuid: str
    name: str
    root: str
    traits: set = dataclasses.field(default_factory=set)
    aggs: set = dataclasses.field(default_factory=set)
    inventories: dict = dataclasses.field(default_factory=dict)
    used: dict = dataclasses.field(default_factory=dict)

    def fits(self, **amounts) -> bool:
        """The brute-force capacity rule of model.inventory, per class."""
        for rc, amount in amounts.items():
            inv = self.inventories.get(rc)
            if inv is None or not amount_within_units(inv, amount):
                return False
            if self.used.get(rc, 0) + amount > inv.capacity:
                return False
        return True


@pytest.fixture
def cloud(api, db):
    """Six trees of one to four providers with random inventories, usage,
    traits and aggregates (seeded: the same cloud every run)."""
    rng = random.Random(7)
    models: list[Model] = []
    for tree in range(6):
        root = make(api, f"t{tree}-root")
        members = [Model(root, f"t{tree}-root", root)]
        for child in range(rng.randrange(4)):
            parent = rng.choice(members).uuid
            members.append(Model(make(api, f"t{tree}-c{child}", parent=parent),
                                 f"t{tree}-c{child}", root))
        models += members
    for m in models:
        m.traits = set(rng.sample(TRAITS, rng.randrange(len(TRAITS) + 1)))
        m.aggs = set(rng.sample(AGGS, rng.randrange(len(AGGS) + 1)))
        if m.traits:
            factories.traits(db, m.uuid, *sorted(m.traits))
        if m.aggs:
            factories.aggregates(db, m.uuid, *sorted(m.aggs))
        for rc in rng.sample(CLASSES, rng.randrange(len(CLASSES) + 1)):
            total = rng.choice([4, 8, 16, 64])
            inv = InventoryRecord(rc, total=total, reserved=rng.choice([0, 0, 1, 2]),
                            min_unit=rng.choice([1, 1, 2]), max_unit=rng.choice([4, 16, total]),
                            step_size=rng.choice([1, 1, 2, 4]),
                            allocation_ratio=rng.choice(RATIOS))
            factories.inventory(db, m.uuid, rc, **inv.row())
            m.inventories[rc] = inv
            for _ in range(rng.randrange(3)):
                used = rng.randrange(1, 9)
                factories.allocation(db, m.uuid, rc, used)
                m.used[rc] = m.used.get(rc, 0) + used
    return models


def _v(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def _uuids(r) -> list[str]:
    assert r.status_code == 200, r.text
    return [rp["uuid"] for rp in r.json["resource_providers"]]


def _cases(models):
    """(microversion, query, which providers it must list) for filters alone
    and combined, from the first microversion that knows them."""
    root = models[0].root
    a1, a2, a3 = AGGS
    return [
        ("1.0", "", lambda m: True),
        ("1.3", f"member_of=in:{a1},{a2}", lambda m: m.aggs & {a1, a2}),
        ("1.4", "resources=VCPU:2", lambda m: m.fits(VCPU=2)),
        ("1.4", "resources=VCPU:2,DISK_GB:4", lambda m: m.fits(VCPU=2, DISK_GB=4)),
        ("1.4", f"resources=MEMORY_MB:4&member_of={a3}",
         lambda m: m.fits(MEMORY_MB=4) and a3 in m.aggs),
        ("1.14", f"in_tree={root}", lambda m: m.root == root),
        ("1.14", f"in_tree={root}&resources=VCPU:1",
         lambda m: m.root == root and m.fits(VCPU=1)),
        ("1.18", f"resources=VCPU:1&required=CUSTOM_A&member_of={a1}",
         lambda m: m.fits(VCPU=1) and "CUSTOM_A" in m.traits and a1 in m.aggs),
        ("1.22", f"resources=DISK_GB:2&required=CUSTOM_A,!CUSTOM_B"
                 f"&member_of=in:{a1},{a2}",
         lambda m: (m.fits(DISK_GB=2) and "CUSTOM_A" in m.traits
                    and "CUSTOM_B" not in m.traits and m.aggs & {a1, a2})),
        ("1.24", f"member_of={a1}&member_of=in:{a2},{a3}&resources=VCPU:1,MEMORY_MB:2",
         lambda m: (a1 in m.aggs and m.aggs & {a2, a3}
                    and m.fits(VCPU=1, MEMORY_MB=2))),
        ("1.32", f"member_of=!{a2}&required=!CUSTOM_C&resources=MEMORY_MB:1",
         lambda m: (a2 not in m.aggs and "CUSTOM_C" not in m.traits
                    and m.fits(MEMORY_MB=1))),
        ("1.39", f"required=in:CUSTOM_A,CUSTOM_B&required=!CUSTOM_C&member_of=!in:{a3}"
                 f"&resources=VCPU:2&in_tree={root}",
         lambda m: (m.traits & {"CUSTOM_A", "CUSTOM_B"} and "CUSTOM_C" not in m.traits
                    and a3 not in m.aggs and m.fits(VCPU=2) and m.root == root)),
        ("1.39", "resources=VCPU:4,MEMORY_MB:4,DISK_GB:4",
         lambda m: m.fits(VCPU=4, MEMORY_MB=4, DISK_GB=4)),
    ]


def test_combined_filters_agree_with_brute_force(api, cloud):
    matched = set()
    for version, query, wanted in _cases(cloud):
        expected = [m.uuid for m in cloud if wanted(m)]
        for later in {version, "1.39"}:
            got = _uuids(api.get(f"{RPS}?{query}", version=later))
            assert got == expected, (later, query)
        matched.update(expected)
    assert len(matched) > len(cloud) // 2  # the cases do select something


@pytest.mark.parametrize("version", BOUNDARIES)
def test_each_listed_item_is_what_show_says(api, cloud, version):
    r = api.get(RPS, version=version)
    items = r.json["resource_providers"]
    assert [i["uuid"] for i in items] == [m.uuid for m in cloud]
    shows = [api.get(f"{RPS}/{m.uuid}", version=version) for m in cloud]
    assert r.body == orjson.dumps({"resource_providers": [s.json for s in shows]})
    if _v(version) < (1, 15):
        assert "Last-Modified" not in r.headers
    else:
        newest = max(email.utils.parsedate_to_datetime(s.headers["Last-Modified"])
                     for s in shows)
        assert email.utils.parsedate_to_datetime(r.headers["Last-Modified"]) == newest


@pytest.mark.parametrize("version", BOUNDARIES)
def test_filtered_items_are_what_show_says(api, cloud, version):
    query = "resources=VCPU:1" if _v(version) >= (1, 4) else "name=t0-root"
    r = api.get(f"{RPS}?{query}", version=version)
    shows = [api.get(f"{RPS}/{u}", version=version).json for u in _uuids(r)]
    assert r.body == orjson.dumps({"resource_providers": shows})


def _set_stamps(db, stamps: dict[str, tuple]):
    def write(conn):
        for uuid, (created, updated) in stamps.items():
            conn.execute(t.resource_providers.update()
                         .where(t.resource_providers.c.uuid == uuid)
                         .values(created_at=created, updated_at=updated))
    db.write(write)


def test_last_modified_is_the_newest_change_of_the_listed(api, db):
    a, b, c = (make(api, name) for name in "abc")
    day = datetime.datetime(2026, 1, 1, 10, 0, 0)
    _set_stamps(db, {
        a: (day + datetime.timedelta(microseconds=900_000), None),
        b: (day - datetime.timedelta(days=300), day + datetime.timedelta(seconds=5)),
        c: (day + datetime.timedelta(days=1, seconds=-1), day - datetime.timedelta(days=9)),
    })

    def last_modified(query=""):
        r = api.get(f"{RPS}?{query}", version="1.39")
        return r.headers["Last-Modified"]

    # updated_at wins over created_at even when older (c), as the reference
    assert last_modified() == "Thu, 01 Jan 2026 10:00:05 GMT"
    assert last_modified(f"uuid={a}") == "Thu, 01 Jan 2026 10:00:00 GMT"
    assert last_modified(f"uuid={c}") == "Tue, 23 Dec 2025 10:00:00 GMT"
    _set_stamps(db, {c: (day + datetime.timedelta(days=1, seconds=-1), None)})
    assert last_modified() == "Fri, 02 Jan 2026 09:59:59 GMT"
    # no stamp at all, or nothing listed: now, as composite answers
    _set_stamps(db, {a: (None, None)})
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    for query in (f"uuid={a}", "name=nobody"):
        when = email.utils.parsedate_to_datetime(last_modified(query))
        assert before <= when <= datetime.datetime.now(datetime.UTC)


def _item(script_name: str, uuid: str, name: str) -> dict:
    url = f"{script_name}{RPS}/{uuid}"
    rels = ["inventories", "usages", "aggregates", "traits", "allocations"]
    return {"uuid": uuid, "name": name, "generation": 3,
            "links": [{"rel": "self", "href": url}]
            + [{"rel": rel, "href": f"{url}/{rel}"} for rel in rels],
            "parent_provider_uuid": None, "root_provider_uuid": uuid}


def test_odd_uuids_and_mount_points_are_escaped_as_json(api, db):
    # Only rows written behind the API's back can hold such uuids.
    odd = 'od"d\\uuid-é\t'
    plain = str(uuidlib.uuid4())
    factories.provider(db, "plain", uuid=plain, generation=3)
    factories.provider(db, 'na"me\n', uuid=odd, generation=3)
    for script_name in ("", '/pla"ce\\ment'):
        req = webob.Request.blank(RPS, environ={"SCRIPT_NAME": script_name})
        req.headers["X-Auth-Token"] = "admin"
        req.headers["OpenStack-API-Version"] = "placement 1.39"
        r = req.get_response(api.app)
        assert r.status_int == 200, r.text
        assert r.body == orjson.dumps({"resource_providers": [
            _item(script_name, plain, "plain"), _item(script_name, odd, 'na"me\n')]})


def test_generation_null_in_the_database_lists_as_zero(api, db):
    uuid = make(api, "legacy")
    db.write(lambda conn: conn.execute(
        t.resource_providers.update().where(t.resource_providers.c.uuid == uuid)
        .values(generation=sa.null())))
    listed = api.get(RPS, version="1.39").json["resource_providers"]
    assert listed[0]["generation"] == 0
    assert api.get(f"{RPS}/{uuid}", version="1.39").json["generation"] == 0


def test_step_size_rule_for_every_amount(api, db):
    # The step rule is SQL 'step_size IN (divisors of the amount)': check it
    # against the plain arithmetic, odd stored values (0, negative) included.
    steps = [1, 2, 3, 7, 12, 64, 1024, 0, -2]
    uuids = {}
    for step in steps:
        uuids[step] = make(api, f"step{step}")
        factories.inventory(db, uuids[step], "DISK_GB", total=2**31 - 1, step_size=step)
    amounts = [*range(1, 30), 1024, 2048, 735134400, 2**31 - 1]
    for amount in amounts:
        got = set(_uuids(api.get(f"{RPS}?resources=DISK_GB:{amount}", version="1.39")))
        assert got == {uuids[s] for s in steps if s > 0 and amount % s == 0}, amount
