"""/resource_providers/{uuid}/aggregates (1.1; generations from 1.19; 1.15
headers; 1.23 error codes)."""

import threading
import uuid as uuidlib

import pytest
import sqlalchemy as sa

from placer.db import aggregates as agg_db
from placer.db import tables
from tests.helpers import factories
from tests.helpers.api import assert_error
from tests.helpers.races import SecondWriter

A1 = "aaaaaaaa-0000-4000-8000-000000000001"
A2 = "bbbbbbbb-0000-4000-8000-000000000002"
A3 = "00000000-0000-4000-8000-000000000003"
CONCURRENT = "placement.concurrent_update"
GENERATION_CHANGED = ("Resource provider's generation already changed. Please update the "
                      "generation and try again.")


def path(uuid: str) -> str:
    return f"/resource_providers/{uuid}/aggregates"


def put(api, uuid, aggregates, gen=None, version="1.19"):
    body = aggregates if gen is None else {"aggregates": aggregates,
                                           "resource_provider_generation": gen}
    return api.put(path(uuid), version=version, json=body)


def aggregate_rows(db) -> list[str]:
    t = tables.placement_aggregates
    return db.read(lambda c: list(c.execute(sa.select(t.c.uuid).order_by(t.c.id)).scalars()))


def links(db) -> int:
    t = tables.resource_provider_aggregates
    return db.read(lambda c: c.execute(sa.select(sa.func.count()).select_from(t)).scalar())


@pytest.fixture
def rp(db):
    return factories.provider(db)


def test_route_does_not_exist_at_1_0(api, db, rp):
    assert_error(api.get(path(rp), version="1.0"), 404)
    assert_error(put(api, rp, [A1], version="1.0"), 404)
    assert links(db) == 0


def test_media_types_are_checked_before_the_version(api, db, rp):
    """As the reference (placement 16.0.0), on these two routes alone: its
    Accept and Content-Type checks wrap the version check, so below 1.1 a
    bad Accept is a 406 and a bad Content-Type a 415, not a 404."""
    r = api.get(path(rp), version="1.0", headers={"Accept": "text/plain"})
    assert r.status_code == 406 and r.text.endswith("Only application/json is provided")
    assert_error(api.put(path(rp), version="1.0", body="[]",
                         headers={"Content-Type": "text/plain"}), 415,
                 "The media type text/plain is not supported, use application/json")
    assert_error(api.put(path(rp), version="1.0"), 415, "The media type None is not supported")
    # acceptable media types: then the version, 404
    assert_error(api.get(path(rp), version="1.0", headers={"Accept": "application/json"}),
                 404)
    assert links(db) == 0


def test_elsewhere_the_version_is_checked_before_the_media_types(api):
    """Every other route checks the version first, as the reference does."""
    r = api.get("/traits", version="1.5", headers={"Accept": "text/plain"})
    assert r.status_code == 404 and r.text.startswith("404 Not Found")
    assert_error(api.post("/resource_classes", version="1.1", body="{}",
                          headers={"Content-Type": "text/plain"}), 404)
    assert_error(api.post("/allocations", version="1.12", body="{}",
                          headers={"Content-Type": "text/plain"}), 404)


def test_list_and_set_before_1_19(api, db, rp):
    r = api.get(path(rp), version="1.1")
    assert r.status_code == 200 and r.json == {"aggregates": []}
    assert "Last-Modified" not in r.headers
    r = put(api, rp, [A2, A1], version="1.1")
    # the answer echoes the request; a GET lists oldest aggregate first
    assert r.status_code == 200 and r.json == {"aggregates": [A2, A1]}
    assert aggregate_rows(db) == sorted([A2, A1])  # created in a stable order
    assert api.get(path(rp), version="1.18").json == {"aggregates": [A1, A2]}
    r = put(api, rp, [A3, A2], version="1.18")
    assert r.json == {"aggregates": [A3, A2]}
    assert api.get(path(rp), version="1.18").json == {"aggregates": [A2, A3]}
    # no generation before 1.19, neither checked nor bumped
    assert factories.generation(db, rp) == 0


