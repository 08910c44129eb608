"""The providers' records that each process keeps between candidate reads
([placer] provider_cache_size, db/trees.py's Records): whatever another
worker or process writes between two requests, a server that keeps them
answers byte for byte what a server that reads everything afresh answers.

Three apps share one database: ``kept`` (keeping records), ``writer`` (another
worker, keeping its own) and ``fresh`` (provider_cache_size = 0)."""

import random
import uuid

import pytest

from placer import wsgi
from placer.db import candidates as candidates_db
from placer.db import engine as db_engine
from tests.helpers import factories
from tests.helpers.api import Api, make_conf

AGG = [str(uuid.UUID(int=i + 1)) for i in range(3)]
QUERIES = [
    "resources=VCPU:1,MEMORY_MB:512",
    "resources=VCPU:4&required=CUSTOM_FAST",
    "resources=VCPU:1&required=!CUSTOM_FAST",
    f"resources=VCPU:1&member_of={AGG[0]}",
    f"resources=VCPU:1&member_of=!{AGG[1]}",
    "resources=DISK_GB:10",  # the shared pool's, when it is one
    "resources=VCPU:1,MEMORY_MB:512&limit=2",
]


@pytest.fixture
def apps(db, tmp_path):
    """(kept, writer, fresh): the writer on a Database of its own, as another
    process's would be."""
    other = db_engine.Database(db_engine.create_engine(db.engine.url))
    kept = Api(wsgi.create_app(make_conf(tmp_path), db))
    writer = Api(wsgi.create_app(make_conf(tmp_path), other))
    fresh_db = db_engine.Database(db_engine.create_engine(db.engine.url))
    fresh = Api(wsgi.create_app(make_conf(tmp_path, placer={"provider_cache_size": 0}),
                                fresh_db))
    assert writer.put("/traits/CUSTOM_FAST", version="1.39").status_code == 201
    yield kept, writer, fresh
    other.engine.dispose()
    fresh_db.engine.dispose()


def same_answers(kept: Api, fresh: Api, version: str = "1.39") -> None:
    for query in QUERIES:
        got = kept.get(f"/allocation_candidates?{query}", version=version)
        want = fresh.get(f"/allocation_candidates?{query}", version=version)
        assert got.status_code == want.status_code == 200, (query, got.text, want.text)
        assert got.json == want.json, query


def _generation(api: Api, rp: str) -> int:
    return api.get(f"/resource_providers/{rp}", version="1.39").json["generation"]


def _put(api: Api, path: str, body: dict, version: str = "1.39") -> None:
    r = api.put(path, json=body, version=version)
    assert r.status_code == 200, r.text


def _host(api: Api, name: str, vcpu: int = 8, rp: str | None = None) -> str:
    rp = rp or str(uuid.uuid4())
    r = api.post("/resource_providers", json={"name": name, "uuid": rp}, version="1.39")
    assert r.status_code == 200, r.text
    _put(api, f"/resource_providers/{rp}/inventories", {
        "resource_provider_generation": 0,
        "inventories": {"VCPU": {"total": vcpu}, "MEMORY_MB": {"total": 4096}}})
    return rp


def test_inventories_traits_aggregates_changed_by_another_worker(apps):
    kept, writer, fresh = apps
    hosts = [_host(writer, f"host{i}") for i in range(3)]
    same_answers(kept, fresh)  # now kept
    _put(writer, f"/resource_providers/{hosts[0]}/inventories", {
        "resource_provider_generation": _generation(writer, hosts[0]),
        "inventories": {"VCPU": {"total": 2}, "MEMORY_MB": {"total": 4096}}})
    same_answers(kept, fresh)
    assert kept.get("/allocation_candidates?resources=VCPU:4", version="1.39").json[
        "provider_summaries"].keys() == set(hosts[1:])
    _put(writer, f"/resource_providers/{hosts[1]}/traits", {
        "resource_provider_generation": _generation(writer, hosts[1]),
        "traits": ["CUSTOM_FAST"]})
    same_answers(kept, fresh)
    # before 1.19 an aggregates write leaves the generation as it was
    _put(writer, f"/resource_providers/{hosts[2]}/aggregates", [AGG[0]], version="1.1")
    same_answers(kept, fresh)
    _put(writer, f"/resource_providers/{hosts[0]}/aggregates", {
        "resource_provider_generation": _generation(writer, hosts[0]),
        "aggregates": [AGG[1]]})
    same_answers(kept, fresh)
    r = writer.delete(f"/resource_providers/{hosts[1]}/traits", version="1.39")
    assert r.status_code == 204
    r = writer.delete(f"/resource_providers/{hosts[2]}/inventories/MEMORY_MB", version="1.39")
    assert r.status_code == 204
    same_answers(kept, fresh)


