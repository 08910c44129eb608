"""/traits, /traits/{name} and /resource_providers/{uuid}/traits (1.6; 1.15
headers; 1.23 error codes)."""

import threading
import uuid as uuidlib

import os_traits
import pytest
import sqlalchemy as sa

from placer.db import tables
from placer.db import traits as trait_db
from tests.helpers import factories
from tests.helpers.api import assert_error
from tests.helpers.races import SecondWriter

CONCURRENT = "placement.concurrent_update"
UNDEFINED = "placement.undefined_code"
BAD_TRAIT = ('The trait is invalid. A valid trait must be no longer than 255 characters, '
             'start with the prefix "CUSTOM_" and use following characters: "A"-"Z", '
             '"0"-"9" and "_"')


def trait_names(db) -> list[str]:
    t = tables.traits
    return db.read(lambda c: list(c.execute(sa.select(t.c.name).order_by(t.c.id)).scalars()))


def custom_traits(db) -> list[str]:
    return [n for n in trait_names(db) if n.startswith("CUSTOM_")]


def links(db) -> int:
    t = tables.resource_provider_traits
    return db.read(lambda c: c.execute(sa.select(sa.func.count()).select_from(t)).scalar())


def set_traits(api, uuid, traits, gen, version="1.6"):
    return api.put(f"/resource_providers/{uuid}/traits", version=version,
                   json={"traits": traits, "resource_provider_generation": gen})


@pytest.fixture
def customs(api):
    for name in ("CUSTOM_ZED", "CUSTOM_ALPHA", "CUSTOM_MID"):
        assert api.put(f"/traits/{name}", version="1.6").status_code == 201
    return ["CUSTOM_ZED", "CUSTOM_ALPHA", "CUSTOM_MID"]


# --- microversion boundaries -------------------------------------------------

@pytest.mark.parametrize("method,path", [
    ("GET", "/traits"), ("GET", "/traits/HW_CPU_X86_AVX"), ("PUT", "/traits/CUSTOM_A"),
    ("DELETE", "/traits/CUSTOM_A"), ("GET", "/resource_providers/{u}/traits"),
    ("PUT", "/resource_providers/{u}/traits"), ("DELETE", "/resource_providers/{u}/traits")])
def test_routes_do_not_exist_before_1_6(api, db, method, path):
    uuid = factories.provider(db)
    kw = {"json": {"traits": [], "resource_provider_generation": 0}} if method == "PUT" else {}
    assert_error(api.request(method, path.format(u=uuid), version="1.5", **kw), 404)
    assert custom_traits(db) == []
    assert factories.generation(db, uuid) == 0


# --- GET /traits ---------------------------------------------------------------

def test_list_is_every_trait_in_creation_order(api, db, customs):
    r = api.get("/traits", version="1.6")
    assert r.status_code == 200
    names = r.json["traits"]
    assert names == trait_names(db)
    assert set(names) == set(os_traits.get_traits()) | set(customs)
    assert names[-3:] == customs
    assert "Last-Modified" not in r.headers and "Cache-Control" not in r.headers


def test_list_startswith_keeps_creation_order(api, customs):
    r = api.get("/traits?name=startswith:CUSTOM", version="1.6")
    assert r.json == {"traits": customs}
    # letters of either case; _ and % are literal (the reference's LIKE wildcards)
    assert api.get("/traits?name=startswith:custom_", version="1.6").json == {"traits": customs}
    assert api.get("/traits?name=startswith:CUSTOM%25Z", version="1.6").json == {"traits": []}
    assert api.get("/traits?name=startswith:CUSTOM_Q", version="1.6").json == {"traits": []}
    assert api.get("/traits?name=startswith:CU%5CSTOM", version="1.6").json == {"traits": []}
    everything = api.get("/traits?name=startswith:", version="1.6").json["traits"]
    assert everything == api.get("/traits", version="1.6").json["traits"]