def test_set_from_1_19_checks_and_bumps_the_generation(api, db, rp):
    r = api.get(path(rp), version="1.19")
    assert r.json == {"aggregates": [], "resource_provider_generation": 0}
    r = put(api, rp, [A1, A2], 0)
    assert r.json == {"aggregates": [A1, A2], "resource_provider_generation": 1}
    # an unchanged set still bumps, as the reference does
    r = put(api, rp, [A2, A1], 1, version="1.39")
    assert r.json == {"aggregates": [A2, A1], "resource_provider_generation": 2}
    r = put(api, rp, [], 2.0)
    assert r.json == {"aggregates": [], "resource_provider_generation": 3}
    assert api.get(path(rp), version="1.19").json == {
        "aggregates": [], "resource_provider_generation": 3}
    assert links(db) == 0


def test_stale_generation_is_409_and_changes_nothing(api, db, rp):
    put(api, rp, [A1], 0)
    assert_error(put(api, rp, [A2], 0, version="1.23"), 409, GENERATION_CHANGED, CONCURRENT)
    error = assert_error(put(api, rp, [A2], 5, version="1.22"), 409, GENERATION_CHANGED)
    assert "code" not in error
    assert api.get(path(rp), version="1.19").json == {
        "aggregates": [A1], "resource_provider_generation": 1}
    assert aggregate_rows(db) == [A1]


def test_orphaned_aggregates_are_kept_and_reused(api, db):
    one, two = factories.provider(db, "one"), factories.provider(db, "two")
    put(api, one, [A1, A2], 0)
    put(api, two, [A2], 0)
    assert aggregate_rows(db) == [A1, A2]
    put(api, one, [], 1)
    assert aggregate_rows(db) == [A1, A2]
    assert api.get(path(two), version="1.19").json["aggregates"] == [A2]
    put(api, one, [A1], 2)
    assert aggregate_rows(db) == [A1, A2] and links(db) == 2


def test_uuid_spellings(api, db, rp):
    upper, bare, braced = A1.upper(), A2.replace("-", ""), "{" + A3 + "}"
    r = put(api, rp, [upper, bare, braced], 0)
    # kept as spelled when they fit the column; the braced form is made canonical
    assert r.json["aggregates"] == [upper, bare, A3]
    assert sorted(api.get(path(rp), version="1.19").json["aggregates"]) == sorted(
        [upper, bare, A3])
    r = put(api, rp, ["urn:uuid:" + A3, A3], 1)
    assert r.json["aggregates"] == [A3]


BAD_1_1 = [
    ({"aggregates": []}, "{'aggregates': []} is not of type 'array'"),
    ([A1, A1], "has non-unique elements"),
    (["not-a-uuid"], "'not-a-uuid' is not a 'uuid'"),
    ([A1 + "0"], "is not a 'uuid'"),
    ([5], "5 is not of type 'string'"),
    ([None], "None is not of type 'string'"),
    ("x", "'x' is not of type 'array'"),
]
BAD_1_19 = [
    ([A1], "is not of type 'object'"),
    ({"aggregates": [A1]}, "'resource_provider_generation' is a required property"),
    ({"resource_provider_generation": 0}, "'aggregates' is a required property"),
    ({"aggregates": [A1, A1], "resource_provider_generation": 0}, "has non-unique elements"),
    ({"aggregates": ["nope"], "resource_provider_generation": 0}, "'nope' is not a 'uuid'"),
    ({"aggregates": [A1], "resource_provider_generation": "0"},
     "'0' is not of type 'integer'"),
    ({"aggregates": [A1], "resource_provider_generation": 0.5},
     "0.5 is not of type 'integer'"),
    ({"aggregates": A1, "resource_provider_generation": 0}, "is not of type 'array'"),
    ({"aggregates": [A1], "resource_provider_generation": 0, "x": 1},
     "Additional properties are not allowed ('x' was unexpected)"),
]


