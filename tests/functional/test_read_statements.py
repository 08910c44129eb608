"""How many SQL statements the resource tracker's reads of its provider
send, per backend (issue 38): each reads the provider's generation in the
statement that reads its rows, so a provider with rows is one statement;
a provider without any is read on its own (two), and a missing one is the
route's 404. Counted as tests/functional/test_write_statements.py counts
(BEGIN and COMMIT left out)."""

import uuid

import pytest

from tests.functional.test_write_statements import counted
from tests.helpers import factories
from tests.helpers.api import assert_error

READS = {  # route -> (the body's list key, the 404 text's start)
    "inventories": ("inventories", "No resource provider with uuid {u} found : "),
    "traits": ("traits", "No resource provider with uuid {u} found"),
    "aggregates": ("aggregates", "No resource provider with uuid {u} found"),
    "allocations": ("allocations", "Resource provider '{u}' not found: "),
    "usages": ("usages", "No resource provider with uuid {u} found: "),
}


def _read(api, db, path):
    with counted(db.engine) as seen:
        r = api.get(path, version="1.39")
    return r, seen


@pytest.mark.parametrize("route", READS)
def test_a_provider_with_rows_is_one_statement(api, db, route):
    rp = factories.provider(db, "host", inventory={"VCPU": 8}, traits=["CUSTOM_A"],
                            aggregates=[str(uuid.uuid4())], generation=4)
    factories.allocation(db, rp, "VCPU", 2)
    r, seen = _read(api, db, f"/resource_providers/{rp}/{route}")
    assert r.status_code == 200, r.text
    assert r.json[READS[route][0]], r.json
    assert r.json["resource_provider_generation"] == 4
    assert len(seen) == 1, seen


@pytest.mark.parametrize("route", READS)
def test_a_provider_without_rows_still_says_its_generation(api, db, route):
    rp = factories.provider(db, "bare", generation=7)
    r, seen = _read(api, db, f"/resource_providers/{rp}/{route}")
    assert r.status_code == 200, r.text
    assert not r.json[READS[route][0]]
    assert r.json["resource_provider_generation"] == 7
    assert len(seen) == 2, seen


@pytest.mark.parametrize("route", READS)
@pytest.mark.parametrize("missing", ["0c7c4f2e-8e0b-4d4c-9d53-7f7a3a0e1b2c", "not-a-uuid",
                                     "nul\x00inside"])
def test_a_missing_provider_is_the_routes_404(api, db, route, missing):
    r, _ = _read(api, db, f"/resource_providers/{missing}/{route}")
    assert_error(r, 404, READS[route][1].format(u=missing))


def test_a_class_and_usages_are_one_statement(api, db):
    for path in ("/resource_classes/VCPU", "/usages?project_id=p1"):
        r, seen = _read(api, db, path)
        assert r.status_code == 200, r.text
        assert len(seen) == 1, (path, seen)


def test_in_tree_alone_is_one_statement(api, db):
    root = factories.provider(db, "root", inventory={"VCPU": 8})
    child = factories.provider(db, "child", parent=root)
    factories.provider(db, "elsewhere")
    for named in (root, child):
        r, seen = _read(api, db, f"/resource_providers?in_tree={named}")
        assert r.status_code == 200, r.text
        assert [p["uuid"] for p in r.json["resource_providers"]] == [root, child]
        assert len(seen) == 1, seen
    r, _ = _read(api, db, "/resource_providers?in_tree=0c7c4f2e-8e0b-4d4c-9d53-7f7a3a0e1b2c")
    assert r.status_code == 200 and r.json == {"resource_providers": []}