def test_list_in_sorts_by_name_and_ignores_unknown(api, customs):
    r = api.get("/traits?name=in:CUSTOM_ZED,HW_CPU_X86_AVX,CUSTOM_ALPHA,NOPE,custom_mid,",
                version="1.6")
    assert r.json == {"traits": ["CUSTOM_ALPHA", "CUSTOM_ZED", "HW_CPU_X86_AVX"]}
    assert api.get("/traits?name=in:", version="1.6").json == {"traits": []}
    for odd in ("CUSTOM_ZED%00", "%F0%9F%98%80", "A" * 300):
        assert api.get(f"/traits?name=in:{odd}", version="1.6").json == {"traits": []}
        assert api.get(f"/traits?name=startswith:{odd}", version="1.6").json == {"traits": []}


def test_list_last_of_repeated_keys_wins_and_unknown_operator_is_ignored(api, customs):
    r = api.get("/traits?name=startswith:CUSTOM_Z&name=in:CUSTOM_ALPHA", version="1.6")
    assert r.json == {"traits": ["CUSTOM_ALPHA"]}
    r = api.get("/traits?name=in:CUSTOM_ALPHA;name=in:CUSTOM_MID", version="1.6")
    assert r.json == {"traits": ["CUSTOM_MID"]}
    everything = api.get("/traits", version="1.6").json
    assert api.get("/traits?name=foo:bar", version="1.6").json == everything


def test_list_associated(api, db, customs):
    uuid = factories.provider(db)
    assert set_traits(api, uuid, ["CUSTOM_ZED", "HW_CPU_X86_AVX", "CUSTOM_ALPHA"], 0
                      ).status_code == 200
    all_names = trait_names(db)
    assert api.get("/traits?associated=true", version="1.6").json == {
        "traits": [n for n in all_names if n in ("CUSTOM_ZED", "HW_CPU_X86_AVX", "CUSTOM_ALPHA")]}
    unused = api.get("/traits?associated=FALSE", version="1.6").json["traits"]
    assert unused == [n for n in all_names
                      if n not in ("CUSTOM_ZED", "HW_CPU_X86_AVX", "CUSTOM_ALPHA")]
    r = api.get("/traits?associated=true&name=startswith:CUSTOM", version="1.6")
    assert r.json == {"traits": ["CUSTOM_ZED", "CUSTOM_ALPHA"]}
    r = api.get("/traits?associated=false&name=startswith:CUSTOM", version="1.6")
    assert r.json == {"traits": ["CUSTOM_MID"]}
    r = api.get("/traits?associated=true&name=in:CUSTOM_ZED,CUSTOM_MID,HW_CPU_X86_AVX",
                version="1.6")
    assert r.json == {"traits": ["CUSTOM_ZED", "HW_CPU_X86_AVX"]}
    r = api.get("/traits?associated=false&name=in:CUSTOM_ZED,CUSTOM_MID", version="1.6")
    assert r.json == {"traits": ["CUSTOM_MID"]}


@pytest.mark.parametrize("query,detail", [
    ("name=CUSTOM", 'Badly formatted name parameter. Expected name query string parameter in '
                    'form: ?name=[in|startswith]:[name1,name2|prefix]. Got: "CUSTOM"'),
    ("associated=yes", 'The query parameter "associated" only accepts "true" or "false"'),
    ("associated=", 'The query parameter "associated" only accepts "true" or "false"'),
    ("foo=bar&associated=true&zzz=1",
     "Invalid query string parameters: Additional properties are not allowed "
     "('foo', 'zzz' were unexpected)"),
    ("name=%FF", "Invalid query string parameters: 'utf-8' codec can't decode byte 0xff "
                 "in position 0: invalid start byte"),
])
def test_list_bad_filters_are_400(api, query, detail):
    assert_error(api.get(f"/traits?{query}", version="1.23"), 400, detail, UNDEFINED)