@pytest.mark.parametrize("version,body,detail",
                         [("1.18", b, d) for b, d in BAD_1_1] +
                         [("1.23", b, d) for b, d in BAD_1_19])
def test_bad_bodies_are_400_and_write_nothing(api, db, rp, version, body, detail):
    put(api, rp, [A2], 0)
    r = api.put(path(rp), version=version, json=body)
    error = assert_error(r, 400, "JSON does not validate: ")
    assert detail in error["detail"]
    assert api.get(path(rp), version="1.19").json == {
        "aggregates": [A2], "resource_provider_generation": 1}
    assert aggregate_rows(db) == [A2]


def test_malformed_json_and_media_types(api, db, rp):
    r = api.put(path(rp), version="1.19", body="[garbage",
                headers={"Content-Type": "application/json"})
    assert_error(r, 400, "Malformed JSON: Expecting value: line 1 column 2 (char 1)")
    assert_error(api.put(path(rp), version="1.1", body="[]",
                         headers={"Content-Type": "text/plain"}), 415)
    r = api.get(path(rp), version="1.1", headers={"Accept": "text/plain"})
    assert r.status_code == 406 and r.text.endswith("Only application/json is provided")
    assert aggregate_rows(db) == [] and factories.generation(db, rp) == 0


def test_unknown_provider_is_404_whatever_the_body(api, db):
    missing = str(uuidlib.uuid4())
    sentence = f"No resource provider with uuid {missing} found"
    assert_error(api.get(path(missing), version="1.23"), 404, sentence,
                 "placement.undefined_code")
    assert_error(put(api, missing, [A1], 0), 404, sentence)
    assert_error(put(api, missing, [A1], version="1.1"), 404, sentence)
    assert_error(api.put(path(missing), version="1.19", body="garbage",
                         headers={"Content-Type": "application/json"}), 404, sentence)
    assert_error(put(api, missing, [A1, A1], version="1.1"), 404, sentence)
    assert aggregate_rows(db) == []


def test_headers_from_1_15(api, rp):
    r = put(api, rp, [A1], version="1.14")
    assert "Last-Modified" not in r.headers and "Cache-Control" not in r.headers
    for r in (put(api, rp, [A1], version="1.15"), api.get(path(rp), version="1.15")):
        assert r.headers["Cache-Control"] == "no-cache"
        assert r.headers["Last-Modified"].endswith(" GMT")


def test_same_new_aggregate_created_by_two_transactions_at_once(db):
    """The second creator waits for the first and reuses its row: no unique-key error."""
    fresh = str(uuidlib.uuid4())
    second = SecondWriter(db, tables.placement_aggregates, agg_db.ensure, [fresh, A1])
    with db.transaction(write=True) as conn:
        first = agg_db.ensure(conn, [fresh])
        second.start().wait_until_blocked()  # on our uncommitted row
    ids = second.join()
    assert ids[fresh] == first[fresh]
    assert sorted(aggregate_rows(db)) == sorted([fresh, A1])
    # the race happened: the second tried to create ``fresh`` too, and skipped it
    # (SQLite serialises writers at BEGIN: it found the row and created A1 only)
    [(params, inserted)] = second.inserts()
    assert (fresh in str(params)) == (db.backend != "sqlite"), params
    assert A1 in str(params) and inserted == 1


def test_concurrent_puts_sharing_new_aggregates_all_succeed(api, db):
    providers = [factories.provider(db, f"rp{i}") for i in range(6)]
    shared = [str(uuidlib.uuid4()) for _ in range(3)]
    statuses = []

    def worker(uuid, version):
        statuses.append(put(api, uuid, shared, 0 if version == "1.19" else None,
                            version=version).status_code)

    threads = [threading.Thread(target=worker, args=(uuid, "1.19" if i % 2 else "1.1"))
               for i, uuid in enumerate(providers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert statuses == [200] * len(providers)
    assert sorted(aggregate_rows(db)) == sorted(shared)
    assert links(db) == len(providers) * len(shared)
