"""docs/install.md's "Installing for real", run from the page's own text.

The SQL, placement.conf and the Apache site are read from the page's code
blocks named ``install-...``; the commands from its ``sh`` blocks; the
systemd unit from etc/systemd/ (the page includes that file). What changes
here is only what must: a throw-away database and user in place of
``placement`` with a random password, the test servers' addresses in place
of ``controller``, this environment's ``bin/`` in place of /opt/placer/bin,
temporary files in place of /etc, and free ports. What the page does not run
here (Keystone, systemctl, useradd) it says so itself.

MariaDB and PostgreSQL are the servers of tests/helpers/databases.py: one
that cannot be reached skips, except with CI=true, where it fails. So does a
missing Apache or openssl for the proxy's test.
"""

import configparser
import http.client
import json
import os
import re
import secrets
import shlex
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.helpers import deploy
from tests.helpers.databases import BACKENDS, IN_CI, SERVERS

pytestmark = pytest.mark.processes

ROOT = Path(__file__).parents[2]
PAGE = ROOT / "docs" / "install.md"
UNIT = ROOT / "etc" / "systemd" / "placement-api.service"
BIN = Path(sys.prefix) / "bin"  # this environment's placement-api, -manage, -status

# what the page names, and the test replaces
PAGE_BIN = "/opt/placer/bin/"
PAGE_CONF = "/etc/placement/placement.conf"
PAGE_BIND = "127.0.0.1:8778"
PAGE_PROXY_ADDRESS = "192.0.2.10:8778"
PAGE_CERT = "/etc/ssl/certs/controller.pem"
PAGE_KEY = "/etc/ssl/private/controller.key"
SCHEMES = {"mysql": "mysql+pymysql://", "postgresql": "postgresql+psycopg://"}

# the modules the page's `a2enmod ssl proxy_http headers` leaves enabled, and
# what a private Apache needs besides
APACHE_MODULES = ("mpm_event", "authz_core", "ssl", "headers", "proxy", "proxy_http")


def _missing(message: str):
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


# ---- the page's text ------------------------------------------------------

def page_block(name: str) -> str:
    """The body of the page's code block carrying ``:name: name``."""
    lines = PAGE.read_text().splitlines()
    assert f":name: {name}" in lines, f"no code block named {name} in {PAGE}"
    at = lines.index(f":name: {name}")
    assert lines[at - 1].startswith("```{code-block}"), lines[at - 1]
    body = []
    for line in lines[at + 1:]:
        if line.startswith("```"):
            break
        if body or not (line.startswith(":") or not line.strip()):  # options, blank line
            body.append(line)
    return "\n".join(body) + "\n"


def page_sh_lines() -> list[str]:
    """Every line of the page's ``sh`` blocks."""
    return [line for block in re.findall(r"^```sh\n(.*?)^```", PAGE.read_text(), re.M | re.S)
            for line in block.splitlines() if line.strip()]


def page_command(program: str, conf: Path) -> list[str]:
    """The page's command line running ``program`` from Placer's virtualenv, as
    run here: without ``sudo -u placement``, from ``BIN``, with ``conf``."""
    for line in page_sh_lines():
        argv = shlex.split(line)
        if argv[:3] == ["sudo", "-u", "placement"]:
            argv = argv[3:]
        if argv and argv[0] == PAGE_BIN + program:
            assert PAGE_CONF in argv, line
            return [str(BIN / program)] + [str(conf) if a == PAGE_CONF else a for a in argv[1:]]
    pytest.fail(f"no {PAGE_BIN}{program} command on {PAGE}")


def statements(sql: str) -> list[str]:
    found = [s.strip() for s in sql.split(";") if s.strip()]
    assert found, sql
    return found


def page_sql(backend: str, name: str, password: str) -> list[str]:
    """Step 2's SQL for ``backend``, creating ``name`` (database and user)."""
    sql = page_block(f"install-sql-{backend}")
    assert "PLACEMENT_DBPASS" in sql and re.search(r"\bplacement\b", sql), sql
    return statements(re.sub(r"\bplacement\b", name, sql.replace("PLACEMENT_DBPASS", password)))


def page_conf(connection_for) -> str:
    """Step 3's placement.conf: its connection lines (one for each backend, the
    second commented out) replaced by ``connection_for(url)`` of the one it
    returns a URL for."""
    lines, chosen = [], []
    for line in page_block("install-placement-conf").splitlines():
        found = re.fullmatch(r"#? ?connection = (\S+)", line)
        if found is None:
            lines.append(line)
            continue
        url = connection_for(found.group(1))
        if url:
            chosen.append(url)
            lines.append(f"connection = {url}")
    assert len(chosen) == 1, chosen
    return "\n".join(lines) + "\n"


def server_url(backend: str, page_url: str, name: str, password: str) -> str | None:
    """The page's connection URL for ``backend``, pointed at the test's
    server, database and user; None for the other backend's."""
    if not page_url.startswith(SCHEMES[backend]):
        return None
    server = sa.make_url(SERVERS[backend])
    assert "@controller/" in page_url and "PLACEMENT_DBPASS" in page_url, page_url
    url = page_url.replace("PLACEMENT_DBPASS", password).replace(
        "@controller/", f"@{server.host}:{server.port}/")
    return re.sub(r"\bplacement\b", name, url)


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read_string(UNIT.read_text())
    return parser


