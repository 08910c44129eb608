"""The operator's C driver for MySQL (``mysql+mysqldb://``, mysqlclient,
docs/operator/databases.md): the API answers over it as over PyMySQL, on
the same MariaDB database, the large reads (read as one JSON array there)
included.

mysqlclient has no wheel for Linux: it is built once into .venv (from
Debian's libmariadb-dev and pkg-config, which .ci/run installs)."""

import importlib
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa

from placer import wsgi
from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from tests.helpers.api import Api, make_conf
from tests.helpers.databases import ThrowAwayDatabase

pytestmark = pytest.mark.processes  # pip builds mysqlclient, once

TARGET = Path(sys.prefix) / "mysqlclient"  # built here once


def _mysqlclient() -> None:
    """MySQLdb importable, built into TARGET when it is not installed."""
    if str(TARGET) not in sys.path:
        sys.path.append(str(TARGET))
    try:
        import MySQLdb  # noqa: F401
        return
    except ImportError:
        pass
    built = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target",
                            str(TARGET), "mysqlclient>=2.2"], capture_output=True, text=True)
    if built.returncode != 0:
        message = f"mysqlclient could not be built: {built.stderr[-2000:]}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    sys.path_importer_cache.pop(str(TARGET), None)  # looked up before it existed
    importlib.invalidate_caches()
    import MySQLdb  # noqa: F401


@pytest.fixture
def apps(tmp_path):
    """(pymysql, mysqldb): Placer's app over the same throw-away MariaDB
    database with each driver."""
    _mysqlclient()
    throw_away = ThrowAwayDatabase("mysql", tmp_path)
    url = sa.make_url(throw_away.url)
    apps, engines = [], []
    for driver in ("mysql+pymysql", "mysql+mysqldb"):
        link = url.set(drivername=driver).render_as_string(hide_password=False)
        conf = make_conf(tmp_path, link)
        engine = db_engine.create_engine(link)
        engines.append(engine)
        db = db_engine.Database(engine)
        if not apps:  # the schema, once
            schema_migrations.upgrade(engine)
            db.write(sync.sync_standard_names)
        apps.append(Api(wsgi.create_app(conf, db)))
    assert engines[1].dialect.driver == "mysqldb"
    yield apps
    for engine in engines:
        engine.dispose()
    throw_away.drop()


def test_the_api_over_mysqldb(apps):
    pymysql, mysqldb = apps
    hosts = []
    for i in range(3):  # written through the C driver
        rp = str(uuid.uuid4())
        assert mysqldb.post("/resource_providers", version="1.39",
                            json={"name": f"host{i}", "uuid": rp}).status_code == 200
        r = mysqldb.put(f"/resource_providers/{rp}/inventories", version="1.39", json={
            "resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 8, "allocation_ratio": 1.1},
                            "MEMORY_MB": {"total": 4096}}})
        assert r.status_code == 200, r.text
        hosts.append(rp)
    consumer = str(uuid.uuid4())
    r = mysqldb.put(f"/allocations/{consumer}", version="1.39", json={
        "allocations": {hosts[0]: {"resources": {"VCPU": 3}}}, "project_id": "p",
        "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"})
    assert r.status_code == 204, r.text
    for path in ("/resource_providers", "/resource_providers?resources=VCPU:6",
                 "/allocation_candidates?resources=VCPU:6,MEMORY_MB:512",
                 "/allocation_candidates?resources=VCPU:1&limit=2",
                 f"/resource_providers/{hosts[0]}/inventories", "/usages?project_id=p",
                 f"/allocations/{consumer}"):
        mine, theirs = mysqldb.get(path, version="1.39"), pymysql.get(path, version="1.39")
        assert mine.status_code == theirs.status_code == 200, (path, mine.text)
        assert mine.json == theirs.json, path
        if path.startswith("/resource_providers?") or path == "/resource_providers":
            # the listed rows' newest change (elsewhere the time of the answer)
            assert mine.headers["last-modified"] == theirs.headers["last-modified"]
    listed = mysqldb.get("/resource_providers?resources=VCPU:6", version="1.39").json
    assert [p["uuid"] for p in listed["resource_providers"]] == hosts[1:]
    summaries = mysqldb.get("/allocation_candidates?resources=VCPU:6,MEMORY_MB:512",
                            version="1.39").json["provider_summaries"]
    assert summaries.keys() == set(hosts[1:])  # the first has 8 x 1.1 - 3 = 5.8 left