def test_changed_by_sql_that_bumps_the_generation(apps, db):
    """Another process's write as the API makes it: rows and a bump."""
    kept, writer, fresh = apps
    rp = _host(writer, "host")
    same_answers(kept, fresh)
    factories.inventory(db, rp, "DISK_GB", 100)
    factories.traits(db, rp, "CUSTOM_FAST")
    same_answers(kept, fresh)
    assert kept.get("/allocation_candidates?resources=DISK_GB:10", version="1.39").json[
        "provider_summaries"].keys() == {rp}


def test_deleted_and_recreated_under_the_same_name_and_uuid(apps):
    """The new provider may take the old one's id (SQLite reuses the
    largest), uuid and name, and reach its generation with other records."""
    kept, writer, fresh = apps
    _host(writer, "other")
    rp = _host(writer, "host", vcpu=8)
    same_answers(kept, fresh)
    assert writer.delete(f"/resource_providers/{rp}", version="1.39").status_code == 204
    same_answers(kept, fresh)
    assert _host(writer, "host", vcpu=3, rp=rp) == rp
    assert _generation(writer, rp) == 1  # as the old one's was when kept
    same_answers(kept, fresh)
    got = kept.get("/allocation_candidates?resources=VCPU:1",
                   version="1.39").json["provider_summaries"]
    assert got[rp]["resources"]["VCPU"]["capacity"] == 3


def test_claims_and_reshapes_between_reads(apps):
    """Usages are read each time; a reshape moves inventory under the
    kept records of the root."""
    kept, writer, fresh = apps
    rp = _host(writer, "host", vcpu=4)
    same_answers(kept, fresh)
    consumer = str(uuid.uuid4())
    r = writer.put(f"/allocations/{consumer}", version="1.39", json={
        "allocations": {rp: {"resources": {"VCPU": 3}}}, "project_id": "p", "user_id": "u",
        "consumer_generation": None, "consumer_type": "INSTANCE"})
    assert r.status_code == 204, r.text
    same_answers(kept, fresh)
    child = str(uuid.uuid4())
    r = writer.post("/resource_providers", version="1.39",
                    json={"name": "numa0", "uuid": child, "parent_provider_uuid": rp})
    assert r.status_code == 200
    r = writer.post("/reshaper", version="1.39", headers={"X-Roles": "admin,service"}, json={
        "inventories": {
            rp: {"resource_provider_generation": _generation(writer, rp),
                 "inventories": {"MEMORY_MB": {"total": 4096}}},
            child: {"resource_provider_generation": 0,
                    "inventories": {"VCPU": {"total": 4}}}},
        "allocations": {consumer: {
            "allocations": {child: {"resources": {"VCPU": 3}}}, "project_id": "p",
            "user_id": "u", "consumer_generation": 1, "consumer_type": "INSTANCE"}}})
    assert r.status_code == 204, r.text
    same_answers(kept, fresh)