def test_list_headers_from_1_15(api, customs):
    r = api.get("/traits?name=startswith:CUSTOM", version="1.15")
    assert r.headers["Cache-Control"] == "no-cache"
    assert r.headers["Last-Modified"].endswith(" GMT")
    r = api.get("/traits?name=in:NOPE", version="1.15")
    assert r.json == {"traits": []} and "Last-Modified" in r.headers


def assert_not_acceptable(r):
    # the error itself is in the accepted type, as the reference answers
    assert r.status_code == 406
    assert r.text.endswith("Only application/json is provided")


def test_list_refuses_non_json_accept(api):
    assert_not_acceptable(api.get("/traits", version="1.6", headers={"Accept": "text/plain"}))


# --- /traits/{name} ------------------------------------------------------------

def test_put_creates_then_verifies(api, db):
    r = api.put("/traits/CUSTOM_NEW", version="1.6")
    assert r.status_code == 201
    assert r.headers["Location"].endswith("/traits/CUSTOM_NEW")
    assert "Content-Type" not in r.headers and "Last-Modified" not in r.headers
    r = api.put("/traits/CUSTOM_NEW", version="1.15")
    assert r.status_code == 204
    assert r.headers["Location"].endswith("/traits/CUSTOM_NEW")
    assert r.headers["Cache-Control"] == "no-cache" and "Last-Modified" in r.headers
    assert custom_traits(db) == ["CUSTOM_NEW"]
    longest = "CUSTOM_" + "A" * 248
    assert api.put(f"/traits/{longest}", version="1.6").status_code == 201


@pytest.mark.parametrize("name", [
    "HW_CPU_X86_AVX", "FOO", "CUSTOM_", "CUSTOM_lower", "custom_x", "CUSTOM_A-B",
    "CUSTOM_" + "A" * 249, "CUSTOM_A%0A", "CUSTOM_%C3%89"])
def test_put_refuses_non_custom_names(api, db, name):
    assert_error(api.put(f"/traits/{name}", version="1.23"), 400, BAD_TRAIT, UNDEFINED)
    assert custom_traits(db) == []


def test_show(api, customs):
    r = api.get("/traits/CUSTOM_ZED", version="1.6")
    assert r.status_code == 204 and r.body == b""
    assert "Last-Modified" not in r.headers
    r = api.get("/traits/HW_CPU_X86_AVX", version="1.15")
    assert r.status_code == 204
    assert r.headers["Cache-Control"] == "no-cache" and "Last-Modified" in r.headers
    for name in ("CUSTOM_NOPE", "custom_zed", "CUSTOM_ZED%00", "%F0%9F%98%80", "A" * 300):
        assert_error(api.get(f"/traits/{name}", version="1.23"), 404, "No such trait(s): ",
                     UNDEFINED)
    assert_error(api.get("/traits/CUSTOM_NOPE", version="1.6"), 404,
                 "No such trait(s): CUSTOM_NOPE.")


def test_delete(api, db, customs):
    r = api.delete("/traits/CUSTOM_MID", version="1.6")
    assert r.status_code == 204 and "Content-Type" not in r.headers
    assert custom_traits(db) == ["CUSTOM_ZED", "CUSTOM_ALPHA"]
    assert_error(api.get("/traits/CUSTOM_MID", version="1.6"), 404)
    assert_error(api.delete("/traits/CUSTOM_MID", version="1.23"), 404,
                 "No such trait(s): CUSTOM_MID.", UNDEFINED)
    assert_error(api.delete("/traits/NOPE", version="1.23"), 404, "No such trait(s): NOPE.")


def test_delete_standard_is_400(api, db):
    assert_error(api.delete("/traits/HW_CPU_X86_AVX", version="1.23"), 400,
                 "Cannot delete standard trait HW_CPU_X86_AVX.", UNDEFINED)
    assert "HW_CPU_X86_AVX" in trait_names(db)


