"""``[profiler]``: a request whose trace headers are signed with one of
``hmac_keys`` is traced through osprofiler, as ``openstack --os-profile KEY``
asks for it; its SQL statements too with ``trace_sqlalchemy``. The trace
points go to osprofiler's notifier, which these tests replace with a list."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from osprofiler import notifier, web
from osprofiler import profiler as osprofiler

from placer import wsgi
from tests.helpers.api import Api, make_conf

KEY = "SECRET_KEY"
PATH = "/resource_providers"


@pytest.fixture
def trace_points(monkeypatch):
    """osprofiler's notifier, replaced by a list of what it is sent; its
    process-wide state (notifier, web switch and keys) restored after."""
    points: list[dict] = []
    monkeypatch.setattr(web, "_ENABLED", web._ENABLED)
    monkeypatch.setattr(web, "_HMAC_KEYS", web._HMAC_KEYS)
    saved = notifier.get()
    notifier.set(points.append)
    yield points
    notifier.set(saved)
    osprofiler.clean()


def _api(tmp_path, points: list[dict], **profiler) -> Api:
    conf = make_conf(tmp_path, f"sqlite:///{tmp_path}/placement.db",
                     placement_database={"sync_on_startup": "True"},
                     profiler={"hmac_keys": KEY, "connection_string": "", **profiler})
    app = wsgi.create_app(conf, wsgi.open_database(conf))
    # init_from_conf gave osprofiler the notifier of connection_string
    # (none for ""): ours is set again, before any request
    notifier.set(points.append)
    return Api(app)


def _client_headers(key: str = KEY) -> tuple[dict, str, str]:
    """The headers a client sends with --os-profile ``key`` (osc and
    keystoneauth call these same functions), its trace's base id and its own
    trace point id (the parent of the service's)."""
    client = osprofiler.init(key)
    try:
        return web.get_trace_id_headers(), client.get_base_id(), client.get_id()
    finally:
        osprofiler.clean()  # the client's profiler, as if in another process


def _get(api: Api, headers: dict):
    r = api.get(f"{PATH}?name=traced", version="1.39", headers=headers)
    assert r.status_code == 200, r.text
    assert r.json == {"resource_providers": []}
    return r


def test_a_signed_request_is_traced_with_its_statements(tmp_path, trace_points):
    api = _api(tmp_path, trace_points, enabled="True", trace_sqlalchemy="True")
    headers, base_id, parent_id = _client_headers()
    assert set(headers) == {"X-Trace-Info", "X-Trace-HMAC"}
    _get(api, headers)

    names = [p["name"] for p in trace_points]
    assert names[0] == "wsgi-start" and names[-1] == "wsgi-stop", names
    assert {p["base_id"] for p in trace_points} == {base_id}
    start, stop = trace_points[0], trace_points[-1]
    assert start["parent_id"] == parent_id
    assert stop["trace_id"] == start["trace_id"]
    assert start["info"]["request"] == {"path": PATH, "query": "name=traced",
                                        "method": "GET", "scheme": "http"}

    db_starts = [p for p in trace_points if p["name"] == "db-start"]
    assert db_starts and names.count("db-stop") == len(db_starts), names
    assert {p["parent_id"] for p in db_starts} == {start["trace_id"]}  # inside the request
    statements = [p["info"]["db"]["statement"] for p in db_starts]
    assert any("FROM resource_providers" in s for s in statements), statements


def test_statements_are_not_traced_without_trace_sqlalchemy(tmp_path, trace_points):
    api = _api(tmp_path, trace_points, enabled="True")
    _get(api, _client_headers()[0])
    assert [p["name"] for p in trace_points] == ["wsgi-start", "wsgi-stop"]
    assert trace_points[0]["info"]["request"]["path"] == PATH


@pytest.mark.parametrize("headers", [
    {},  # no --os-profile
    _client_headers("another-key")[0],  # signed with a key the service does not hold
], ids=["no-header", "other-key"])
def test_a_request_without_a_valid_signature_is_not_traced(tmp_path, trace_points, headers):
    api = _api(tmp_path, trace_points, enabled="True", trace_sqlalchemy="True")
    _get(api, headers)
    assert trace_points == []
    _get(api, _client_headers()[0])  # the same app traces a signed one
    assert trace_points


@pytest.mark.parametrize("enabled", [None, "False"], ids=["unset", "false"])
def test_nothing_is_traced_when_profiler_is_disabled(tmp_path, trace_points, enabled):
    options = {"trace_sqlalchemy": "True"} | ({"enabled": enabled} if enabled else {})
    api = _api(tmp_path, trace_points, **options)
    _get(api, _client_headers()[0])
    assert trace_points == []


def test_a_bad_profiler_value_fails_the_app(tmp_path):
    conf = make_conf(tmp_path, profiler={"enabled": "sometimes"})
    with pytest.raises(ValueError, match="sometimes"):
        wsgi.create_app(conf)


# Built as a WSGI server does, with [profiler] disabled: the parts of osprofiler
# that only tracing needs are never imported (keystoneauth1 imports
# osprofiler.web itself, so that one is not checked).
IMPORTS = """
import sys
from placer import wsgi
from tests.helpers.api import make_conf
import pathlib
app = wsgi.create_app(make_conf(pathlib.Path(sys.argv[1]), **json.loads(sys.argv[2])))
print(json.dumps(sorted(m for m in ("osprofiler.initializer", "osprofiler.sqlalchemy")
                        if m in sys.modules)))
"""


@pytest.mark.processes
@pytest.mark.parametrize("sections,imported", [
    ({}, []),
    ({"profiler": {"enabled": "False", "trace_sqlalchemy": "True"}}, []),
    ({"profiler": {"enabled": "True", "trace_sqlalchemy": "True", "connection_string": ""}},
     ["osprofiler.initializer", "osprofiler.sqlalchemy"]),
], ids=["no-group", "disabled", "enabled"])
def test_tracing_modules_are_imported_only_when_enabled(tmp_path, sections, imported):
    done = subprocess.run([sys.executable, "-c", "import json\n" + textwrap.dedent(IMPORTS),
                           str(tmp_path), json.dumps(sections)],
                          capture_output=True, text=True, timeout=120, check=False,
                          cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == imported
