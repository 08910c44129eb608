"""Schemathesis against the served app: for each operation of the OpenAPI
document of a microversion, generated requests (parameters, queries and
bodies the document allows) never get a 5xx, and every answer has a status
and a body the document gives.

Each operation runs twice on a fresh copy of a small world (a provider with
a child, inventory, traits, an aggregate, a consumer's allocations): once with
its path naming things that exist (so answers are 200s, not only 404s), and
once with generated path values, and (for a query with examples in the
document, such as a candidate query) with that query. SQLite only; the
examples per operation are bounded and derandomized
(``PLACER_SCHEMATHESIS_EXAMPLES``, default 10; ``PLACER_SCHEMATHESIS_VERSIONS``,
a comma-separated list or ``all``).
"""

import os
import shutil

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from placer import microversions as mv
from placer import wsgi
from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from placer.http import openapi
from placer.route_table import ROUTES
from tests.helpers.api import Api, assert_error, make_conf

EXAMPLES = int(os.environ.get("PLACER_SCHEMATHESIS_EXAMPLES", "10"))
# Versions in distinct windows of most operations; "all" for every version.
VERSIONS = os.environ.get("PLACER_SCHEMATHESIS_VERSIONS", "1.0,1.12,1.20,1.28,1.34,1.39")
VERSIONS = ([mv.text(v) for v in mv.ALL] if VERSIONS == "all"
            else VERSIONS.split(","))
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
SERVICE = {"X-Roles": "admin,service"}  # POST /reshaper is for services
HEADERS = {"X-Auth-Token": "admin", **SERVICE}

RP = "5b3c2a4e-0f1d-4c6b-9a8e-7d6c5b4a3f21"
CHILD = "6c4d3b5f-1a2e-4d7c-8b9f-8e7d6c5b4a32"
AGG = "7d5e4c6a-2b3f-4e8d-9cae-9f8e7d6c5b43"
CONSUMER = "8e6f5d7b-3c4a-4f9e-8dbf-af9e8d7c6b54"
KNOWN = {"uuid": RP, "consumer_uuid": CONSUMER, "resource_class": "VCPU",
         "name": "CUSTOM_SCHEMATHESIS"}


def _world(api: Api) -> None:
    def ok(result, *statuses):
        assert result.status_code in statuses, result.text
        return result

    v = mv.text(mv.MAX)
    ok(api.put("/traits/CUSTOM_SCHEMATHESIS", version=v), 201)
    ok(api.put("/resource_classes/CUSTOM_SCHEMATHESIS", version=v), 201)
    ok(api.post("/resource_providers", version=v, json={"name": "st-root", "uuid": RP}), 200)
    ok(api.post("/resource_providers", version=v, json={
        "name": "st-child", "uuid": CHILD, "parent_provider_uuid": RP}), 200)
    ok(api.put(f"/resource_providers/{RP}/inventories", version=v, json={
        "resource_provider_generation": 0,
        "inventories": {"VCPU": {"total": 16, "max_unit": 8},
                        "MEMORY_MB": {"total": 4096, "step_size": 256},
                        "CUSTOM_SCHEMATHESIS": {"total": 4}}}), 200)
    ok(api.put(f"/resource_providers/{RP}/traits", version=v, json={
        "resource_provider_generation": 1,
        "traits": ["CUSTOM_SCHEMATHESIS", "HW_CPU_X86_AVX2"]}), 200)
    ok(api.put(f"/resource_providers/{RP}/aggregates", version=v, json={
        "resource_provider_generation": 2, "aggregates": [AGG]}), 200)
    ok(api.put(f"/allocations/{CONSUMER}", version=v, json={
        "allocations": {RP: {"resources": {"VCPU": 2, "MEMORY_MB": 512}}},
        "project_id": "st-project", "user_id": "st-user", "consumer_generation": None,
        "consumer_type": "INSTANCE"}), 204)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A migrated SQLite file holding the world; each operation gets a copy."""
    path = tmp_path_factory.mktemp("schemathesis") / "template.sqlite"
    engine = db_engine.create_engine(f"sqlite:///{path}")
    schema_migrations.upgrade(engine)
    db = db_engine.Database(engine)
    db.write(sync.sync_standard_names)
    _world(Api(wsgi.create_app(make_conf(path.parent, f"sqlite:///{path}"), db)))
    engine.dispose()
    return path


def _fresh_app(template, tmp_path, n: int):
    path = tmp_path / f"db-{n}.sqlite"
    shutil.copyfile(template, path)
    engine = db_engine.create_engine(f"sqlite:///{path}")
    return engine, wsgi.create_app(make_conf(tmp_path, f"sqlite:///{path}"),
                                   db_engine.Database(engine))


def _examples(document: dict, operation) -> dict:
    """The operation's query parameters that have an example, with it."""
    described = document["paths"][operation.path][operation.method.lower()]
    return {p["name"]: p["example"] for p in described["parameters"]
            if p.get("in") == "query" and "example" in p}