def test_delete_trait_in_use_is_409(api, db, customs):
    uuid = factories.provider(db)
    set_traits(api, uuid, ["CUSTOM_ZED"], 0)
    assert_error(api.delete("/traits/CUSTOM_ZED", version="1.23"), 409,
                 "The trait CUSTOM_ZED is in use by a resource provider.", UNDEFINED)
    assert "CUSTOM_ZED" in custom_traits(db)
    assert api.delete(f"/resource_providers/{uuid}/traits", version="1.6").status_code == 204
    assert api.delete("/traits/CUSTOM_ZED", version="1.6").status_code == 204


# --- /resource_providers/{uuid}/traits ----------------------------------------------

def test_provider_traits_round_trip(api, db, customs):
    uuid = factories.provider(db)
    r = api.get(f"/resource_providers/{uuid}/traits", version="1.6")
    assert r.json == {"traits": [], "resource_provider_generation": 0}
    assert "Last-Modified" not in r.headers
    r = set_traits(api, uuid, ["CUSTOM_ZED", "HW_NIC_SRIOV", "CUSTOM_ALPHA", "CUSTOM_ZED"], 0)
    assert r.status_code == 200
    # the answer is by name, a later GET by trait id: as the reference's queries
    assert r.json == {"traits": ["CUSTOM_ALPHA", "CUSTOM_ZED", "HW_NIC_SRIOV"],
                      "resource_provider_generation": 1}
    ids = trait_names(db)
    r = api.get(f"/resource_providers/{uuid}/traits", version="1.6")
    assert r.json == {"traits": sorted(["CUSTOM_ZED", "HW_NIC_SRIOV", "CUSTOM_ALPHA"],
                                       key=ids.index),
                      "resource_provider_generation": 1}
    r = set_traits(api, uuid, ["CUSTOM_MID", "CUSTOM_ZED"], 1)
    assert r.json == {"traits": ["CUSTOM_MID", "CUSTOM_ZED"], "resource_provider_generation": 2}
    assert factories.generation(db, uuid) == 2 and links(db) == 2


def test_provider_traits_unchanged_set_keeps_generation(api, db, customs):
    uuid = factories.provider(db)
    set_traits(api, uuid, ["CUSTOM_ZED"], 0)
    r = set_traits(api, uuid, ["CUSTOM_ZED"], 1)
    assert r.json == {"traits": ["CUSTOM_ZED"], "resource_provider_generation": 1}
    assert factories.generation(db, uuid) == 1


def test_provider_traits_whole_float_generation_is_an_integer(api, db):
    uuid = factories.provider(db, generation=5)
    r = set_traits(api, uuid, ["HW_CPU_X86_AVX"], 5.0)
    assert r.json == {"traits": ["HW_CPU_X86_AVX"], "resource_provider_generation": 6}


def test_provider_traits_other_provider_is_untouched(api, db, customs):
    one, two = factories.provider(db, "one"), factories.provider(db, "two")
    set_traits(api, one, ["CUSTOM_ZED"], 0)
    set_traits(api, two, ["CUSTOM_MID"], 0)
    assert api.delete(f"/resource_providers/{one}/traits", version="1.6").status_code == 204
    assert api.get(f"/resource_providers/{two}/traits", version="1.6").json["traits"] == [
        "CUSTOM_MID"]


def test_provider_traits_stale_generation_is_409(api, db, customs):
    uuid = factories.provider(db)
    set_traits(api, uuid, ["CUSTOM_ZED"], 0)
    expected = ("Resource provider's generation already changed. Please update the "
                "generation and try again.")
    assert_error(set_traits(api, uuid, ["CUSTOM_MID"], 0, "1.23"), 409, expected, CONCURRENT)
    error = assert_error(set_traits(api, uuid, ["CUSTOM_MID"], 7, "1.22"), 409, expected)
    assert "code" not in error
    # the generation is checked before the names
    assert_error(set_traits(api, uuid, ["CUSTOM_NOPE"], 0, "1.23"), 409, expected, CONCURRENT)
    assert api.get(f"/resource_providers/{uuid}/traits", version="1.6").json == {
        "traits": ["CUSTOM_ZED"], "resource_provider_generation": 1}


