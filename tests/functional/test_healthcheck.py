"""/healthcheck for load balancers: oslo.middleware's Healthcheck before auth,
with Placer's database check and oslo.middleware's disable_by_file."""

import json

import pytest

from placer import wsgi
from placer.db import engine as db_engine
from placer.http import app as http_app
from placer.http import health
from placer.route_table import ROUTES
from tests.helpers.api import Api, make_conf

# Unreachable servers (port 1 refuses at once), per backend.
UNREACHABLE = {"sqlite": "sqlite:////nonexistent-placer-dir/placement.sqlite",
               "postgresql": "postgresql+psycopg://postgres@127.0.0.1:1/placement",
               "mysql": "mysql+pymysql://root@127.0.0.1:1/placement"}


def _app(conf, db):
    """The pipeline over ``db``, as wsgi.create_app builds it, with ``db`` checked."""
    return Api(http_app.make(db, conf, ROUTES))


@pytest.fixture
def down_db(backend):
    database = db_engine.Database(db_engine.create_engine(UNREACHABLE[backend]))
    yield database
    database.dispose()


def test_healthy_without_a_token(api):
    r = api.get("/healthcheck", token=None)
    assert (r.status_code, r.content_type, r.text) == (200, "text/plain", "OK")
    assert api.request("HEAD", "/healthcheck", token=None).status_code == 204
    r = api.get("/healthcheck", token=None, headers={"Accept": "application/json"})
    assert json.loads(r.body) == {"detailed": False, "reasons": ["OK"]}


def test_only_the_health_path_skips_auth(api):
    assert api.get("/healthcheck/x", token=None).status_code == 401
    assert api.get("/resource_providers", token=None).status_code == 401


def test_healthy_with_keystone_without_a_token(db, tmp_path):
    conf = make_conf(tmp_path, api={"auth_strategy": "keystone"},
                     keystone_authtoken={"www_authenticate_uri": "http://keystone.test/v3"})
    api = Api(wsgi.create_app(conf, db))
    assert api.get("/healthcheck", token=None).status_code == 200
    assert api.get("/resource_providers", token=None).status_code == 401


def test_database_down_is_503(conf, db, down_db):
    api = _app(conf, down_db)
    r = api.get("/healthcheck", token=None)
    assert (r.status_code, r.text) == (503, "DATABASE UNAVAILABLE")
    assert api.request("HEAD", "/healthcheck", token=None).status_code == 503
    assert _app(conf, db).get("/healthcheck", token=None).status_code == 200


# oslo.middleware's detailed answer names the processor: platform runs `uname -p`
@pytest.mark.processes
def test_database_details_only_when_detailed(tmp_path, down_db):
    conf = make_conf(tmp_path, healthcheck={"detailed": "true"})
    r = _app(conf, down_db).get("/healthcheck", token=None,
                                headers={"Accept": "application/json"})
    assert r.status_code == 503
    [reason] = json.loads(r.body)["reasons"]
    assert reason["reason"] == "DATABASE UNAVAILABLE"
    assert reason["details"].startswith("OperationalError: ")


def test_check_without_the_apis_database_opens_its_own(tmp_path, backend):
    conf = make_conf(tmp_path, url=UNREACHABLE[backend])
    check = health.DatabaseCheck(conf, {})
    assert not check.healthcheck(8778).available
    check.database.dispose()
    conf = make_conf(tmp_path, url="sqlite://")
    check = health.DatabaseCheck(conf, {})
    assert check.healthcheck(8778).available
    check.database.dispose()


def test_disable_by_file(db, tmp_path):
    flag = tmp_path / "healthcheck_disable"
    conf = make_conf(tmp_path, healthcheck={"backends": "disable_by_file,placement_database",
                                            "disable_by_file_path": str(flag)})
    api = _app(conf, db)
    assert api.get("/healthcheck", token=None).text == "OK\nOK"
    flag.write_text("")
    r = api.get("/healthcheck", token=None)
    assert (r.status_code, r.text) == (503, "DISABLED BY FILE\nOK")
    flag.unlink()
    assert api.get("/healthcheck", token=None).status_code == 200


def test_probes_are_not_request_logged(api, caplog):
    caplog.set_level("DEBUG")
    api.get("/healthcheck", token=None)
    assert not [r for r in caplog.records if r.name == "placement.requestlog"]