def _run(operation, app, path_parameters, query=None) -> None:
    strategy = operation.as_strategy(path_parameters=path_parameters, query=query)

    @given(case=strategy)
    @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    def check(case):
        case.call_and_validate(app=app, headers=HEADERS, checks=CHECKS)

    check()


@pytest.mark.parametrize("version", VERSIONS)
def test_answers_match_the_document(template, tmp_path, version):
    engine, app = _fresh_app(template, tmp_path, 0)
    schema = schemathesis.openapi.from_wsgi(f"/openapi.json?version={version}", app)
    engine.dispose()
    document = openapi.document(ROUTES, tuple(int(part) for part in version.split(".")))
    failures = []
    n = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        names = {p.name for p in operation.path_parameters}
        known = {k: v for k, v in KNOWN.items() if k in names}
        examples = _examples(document, operation)
        runs = [("known path", known, None)]
        if names:
            runs.append(("any path", None, None))
        if examples:  # e.g. a candidate query that finds something
            runs.append(("example query", known, examples))
        for kind, path_parameters, query in runs:
            n += 1
            engine, app = _fresh_app(template, tmp_path, n)
            try:
                _run(operation, app, path_parameters, query)
            except BaseException as exc:  # schemathesis reports an exception group
                if isinstance(exc, KeyboardInterrupt):
                    raise
                failures.append(f"{operation.label} ({kind}): {exc}")
            finally:
                engine.dispose()
    assert n, "the document of this version lists no operation"
    assert not failures, "\n\n".join(failures)


# -- what the run found ---------------------------------------------------------

ODD_KEY = "0123456789ABCDEFa-bcdef0123456789ABC"  # fits the key pattern, not a uuid


def test_post_allocations_with_a_consumer_key_that_is_not_a_uuid_is_a_400(api):
    body = {ODD_KEY: {"allocations": {}, "project_id": "p", "user_id": "u",
                      "consumer_generation": None, "consumer_type": "INSTANCE"}}
    assert_error(api.post("/allocations", version="1.39", json=body), 400,
                 f"Malformed consumer_uuid: {ODD_KEY}")


def test_reshaper_with_a_consumer_key_that_is_not_a_uuid_is_a_400(api):
    r = api.post("/resource_providers", version="1.39", json={"name": "rp", "uuid": RP})
    assert r.status_code == 200, r.text
    body = {"inventories": {RP: {"resource_provider_generation": 0, "inventories": {}}},
            "allocations": {ODD_KEY: {"allocations": {}, "project_id": "p", "user_id": "u",
                                      "consumer_generation": None,
                                      "consumer_type": "INSTANCE"}}}
    r = api.post("/reshaper", version="1.39", json=body, headers=SERVICE)
    assert_error(r, 400,
                 f"Malformed consumer_uuid: {ODD_KEY}")


def test_reshaper_checks_inventory_entries_whose_key_is_not_a_class_name(api):
    """As PUT .../inventories does: the schema's pattern only covers class names."""
    r = api.post("/resource_providers", version="1.39", json={"name": "rp", "uuid": RP})
    assert r.status_code == 200, r.text
    body = {"inventories": {RP: {"resource_provider_generation": 0,
                                 "inventories": {"vcpu": {"reserved": 1}}}},
            "allocations": {}}
    r = api.post("/reshaper", version="1.39", json=body, headers=SERVICE)
    assert_error(r, 400, "JSON does not validate: 'total' is a required property")