def test_provider_traits_unknown_names_are_400(api, db, customs):
    uuid = factories.provider(db)
    set_traits(api, uuid, ["CUSTOM_ZED"], 0)
    error = assert_error(set_traits(api, uuid, ["CUSTOM_ALPHA", "CUSTOM_NOPE", "custom_zed",
                                                "CUSTOM_NOPE"], 1, "1.23"),
                         400, None, UNDEFINED)
    assert error["detail"].endswith("No such trait CUSTOM_NOPE, custom_zed  ")
    error = assert_error(set_traits(api, uuid, ["\u0000", "\U0001F600"], 1), 400)
    assert error["detail"].endswith("No such trait \u0000, \U0001F600  ")
    assert api.get(f"/resource_providers/{uuid}/traits", version="1.6").json == {
        "traits": ["CUSTOM_ZED"], "resource_provider_generation": 1}


BAD_BODIES = [
    ({"traits": ["CUSTOM_A"]}, "'resource_provider_generation' is a required property"),
    ({"resource_provider_generation": 0}, "'traits' is a required property"),
    ({"traits": "CUSTOM_ZED", "resource_provider_generation": 0},
     "'CUSTOM_ZED' is not of type 'array'"),
    ({"traits": [5], "resource_provider_generation": 0}, "5 is not of type 'string'"),
    ({"traits": [""], "resource_provider_generation": 0}, "'' should be non-empty"),
    ({"traits": ["CUSTOM_" + "A" * 249], "resource_provider_generation": 0}, "is too long"),
    ({"traits": [], "resource_provider_generation": "0"}, "'0' is not of type 'integer'"),
    ({"traits": [], "resource_provider_generation": True}, "True is not of type 'integer'"),
    ({"traits": [], "resource_provider_generation": 0.5}, "0.5 is not of type 'integer'"),
    ({"traits": [], "resource_provider_generation": None}, "None is not of type 'integer'"),
    ({"traits": [], "resource_provider_generation": 0, "x": 1},
     "Additional properties are not allowed ('x' was unexpected)"),
    ([], "[] is not of type 'object'"),
]


@pytest.mark.parametrize("body,detail", BAD_BODIES)
def test_provider_traits_bad_bodies_are_400_and_write_nothing(api, db, customs, body, detail):
    uuid = factories.provider(db)
    set_traits(api, uuid, ["CUSTOM_ZED"], 0)
    r = api.put(f"/resource_providers/{uuid}/traits", version="1.23", json=body)
    error = assert_error(r, 400, "JSON does not validate: ", UNDEFINED)
    assert detail in error["detail"]
    assert factories.generation(db, uuid) == 1 and links(db) == 1


def test_provider_traits_malformed_json_and_media_type(api, db):
    uuid = factories.provider(db)
    path = f"/resource_providers/{uuid}/traits"
    assert_error(api.put(path, version="1.6", body='{"traits":',
                         headers={"Content-Type": "application/json"}), 400,
                 "Malformed JSON: Expecting value: line 1 column 11 (char 10)")
    assert_error(api.put(path, version="1.6", body='{"traits": []}',
                         headers={"Content-Type": "text/plain"}), 415,
                 "The media type text/plain is not supported, use application/json")
    assert_not_acceptable(api.get(path, version="1.6", headers={"Accept": "text/plain"}))
    assert factories.generation(db, uuid) == 0 and links(db) == 0