def test_random_writes_from_two_workers(apps):
    """Seeded random writes, alternating between the two keeping workers,
    each followed by both keeping servers' answers against the fresh one's."""
    kept, writer, fresh = apps
    rng = random.Random(38)
    hosts = [_host(writer, f"host{i}", vcpu=rng.randint(1, 8)) for i in range(4)]
    for step in range(40):
        api = (kept, writer)[step % 2]
        rp = rng.choice(hosts)
        gen = _generation(api, rp)
        what = rng.choice(["inventory", "traits", "aggregates", "old aggregates", "claim"])
        if what == "inventory":
            _put(api, f"/resource_providers/{rp}/inventories", {
                "resource_provider_generation": gen,
                "inventories": {"VCPU": {"total": rng.randint(4, 8)},
                                "MEMORY_MB": {"total": 4096}}})
        elif what == "traits":
            _put(api, f"/resource_providers/{rp}/traits", {
                "resource_provider_generation": gen,
                "traits": rng.choice([[], ["CUSTOM_FAST"]])})
        elif what == "aggregates":
            _put(api, f"/resource_providers/{rp}/aggregates", {
                "resource_provider_generation": gen, "aggregates": rng.sample(AGG, 1)})
        elif what == "old aggregates":
            _put(api, f"/resource_providers/{rp}/aggregates", rng.sample(AGG, 1), version="1.1")
        else:
            r = api.put(f"/allocations/{uuid.uuid4()}", version="1.39", json={
                "allocations": {rp: {"resources": {"VCPU": 1}}}, "project_id": "p",
                "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"})
            assert r.status_code in (204, 409), r.text
        same_answers(kept, fresh)
        same_answers(writer, fresh)


def test_the_room_filter_of_a_larger_cloud(apps, monkeypatch):
    """Past SMALL_CLOUD the candidate roots are filtered by room in SQL
    first, below it only by what else the request asks: the engine judges
    every tree, so the answers are the same, hosts with too little room
    among them; but for the one known difference (docs/api/differences.md):
    past it, a sharing provider's tree holding none of the requested
    classes is not loaded."""
    kept, writer, fresh = apps
    hosts = [_host(writer, f"host{i}", vcpu=2 + 2 * i) for i in range(4)]
    consumer = str(uuid.uuid4())
    r = writer.put(f"/allocations/{consumer}", version="1.39", json={
        "allocations": {hosts[3]: {"resources": {"VCPU": 7}}}, "project_id": "p",
        "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"})
    assert r.status_code == 204, r.text
    _put(writer, f"/resource_providers/{hosts[2]}/traits", {
        "resource_provider_generation": _generation(writer, hosts[2]), "traits": ["CUSTOM_FAST"]})
    nic, shared = str(uuid.uuid4()), str(uuid.uuid4())
    for rp, body in ((nic, {"parent_provider_uuid": hosts[0]}), (shared, {})):
        assert writer.post("/resource_providers", version="1.39", json={
            "name": rp[:8], "uuid": rp, **body}).status_code == 200
    _put(writer, f"/resource_providers/{shared}/inventories", {
        "resource_provider_generation": 0, "inventories": {"DISK_GB": {"total": 10}}})
    for rp, traits in ((nic, ["CUSTOM_FAST"]),
                       (shared, ["CUSTOM_FAST", "MISC_SHARES_VIA_AGGREGATE"])):
        _put(writer, f"/resource_providers/{rp}/traits", {
            "resource_provider_generation": _generation(writer, rp), "traits": traits})
    for rp in (hosts[0], shared):
        _put(writer, f"/resource_providers/{rp}/aggregates", {
            "resource_provider_generation": _generation(writer, rp), "aggregates": [AGG[2]]})
    alone = "resources=VCPU:1&required_N=CUSTOM_FAST&same_subtree=_N"

    def serving_n(body):
        return {p for r in body["allocation_requests"] for p in r["mappings"]["_N"]}

    # as the reference answers
    assert {nic, shared} <= serving_n(kept.get(f"/allocation_candidates?{alone}",
                                               version="1.39").json)
    queries = [*QUERIES, "resources=VCPU:4", "resources1=VCPU:3&required1=!CUSTOM_FAST",
               "resources=VCPU:1&resources1=MEMORY_MB:4096&group_policy=isolate&limit=1"]
    small = {q: kept.get(f"/allocation_candidates?{q}", version="1.39").json for q in queries}
    assert small["resources=VCPU:4"]["provider_summaries"].keys() == {hosts[1], hosts[2]}
    monkeypatch.setattr(candidates_db, "SMALL_CLOUD", 0)
    for q in queries:
        assert kept.get(f"/allocation_candidates?{q}", version="1.39").json == small[q], q
        assert fresh.get(f"/allocation_candidates?{q}", version="1.39").json == small[q], q
    larger = serving_n(kept.get(f"/allocation_candidates?{alone}", version="1.39").json)
    assert nic in larger and shared not in larger