def exec_start(conf: Path, port: int) -> list[str]:
    """The unit's ExecStart, with this environment's placement-api, ``conf``
    and ``port``."""
    line = unit()["Service"]["ExecStart"]
    argv = shlex.split(line)
    assert argv[0] == PAGE_BIN + "placement-api", line  # no systemd prefix (-, @, +...)
    assert PAGE_CONF in argv and PAGE_BIND in argv, line
    replaced = {argv[0]: str(BIN / "placement-api"), PAGE_CONF: str(conf),
                PAGE_BIND: f"127.0.0.1:{port}"}
    return [replaced.get(a, a) for a in argv]


def environment(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OS_PLACEMENT_CONFIG_DIR"}
    env["HOME"] = str(tmp_path)  # no ~/.placement/ from elsewhere
    return env


# ---- the unit file -------------------------------------------------------

def test_unit_file_is_valid_and_placement_api_accepts_its_options(tmp_path):
    assert "```{literalinclude} ../etc/systemd/placement-api.service" in PAGE.read_text()
    parsed = unit()
    assert set(parsed.sections()) == {"Unit", "Service", "Install"}
    assert parsed["Service"]["User"] == "placement"  # step 1's user
    argv = shlex.split(parsed["Service"]["ExecStart"])
    helped = subprocess.run([BIN / "placement-api", "--help"], capture_output=True, text=True,
                            check=True).stdout
    accepted = set(re.findall(r"(--[a-z][a-z-]*)", helped))
    used = [a for a in argv[1:] if a.startswith("--")]
    assert used and set(used) <= accepted, (used, accepted)
    workers = argv[argv.index("--workers") + 1]
    assert workers.isdigit() and int(workers) >= 1
    analyze = shutil.which("systemd-analyze")
    if analyze is None:  # configparser's reading and --help above are then the check
        return
    copy = tmp_path / UNIT.name  # verify needs the executable to exist
    copy.write_text(UNIT.read_text().replace(PAGE_BIN + "placement-api",
                                             str(BIN / "placement-api")))
    done = subprocess.run([analyze, "verify", copy], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


# ---- the database, the schema, the service --------------------------------

def _drop(backend: str, admin: sa.Engine, name: str) -> None:
    with admin.connect() as conn:
        run = conn.execution_options(no_parameters=True).exec_driver_sql
        if backend == "mysql":
            run(f"DROP DATABASE IF EXISTS {name}")
            for host in ("localhost", "%"):
                run(f"DROP USER IF EXISTS '{name}'@'{host}'")
        else:
            run(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            run(f"DROP ROLE IF EXISTS {name}")


@pytest.mark.parametrize("backend", ["mysql", "postgresql"])
def test_install_steps(backend, tmp_path):
    if backend not in BACKENDS:
        pytest.skip(f"{backend} is not in PLACER_TEST_BACKENDS")
    name, password = f"placer_install_{secrets.token_hex(4)}", secrets.token_hex(12)
    sql = page_sql(backend, name, password)
    admin = sa.create_engine(SERVERS[backend], isolation_level="AUTOCOMMIT")
    try:
        try:
            admin.connect().close()
        except sa.exc.OperationalError as exc:
            _missing(f"{backend} server unreachable: {exc}")
        try:
            with admin.connect() as conn:  # step 2, as the server's administrator
                for statement in sql:
                    # PyMySQL would read the '%' of 'user'@'%' as a parameter
                    conn.execution_options(no_parameters=True).exec_driver_sql(statement)
            _check_install(backend, tmp_path, name, password)
        finally:
            _drop(backend, admin, name)
    finally:
        admin.dispose()


def _check_install(backend: str, tmp_path: Path, name: str, password: str) -> None:
    conf = tmp_path / "placement.conf"
    conf.write_text(page_conf(lambda url: server_url(backend, url, name, password)))
    url = re.search(r"^connection = (\S+)$", conf.read_text(), re.M).group(1)
    assert sa.make_url(url).username == name and sa.make_url(url).database == name

    if backend == "mysql":  # the password is the one given (PostgreSQL trusts here)
        wrong = sa.create_engine(sa.make_url(url).set(password="not-" + password))
        with pytest.raises(sa.exc.OperationalError, match="1045"):
            wrong.connect().close()
        wrong.dispose()

    env = environment(tmp_path)
    deploy.run(page_command("placement-manage", conf), env=env)  # step 4
    user = sa.create_engine(url)  # the new user owns what db sync made
    try:
        tables = set(sa.inspect(user).get_table_names())
    finally:
        user.dispose()
    assert {"resource_providers", "allocations", "alembic_version",
            "placer_alembic_version"} <= tables, tables

    status = deploy.run(page_command("placement-status", conf), env=env)  # step 8
    results = re.findall(r"Result: (\w+)", status.stdout)
    assert results and set(results) == {"Success"}, status.stdout

    port = deploy.free_port()
    server = deploy.Server(exec_start(conf, port), tmp_path / "placement-api.log",
                           env=env)  # step 6
    try:
        assert server.wait_serving(port) == 200, server.text()
        status_code, body = deploy.request(port, "GET", "/", headers={})
        assert status_code == 200
        assert json.loads(body)["versions"][0]["max_version"] == "1.39"
        status_code, body = deploy.request(
            port, "GET", "/resource_providers",
            headers={"OpenStack-API-Version": "placement 1.39"})  # no token
        assert status_code == 401, body  # step 3's [api] auth_strategy = keystone
        served = server.text()  # (a worker stopped mid-request may log its exit)
    finally:
        server.stop()
    assert "Traceback" not in served, served[-4000:]


# ---- the TLS proxy ---------------------------------------------------------

def _https(port: int, cafile: Path, method: str, path: str, body: dict | None = None):
    conn = http.client.HTTPSConnection(
        "127.0.0.1", port, timeout=60, context=ssl.create_default_context(cafile=str(cafile)))
    try:
        headers = {"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.39"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def _location(port: int, name: str) -> str:
    """POST a provider straight to placement-api, without the proxy."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", "/resource_providers", body=json.dumps({"name": name}),
                     headers={**deploy.HEADERS, "Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 200, resp.status
        return resp.headers["Location"]
    finally:
        conn.close()


def test_tls_proxy_forwards_https(tmp_path):
    modules = deploy.APACHE_MODULES
    needed = [deploy.APACHE, shutil.which("openssl") or "openssl",
              *(str(modules / f"mod_{m}.so") for m in APACHE_MODULES)]
    absent = [path for path in needed if not os.path.exists(path)]
    if absent:
        _missing(f"missing for the TLS proxy: {' '.join(absent)} (Debian's apache2, openssl)")

    # placement-api as in test_install_steps, on SQLite, without Keystone
    conf = tmp_path / "placement.conf"
    text = page_conf(lambda url: f"sqlite:///{tmp_path}/placement.sqlite"
                     if url.startswith(SCHEMES["mysql"]) else None)
    assert "\nauth_strategy = keystone\n" in text
    conf.write_text(text.replace("\nauth_strategy = keystone\n", "\nauth_strategy = noauth2\n"))
    env = environment(tmp_path)
    deploy.run(page_command("placement-manage", conf), env=env)
    api_port, proxy_port = deploy.free_port(), deploy.free_port()
    api = deploy.Server(exec_start(conf, api_port), tmp_path / "placement-api.log", env=env)
    root = deploy.shared_dir("tls")
    apache = None
    try:
        assert api.wait_serving(api_port) == 200, api.text()
        cert, key = root / "cert.pem", root / "key.pem"
        deploy.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert])

        site = page_block("install-tls-proxy")
        for page_text in (PAGE_PROXY_ADDRESS, PAGE_CERT, PAGE_KEY, f"http://{PAGE_BIND}/"):
            assert page_text in site, page_text
        assert f"ProxyPass / http://{PAGE_BIND}/" in site  # to where the unit listens
        site = (site.replace(f"http://{PAGE_BIND}/", f"http://127.0.0.1:{api_port}/")
                .replace(PAGE_PROXY_ADDRESS, f"127.0.0.1:{proxy_port}")
                .replace(PAGE_CERT, str(cert)).replace(PAGE_KEY, str(key)))
        httpd_conf = root / "httpd.conf"
        httpd_conf.write_text(
            deploy.APACHE_SERVER.format(root=root, user=deploy.APACHE_USER)
            + "".join(f"LoadModule {m}_module {modules}/mod_{m}.so\n" for m in APACHE_MODULES)
            + site)
        deploy.run([deploy.APACHE, "-t", "-f", httpd_conf])
        apache = deploy.Server([deploy.APACHE, "-f", httpd_conf, "-DFOREGROUND"],
                               root / "apache.out")
        deadline = time.monotonic() + deploy.TIME_LIMIT
        while True:
            try:
                status, _, body = _https(proxy_port, cert, "GET", "/")
                break
            except OSError:
                log = root / "error.log"
                shown = log.read_text(errors="replace") if log.exists() else apache.text()
                assert apache.proc.poll() is None and time.monotonic() < deadline, shown[-4000:]
                time.sleep(0.2)
        assert status == 200 and json.loads(body)["versions"][0]["max_version"] == "1.39"

        status, headers, body = _https(proxy_port, cert, "POST", "/resource_providers",
                                       {"name": "through-the-proxy"})
        assert status == 200, body
        # the client's scheme and host, from X-Forwarded-Proto and the Host kept
        assert headers["Location"].startswith(
            f"https://127.0.0.1:{proxy_port}/resource_providers/"), headers["Location"]
        assert _location(api_port, "straight").startswith(f"http://127.0.0.1:{api_port}/")
    finally:
        if apache is not None:
            apache.proc.terminate()  # httpd's own stop: it ends its children
            try:
                apache.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            apache.stop()
        api.stop()
        deploy.remove(root)