def test_provider_traits_unknown_provider_is_404(api, db):
    missing = str(uuidlib.uuid4())
    path = f"/resource_providers/{missing}/traits"
    sentence = f"No resource provider with uuid {missing} found"
    error = assert_error(api.get(path, version="1.23"), 404, None, UNDEFINED)
    assert error["detail"].endswith(f"{sentence}: {sentence}  ")
    error = assert_error(set_traits(api, missing, ["HW_CPU_X86_AVX"], 0, "1.23"), 404)
    assert error["detail"].endswith(f"\n\n {sentence}  ")
    # the body is validated before the provider is looked up
    assert_error(api.put(path, version="1.23", json={"traits": 5}), 400,
                 "'resource_provider_generation' is a required property")
    assert_error(api.delete(path, version="1.23"), 404, sentence)
    assert links(db) == 0


def test_delete_provider_traits(api, db, customs):
    uuid = factories.provider(db)
    path = f"/resource_providers/{uuid}/traits"
    set_traits(api, uuid, ["CUSTOM_ZED", "CUSTOM_MID"], 0)
    r = api.delete(path, version="1.6")
    assert r.status_code == 204 and "Content-Type" not in r.headers
    assert api.get(path, version="1.6").json == {"traits": [], "resource_provider_generation": 2}
    # nothing to remove: no bump
    assert api.delete(path, version="1.6").status_code == 204
    assert factories.generation(db, uuid) == 2 and links(db) == 0


def test_provider_traits_headers_from_1_15(api, db, customs):
    uuid = factories.provider(db)
    path = f"/resource_providers/{uuid}/traits"
    r = set_traits(api, uuid, ["CUSTOM_ZED"], 0, "1.14")
    assert "Last-Modified" not in r.headers
    r = set_traits(api, uuid, ["CUSTOM_ZED"], 1, "1.15")
    assert r.headers["Cache-Control"] == "no-cache" and r.headers["Last-Modified"].endswith("GMT")
    r = api.get(path, version="1.15")
    assert r.headers["Cache-Control"] == "no-cache" and "Last-Modified" in r.headers
    r = api.delete(path, version="1.15")
    assert "Last-Modified" not in r.headers and "Cache-Control" not in r.headers


def test_provider_traits_at_latest(api, db):
    uuid = factories.provider(db)
    r = set_traits(api, uuid, ["HW_CPU_X86_AVX", "COMPUTE_NODE"], 0, "1.39")
    assert r.json == {"traits": ["COMPUTE_NODE", "HW_CPU_X86_AVX"],
                      "resource_provider_generation": 1}
    assert api.get("/traits?associated=true", version="1.39").json["traits"] == sorted(
        ["HW_CPU_X86_AVX", "COMPUTE_NODE"], key=trait_names(db).index)


def test_same_trait_created_by_two_transactions_at_once(db):
    """The second creator waits for the first, then finds the trait: no error."""
    second = SecondWriter(db, tables.traits, trait_db.ensure_custom, "CUSTOM_RACE")
    with db.transaction(write=True) as conn:
        trait, created = trait_db.ensure_custom(conn, "CUSTOM_RACE")
        second.start().wait_until_blocked()  # on our uncommitted row
    answer = second.join()
    assert created
    assert answer == (trait, False)
    assert custom_traits(db) == ["CUSTOM_RACE"]
    # the race happened: the second tried to create the trait too, and its insert
    # skipped it (SQLite serialises writers at BEGIN: it found the trait, no insert)
    inserted = [rows for _, rows in second.inserts()]
    assert inserted == ([] if db.backend == "sqlite" else [0])


def test_concurrent_provider_trait_writers_one_wins(api, db):
    uuid = factories.provider(db)
    choices = [["HW_CPU_X86_AVX"], ["HW_CPU_X86_SSE"], ["COMPUTE_NODE"], ["HW_NIC_SRIOV"]]
    statuses = []

    def worker(names):
        statuses.append(set_traits(api, uuid, names, 0, "1.23").status_code)

    threads = [threading.Thread(target=worker, args=(names,)) for names in choices]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(statuses) == [200, 409, 409, 409]
    assert factories.generation(db, uuid) == 1 and links(db) == 1
