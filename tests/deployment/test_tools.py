"""The deployment tools start Placer unchanged: their own uwsgi and Apache
configurations, installs and image steps, run here.

Each configuration below is the tool's template (see docs/deployment/ for the
repository and commit it was read from) with only ports and paths rewritten,
and with ``[api] auth_strategy = noauth2``: there is no Keystone here. The
configuration is found as the tools leave it, by oslo.config's default search
(``~/.placement/`` stands in for ``/etc/placement/``: HOME is the test's
directory) or, for Apache, ``OS_PLACEMENT_CONFIG_DIR`` in its environment.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import deploy
from tests.helpers.databases import ThrowAwayDatabase
from tests.helpers.deploy import Apache, Server, free_port, ini, request, run
from tests.helpers.faults import Outage

pytestmark = pytest.mark.processes

# kolla's image steps (placement-base and openstack-base Dockerfiles), from /
# rewritten to $PWD; Docker's ADD unpacks the archive.
KOLLA_IMAGE = """\
set -e
mkdir placement-base-source
tar -xzf "$SDIST" -C placement-base-source
ln -s placement-base-source/* placement
"$SYSTEM_PYTHON" -m venv --system-site-packages venv
ln -s "python$("$SYSTEM_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
    venv/lib/python3
export PATH="$PWD/venv/bin:$PATH"
python3 -m pip --no-cache-dir install -q --upgrade -c "$UC" uwsgi
python3 -m pip --no-cache-dir install -q --upgrade -c "$UC" "$PWD/placement"
mkdir -p etc/placement/
cp -r placement/etc/placement/* etc/placement/
"""


# session-scoped: the tests using it are ordered by backend across modules,
# and a module-scoped install was torn down and made again (about a minute
# each) whenever another module's test came between two of them
@pytest.fixture(scope="session")
def image():
    """A directory laid out as kolla's placement image: ``placement`` (the
    unpacked source), ``venv`` (Placer and uwsgi, from the sdist, under the
    upper-constraints) and ``etc/placement`` (the copy)."""
    deploy.require_debian_packages()
    root = deploy.shared_dir("kolla")
    try:
        sdist = deploy.build_sdist(root / "dist")
        run(["bash", "-c", KOLLA_IMAGE], cwd=root,
            env={**os.environ, "SDIST": str(sdist), "UC": str(deploy.UPPER_CONSTRAINTS),
                 "SYSTEM_PYTHON": deploy.SYSTEM_PYTHON})
        yield root
    finally:
        deploy.remove(root)


def _bin(image: Path, name: str) -> Path:
    return image / "venv" / "bin" / name


def _home(tmp: Path, conf: str, conf_d: dict[str, str] | None = None) -> dict:
    """``conf`` as ``~/.placement/placement.conf`` (and ``placement.conf.d/``):
    the environment of a process that finds it there."""
    etc = tmp / ".placement"
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "placement.conf").write_text(conf)
    for name, text in (conf_d or {}).items():
        (etc / "placement.conf.d").mkdir(exist_ok=True)
        (etc / "placement.conf.d" / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "OS_PLACEMENT_CONFIG_DIR"}
    env["HOME"] = str(tmp)
    return env


def _manage(image: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(_bin(image, "placement-manage")), *args], env=env,
                          capture_output=True, text=True, timeout=300)


def _serves(port: int, prefix: str = "", name: str = "rp") -> None:
    """GET / (unauthenticated) and an authenticated write and read answer 200."""
    status, body = request(port, "GET", f"{prefix}/", headers={})
    assert status == 200, body
    assert json.loads(body)["versions"][0]["status"] == "CURRENT"
    status, body = request(port, "POST", f"{prefix}/resource_providers", {"name": name})
    assert status == 200, body
    created = json.loads(body)["uuid"]
    # links carry the prefix the app is mounted at (SCRIPT_NAME)
    assert {link["href"] for link in json.loads(body)["links"]} >= {
        f"{prefix}/resource_providers/{created}"}
    for _ in range(6):  # whichever worker answers
        status, body = request(port, "GET", f"{prefix}/resource_providers")
        assert status == 200, body
        assert [p["uuid"] for p in json.loads(body)["resource_providers"]] == [created]


@pytest.fixture
def database(backend, tmp_path):
    db = ThrowAwayDatabase(backend, tmp_path)
    yield db
    db.drop()


# --- kolla and kolla-ansible ----------------------------------------------------------

def test_kolla_image_copies_and_generators(image):
    """The image build's copy of etc/placement, and both generators run on it
    as the docs say; the upper-constraints held (the install above)."""
    copied = sorted(p.name for p in (image / "etc" / "placement").iterdir())
    assert {"config-generator.conf", "policy-generator.conf"} <= set(copied)
    source = image / "placement"
    run([_bin(image, "oslo-config-generator"), "--config-file",
         source / "etc/placement/config-generator.conf"], cwd=source)
    sample = (source / "etc/placement/placement.conf.sample").read_text()
    for line in ("[placement_database]", "#connection = <None>", "[keystone_authtoken]",
                 "#max_retries = 10", "[oslo_middleware]",
                 "#enable_proxy_headers_parsing = false", "#log_config_append = <None>"):
        assert line in sample
    run([_bin(image, "oslopolicy-sample-generator"), "--config-file",
         source / "etc/placement/policy-generator.conf"], cwd=source)
    policy = (source / "etc/placement/policy.yaml.sample").read_text()
    assert '#"placement:resource_providers:list": "rule:admin_or_service_api"' in policy
    # the installed placement-api, executed, is the server command
    usage = run([_bin(image, "placement-api"), "--help"]).stdout
    assert "--bind" in usage and "--workers" in usage


# Placer's dependencies as installed in a venv: {name: version}
INSTALLED = """
import importlib.metadata as md, json, re
names = [re.split(r"[ ;<>=!~\\[]", r)[0] for r in md.requires("openstack-placement")
         if "extra ==" not in r]
print(json.dumps({n: md.version(n) for n in names}))
"""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_dependencies_follow_upper_constraints(image):
    """Installed with ``-c upper-constraints.txt`` (kolla's, DevStack's and
    openstack-ansible's way), every dependency the file pins is at its pin."""
    pins = {}
    for line in deploy.UPPER_CONSTRAINTS.read_text().splitlines():
        found = re.match(r"([A-Za-z0-9_.-]+)===([^;\s]+)", line)
        if found:
            pins[_canonical(found.group(1))] = found.group(2)
    installed = json.loads(run([_bin(image, "python"), "-c", INSTALLED]).stdout)
    pinned = {n: v for n, v in installed.items() if _canonical(n) in pins}
    assert len(pinned) >= 15, installed  # most of them are OpenStack's
    assert {n: pins[_canonical(n)] for n in pinned} == pinned


def _kolla_conf(log_dir: Path, url: str, extra: str = "") -> str:
    """kolla-ansible's placement.conf.j2, rendered."""
    return f"""\
[DEFAULT]
debug = False
log_file = {log_dir}/placement-api.log
state_path = {log_dir}/state
[api]
auth_strategy = noauth2
[oslo_middleware]
enable_proxy_headers_parsing = true
[oslo_concurrency]
lock_path = {log_dir}/state/tmp
[placement_database]
connection = {url}
connection_recycle_time = 10
max_overflow = 1000
max_pool_size = 1
max_retries = -1
[cache]
backend = oslo_cache.memcache_pool
enabled = true
memcache_servers = 127.0.0.1:11211
[keystone_authtoken]
service_type = placement
www_authenticate_uri = http://127.0.0.1:5000
auth_url = http://127.0.0.1:5000
auth_type = password
project_domain_id = default
user_domain_id = default
project_name = service
username = placement
password = secret
region_name = RegionOne
memcache_security_strategy = ENCRYPT
memcache_secret_key = secret
memcached_servers = 127.0.0.1:11211
{extra}"""


def test_kolla_ansible_config_validation(image, tmp_path):
    """kolla-ansible's check: the validator on its placement.conf complains
    only of the groups no placement generator lists ([cache] and
    [oslo_concurrency], as with the reference: exit 1, which it accepts)."""
    conf = tmp_path / "placement.conf"
    conf.write_text(_kolla_conf(tmp_path, "mysql+pymysql://placement:pw@127.0.0.1/placement"))
    argv = [str(_bin(image, "oslo-config-validator")), "--config-file",
            str(image / "placement/etc/placement/config-generator.conf"), "--input-file", str(conf)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
    assert errors and all(re.search(r"ERROR:[\w.]+:(cache|oslo_concurrency)/", e)
                          for e in errors), done.stderr
    sections = re.split(r"(?m)^(?=\[)", conf.read_text())
    conf.write_text("".join(s for s in sections
                            if not s.startswith(("[cache]", "[oslo_concurrency]"))))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_kolla_ansible_uwsgi(image, database, tmp_path):
    """kolla's bootstrap (db sync, online migrations), then its container
    command: ``uwsgi /etc/placement/placement-api-uwsgi.ini`` with the venv
    first on PATH, with kolla-ansible's uwsgi.ini.j2 (no uid: the test runs
    as root and the other tools' tests cover no more)."""
    logs = tmp_path / "log"
    logs.mkdir()
    env = _home(tmp_path, _kolla_conf(logs, database.url))
    env["PATH"] = f"{image / 'venv' / 'bin'}:{env['PATH']}"
    for step in (["db", "sync"], ["db", "online_data_migrations"]):
        done = _manage(image, env, *step)
        assert done.returncode == 0, done.stderr
    port = free_port()
    conf = tmp_path / "placement-api-uwsgi.ini"
    conf.write_text(ini("uwsgi", [
        ("add-header", "Connection: close"), ("buffer-size", 65535), ("die-on-term", "true"),
        ("enable-threads", "true"), ("exit-on-reload", "false"),
        ("hook-master-start", "unix_signal:15 gracefully_kill_them_all"),
        ("http", f"127.0.0.1:{port}"), ("http-auto-chunked", "true"),
        ("http-chunked-input", "true"), ("http-raw-body", "true"), ("lazy-apps", "true"),
        ("logto2", logs / "placement-api-uwsgi.log"), ("master", "true"),
        ("module", "placement.wsgi.api:application"),
        ("plugins-dir", "/usr/lib/uwsgi/plugins"), ("plugins", "python3"), ("processes", 2),
        ("socket-timeout", 30), ("thunder-lock", "true"), ("worker-reload-mercy", 80),
        ("static-map", f"/static={image}/venv/lib/python3/site-packages/static")]))
    server = Server(["uwsgi", conf], tmp_path / "uwsgi.out", env)
    try:
        assert server.wait_serving(port, log=logs / "placement-api-uwsgi.log") == 200
        _serves(port)
        assert "unable to load app" not in (logs / "placement-api-uwsgi.log").read_text()
    finally:
        server.stop()
    # oslo.log's lines in log_file, as kolla's fluentd parses them
    lines = (logs / "placement-api.log").read_text().splitlines()
    assert any(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \d+ INFO placement.requestlog "
                        r"\[.*\] .*\"GET /resource_providers\" status: 200", line)
               for line in lines), lines[-20:]


# --- openstack-ansible ----------------------------------------------------------------

def _osa_ini(image: Path, port: int, pidfile: Path, app: tuple[str, object]) -> str:
    """ansible-role-uwsgi's uwsgi.ini.j2 for placement, Debian's uwsgi
    (``plugin = python3``) loading the placement venv (no uid/gid: see above)."""
    return ini("uwsgi", [
        ("virtualenv", image / "venv"), ("plugin", "python3"),
        app, ("http-socket", f"127.0.0.1:{port}"),
        ("master", "true"), ("enable-threads", "true"), ("processes", 2), ("threads", 1),
        ("exit-on-reload", "true"), ("die-on-term", "true"), ("lazy-apps", "true"),
        ("add-header", "Connection: close"), ("buffer-size", 65535), ("thunder-lock", "true"),
        ("disable-logging", "true"), ("http-auto-chunked", "true"), ("http-raw-body", "true"),
        ("socket-timeout", 10), ("need-app", "true"),
        ("env", "REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt"),
        ("safe-pidfile", pidfile), ("log-x-forwarded-for", "true"),
        ("route-user-agent", "^osa-haproxy-healthcheck$ donotlog:"),
        ("ignore-sigpipe", "true"), ("ignore-write-errors", "true"),
        ("disable-write-exception", "true")])


def _osa_conf(url: str) -> str:
    """os_placement's placement.conf.j2 (use_journal aside: no journal here)."""
    return f"""\
[api]
auth_strategy = noauth2
[keystone_authtoken]
auth_type = password
auth_url = http://127.0.0.1:5000
www_authenticate_uri = http://127.0.0.1:5000
project_domain_id = default
user_domain_id = default
project_name = service
username = placement
password = secret
memcache_security_strategy = ENCRYPT
memcache_secret_key = secret
service_token_roles_required = True
service_token_roles = service
service_type = placement
[placement_database]
connection = {url}
max_overflow = 50
max_pool_size = 5
pool_timeout = 30
connection_recycle_time = 600
"""


MODULE = ("wsgi", "placement.wsgi.api:application")


def _start_osa(image: Path, tmp: Path, conf: str,
               app: tuple[str, object] = MODULE) -> tuple[Server, int]:
    port = free_port()
    ini_file = tmp / "placement-api.ini"
    ini_file.write_text(_osa_ini(image, port, tmp / "placement-api.pid", app))
    server = Server([deploy.DEBIAN_UWSGI, "--autoload", "--ini", ini_file],
                    tmp / "uwsgi.log", _home(tmp, conf))
    return server, port


@pytest.mark.parametrize("entry", ["module", "wsgi-file"])
def test_openstack_ansible_uwsgi(image, database, tmp_path, entry):
    """The role's ini as it is, and as releases before 2025 wrote it:
    ``wsgi-file`` naming the venv's ``placement-api`` script."""
    env = _home(tmp_path, _osa_conf(database.url))
    done = _manage(image, env, "db", "sync")
    assert done.returncode == 0, done.stderr
    done = _manage(image, env, "db", "online_data_migrations")
    assert done.returncode in (0, 2), done.stderr  # what os_placement accepts
    app = MODULE if entry == "module" else ("wsgi-file", _bin(image, "placement-api"))
    server, port = _start_osa(image, tmp_path, _osa_conf(database.url), app)
    try:
        assert server.wait_serving(port) == 200
        _serves(port)
    finally:
        server.stop()


@pytest.mark.parametrize("broken,reason", [
    ("[placement_database\nconnection = sqlite://\n", "ConfigFileParseError"),
    ("[placement_database]\nconnection = sqlite://\nmax_retries = many\n",
     "Value for option max_retries"),
    ("[placement_database]\nconnection = not a url\n", "Could not parse SQLAlchemy URL"),
    ("[placement_database]\nconnection = postgresql+pg8000://u@127.0.0.1/db\n",
     "No module named 'pg8000'"),
    ("[api]\nauth_strategy = noauth2\n", "value required for option connection"),
])
def test_openstack_ansible_need_app_exits_on_broken_config(image, tmp_path, broken, reason):
    """With ``need-app = true`` uwsgi exits when the app cannot be built, and
    its log says why (systemd would restart it, as it did the reference).

    Its exit status is uwsgi's own race, not the app's: with the role's
    ``lazy-apps`` and two workers, a worker that finds no app usually makes
    the master exit 22, but the master sometimes shuts down first on the
    SIGINT that follows ("SIGINT/SIGTERM received...killing workers") and
    exits 0 (seen about once in fifteen runs)."""
    server, _ = _start_osa(image, tmp_path, broken)
    try:
        code = server.wait_exit()
    finally:
        server.stop()
    log = server.text()
    assert reason in log, log[-3000:]
    assert "no app loaded. GAME OVER" in log, log[-3000:]
    assert code != 0 or "SIGINT/SIGTERM received...killing workers" in log, log[-3000:]


def test_openstack_ansible_database_down_at_start(image, backend, tmp_path):
    """The database is away when uwsgi starts: the app is built anyway (no
    retry loop at import), requests that need the database get 503 while
    GET / answers 200, and the first request after it is back is served."""
    outage = Outage(backend, tmp_path)
    try:
        conf = _osa_conf(outage.url) + "sync_on_startup = True\nmax_retries = -1\n"
        outage.cut()
        server, port = _start_osa(image, tmp_path, conf)
        try:
            assert server.wait_serving(port) == 200
            status, body = request(port, "GET", "/resource_providers")
            assert status == 503, body
            assert "The database is unavailable" in body.decode()
            assert server.proc.poll() is None
            outage.restore()
            _serves(port)
        finally:
            server.stop()
    finally:
        outage.close()


# --- openstack-helm -------------------------------------------------------------------

HELM_LOGGING = deploy.DATA / "openstack-helm-logging.conf"  # the chart's, verbatim


def test_openstack_helm_uwsgi(image, database, tmp_path):
    """The chart's container command ``uwsgi --ini`` (uwsgi and the app from
    the image's venv), its placement.conf with the database in
    ``placement.conf.d/`` (the chart puts keystone's credentials there), and
    its logging.conf: every Placer line reaches the ``placement`` logger's
    stdout, none is lost to the root's null handler."""
    logging_conf = tmp_path / "logging.conf"
    logging_conf.write_text(HELM_LOGGING.read_text())
    conf = (f"[DEFAULT]\ndebug = false\nlog_config_append = {logging_conf}\n"
            "use_syslog = false\n[api]\nauth_strategy = noauth2\n"
            "[keystone_authtoken]\nauth_type = password\nauth_version = v3\n"
            "service_type = placement\n")
    env = _home(tmp_path, conf, {"placement_db.conf":
                                 f"[placement_database]\nconnection = {database.url}\n"})
    env["PATH"] = f"{image / 'venv' / 'bin'}:{env['PATH']}"
    done = _manage(image, env, "db", "sync")
    assert done.returncode == 0, done.stderr
    port, stats = free_port(), free_port()
    ini_file = tmp_path / "placement-api-uwsgi.ini"
    ini_file.write_text(ini("uwsgi", [
        ("add-header", "Connection: close"), ("buffer-size", 65535), ("die-on-term", "true"),
        ("enable-threads", "true"), ("exit-on-reload", "false"),
        ("hook-master-start", "unix_signal:15 gracefully_kill_them_all"),
        ("http-socket", f"127.0.0.1:{port}"), ("lazy-apps", "true"),
        ("log-x-forwarded-for", "true"), ("master", "true"),
        ("module", "placement.wsgi.api:application"), ("processes", 1),
        ("procname-prefix-spaced", "placement-api:"),
        ("route-user-agent", "^kube-probe.* donotlog:"), ("stats", f"127.0.0.1:{stats}"),
        ("stats-http", "true"), ("thunder-lock", "true"), ("worker-reload-mercy", 80)]))
    server = Server(["uwsgi", "--ini", ini_file], tmp_path / "uwsgi.log", env)
    try:
        assert server.wait_serving(port) == 200
        _serves(port)
        assert server.wait_serving(stats) == 200  # the chart's liveness probe
    finally:
        server.stop()
    log = server.text()
    assert re.search(r"INFO placement\.requestlog \[.*\"GET /resource_providers\" status: 200",
                     log), log[-3000:]


# --- DevStack -------------------------------------------------------------------------

@pytest.fixture(scope="session")  # as image
def devstack():
    """DevStack's install: the source tree (a copy of this one) installed
    editable (``setup_develop``) with the upper-constraints into a global venv
    made with --system-site-packages, after its awk has read the project's
    name from setup.cfg."""
    deploy.require_debian_packages()
    root = deploy.shared_dir("devstack")
    try:
        files = run(["git", "ls-files", "-co", "--exclude-standard"], cwd=deploy.ROOT)
        source = root / "placement"
        for name in files.stdout.splitlines():
            if (deploy.ROOT / name).is_file():
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(deploy.ROOT / name, source / name)
        name = run(["awk", "/^name.*=/ {print $3}", source / "setup.cfg"]).stdout.split()
        assert name == ["openstack-placement"]
        venv = deploy.make_venv(root / "venv", system_site_packages=True)
        deploy.pip_install(venv, "-e", source)
        yield root
    finally:
        deploy.remove(root)


def test_devstack_uwsgi_behind_apache(devstack, database, tmp_path):
    """``placement-manage db sync``, then lib/placement's uwsgi command and
    lib/apache's ini (a unix socket), behind Apache's ProxyPass of
    ``/placement``: the app sees SCRIPT_NAME=/placement."""
    env = _home(tmp_path, f"[DEFAULT]\ndebug = True\n[api]\nauth_strategy = noauth2\n"
                          f"[placement_database]\nconnection = {database.url}\n")
    done = subprocess.run([str(devstack / "venv/bin/placement-manage"), "db", "sync"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    run_dir = deploy.shared_dir("uwsgi")
    socket_path = run_dir / "placement-api.socket"
    ini_file = tmp_path / "placement-uwsgi.ini"
    ini_file.write_text(ini("uwsgi", [
        ("module", "placement.wsgi.api:application"), ("processes", 2), ("master", "true"),
        ("die-on-term", "true"), ("exit-on-reload", "false"), ("worker-reload-mercy", 80),
        ("enable-threads", "true"), ("plugins", "http,python3"), ("thunder-lock", "true"),
        ("hook-master-start", "unix_signal:15 gracefully_kill_them_all"),
        ("buffer-size", 65535), ("add-header", "Connection: close"), ("lazy-apps", "true"),
        ("start-time", "%t"), ("socket", socket_path), ("chmod-socket", 666)]))
    uwsgi = Server([deploy.DEBIAN_UWSGI, "--procname-prefix", "placement", "--ini", ini_file,
                    "--venv", devstack / "venv"], tmp_path / "uwsgi.log", env)
    port = free_port()
    apache_root = deploy.shared_dir("apache")
    try:
        apache = Apache(apache_root, port, f'ProxyPass "/placement" "unix:{socket_path}|'
                                           'uwsgi://uwsgi-uds-placement-api" retry=0 acquire=1\n')
        try:
            assert apache.wait_serving(port, "/placement", log=uwsgi.log) in (200, 503)
            status = 503
            for _ in range(100):  # DevStack's wait_for_service: until not 503
                status, _body = request(port, "GET", "/placement", headers={})
                if status != 503:
                    break
            assert status == 200
            _serves(port, "/placement")
            assert "unable to load app" not in uwsgi.text()  # (a stop can cut a load short)
        finally:
            apache.stop()
    finally:
        uwsgi.stop()
        deploy.remove(apache_root)
        deploy.remove(run_dir)


# --- Apache mod_wsgi ------------------------------------------------------------------

@pytest.mark.parametrize("script", ["placement-api", "copy of placement/wsgi/api.py"])
def test_apache_mod_wsgi(image, backend, script):
    """Apache httpd with Debian's mod_wsgi: ``WSGIScriptAlias /`` to the
    installed ``placement-api`` (charms, Sunbeam, RDO) or to a copy of
    ``placement/wsgi/api.py`` in a cgi-bin (puppet), daemon processes as
    www-data with ``python-home`` the venv."""
    root = deploy.shared_dir("apache")
    try:
        data = root / "data"
        data.mkdir()
        shutil.chown(data, deploy.APACHE_USER, deploy.APACHE_USER)  # SQLite's file
        db = ThrowAwayDatabase(backend, data)
        try:
            etc = root / "etc"
            etc.mkdir()
            (etc / "placement.conf").write_text(
                f"[api]\nauth_strategy = noauth2\n[placement_database]\n"
                f"connection = {db.url}\nsync_on_startup = True\n")
            target = image / "venv" / "bin" / "placement-api"
            if script.startswith("copy"):
                (root / "cgi-bin" / "placement").mkdir(parents=True)
                target = root / "cgi-bin" / "placement" / "placement-api"
                (site,) = (image / "venv" / "lib").glob("python3.*/site-packages")
                shutil.copy(site / "placement" / "wsgi" / "api.py", target)
            port = free_port()
            apache = Apache(root, port, f"""\
WSGIDaemonProcess placement-api processes=2 threads=1 user={deploy.APACHE_USER} \
group={deploy.APACHE_USER} python-home={image / 'venv'} display-name=%{{GROUP}}
WSGIProcessGroup placement-api
WSGIApplicationGroup %{{GLOBAL}}
WSGIPassAuthorization On
WSGIScriptAlias / {target}
<Directory {target.parent}>
    Require all granted
</Directory>
""", env={"OS_PLACEMENT_CONFIG_DIR": str(etc)})
            try:
                status = apache.wait_serving(port)
                assert status == 200, apache.error_log()[-3000:]
                _serves(port, name=script)
            finally:
                apache.stop()
            assert "Traceback" not in apache.error_log(), apache.error_log()[-3000:]
        finally:
            db.drop()
    finally:
        deploy.remove(root)
