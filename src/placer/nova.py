"""Reading Nova's compute API for ``placement-manage audit --nova``.

Nova is reached as Nova reaches Placement: a keystoneauth session, auth
plugin and adapter loaded from the ``[nova]`` options (conf.py) with
keystoneauth's own loaders, so ``auth_type``, ``auth_url``, ``region_name``,
``valid_interfaces`` and ``endpoint_override`` work as in Nova's
``[placement]``. Every request is made at microversion 2.69 (the first at
which Nova shows what a down cell hides), after checking that Nova serves it.

A listing that leaves something out would make live allocations look
orphaned, so what is read is first proved complete, and anything short of
that raises ``Refused``:

- ``GET /os-services``: at 2.69 a cell that does not answer shows each of its
  compute hosts (from the API database's host mappings) as a partial record,
  ``status: UNKNOWN`` with only ``binary``, ``host`` and ``status``. Nova
  lists services unpaged, so this covers every cell with a compute host.
- ``GET /servers?all_tenants=1``, unfiltered and unpaged: at 2.69 a down
  cell's servers come first, each ``status: UNKNOWN`` with ``id`` and
  ``links`` only (no ``name``). Nova fills these into what the answer's limit
  (``[api] max_limit``) leaves, so a full first page can omit them: this
  check backs up the one above, which does not depend on the limit.
- ``GET /servers/detail?all_tenants=1``, ``GET /os-migrations`` and
  ``GET /os-hypervisors/detail``, paged (``limit``, ``marker``, following
  each ``*_links`` ``next``): a paged or filtered listing silently skips a
  down cell (Nova's "Handling Down Cells" guide), which the checks above
  rule out first. Any page that fails, answers another microversion, or
  holds a partial record (a server without ``OS-EXT-SRV-ATTR:host``: the
  caller must be an administrator) refuses.
"""

import dataclasses
from collections.abc import Iterator
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "nova"  # conf.NOVA_GROUP (options know nothing of this module)
MICROVERSION = "2.69"
MIN_VERSION = (2, 69)
PAGE = 1000  # items asked for per page (Nova answers at most its [api] max_limit)
UNKNOWN = "UNKNOWN"

# Nova's "in progress": a migration in any other status still holds, or is
# about to move, allocations (nova.db.main.api's
# migration_get_in_progress_by_host_and_node; 'finished' is a resize waiting
# to be confirmed or reverted, so it is in progress).
DONE_STATUSES = frozenset({"confirmed", "reverted", "error", "failed", "completed",
                           "cancelled", "done"})


class Refused(Exception):
    """Nova's answer cannot be trusted to be whole: nothing may be called
    orphaned. ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class Server:
    uuid: str
    status: str
    vm_state: str | None
    task_state: str | None
    host: str | None
    node: str | None  # OS-EXT-SRV-ATTR:hypervisor_hostname
    project_id: str | None
    user_id: str | None


@dataclasses.dataclass(frozen=True)
class Migration:
    uuid: str
    instance_uuid: str
    status: str
    migration_type: str | None
    source_compute: str | None
    source_node: str | None
    dest_compute: str | None
    dest_node: str | None

    @property
    def in_progress(self) -> bool:
        return self.status not in DONE_STATUSES


@dataclasses.dataclass
class View:
    """What Nova knows, proved whole."""

    servers: dict[str, Server]
    migrations: dict[str, Migration]  # every migration Nova lists, by uuid
    nodes: dict[tuple[str, str], str]  # (service host, hypervisor_hostname) -> node uuid

    def in_progress(self) -> dict[str, Migration]:
        return {u: m for u, m in self.migrations.items() if m.in_progress}


def adapter(conf: cfg.ConfigOpts) -> Any:
    """A keystoneauth Adapter for Nova's compute API from ``[nova]``."""
    try:
        auth = ks_loading.load_auth_from_conf_options(conf, GROUP)
    except ks_exc.ClientException as exc:
        raise Refused(f"[{GROUP}] auth options: {exc}") from exc
    if auth is None:
        raise Refused(f"[{GROUP}] auth_type is not set: --nova needs credentials for "
                      "Nova's compute API")
    session = ks_loading.load_session_from_conf_options(conf, GROUP, auth=auth)
    nova = ks_loading.load_adapter_from_conf_options(conf, GROUP, session=session, auth=auth)
    nova.default_microversion = MICROVERSION
    return nova


def negotiate(nova: Any) -> None:
    """Refuse unless Nova serves microversion 2.69."""
    try:
        data = nova.get_endpoint_data()
    except ks_exc.ClientException as exc:
        raise Refused(f"Nova's compute API could not be reached: {exc}") from exc
    if data is None:
        raise Refused("no compute endpoint found (see [nova] valid_interfaces, region_name, "
                      "endpoint_override)")
    low, high = data.min_microversion, data.max_microversion
    if not high or tuple(high) < MIN_VERSION or (low and tuple(low) > MIN_VERSION):
        shown = ".".join(str(n) for n in high) if high else "none"
        raise Refused(f"Nova's compute API serves microversions up to {shown}; --nova needs "
                      f"{MICROVERSION} or later, where a down cell shows in the answers")


def _get(nova: Any, path: str, params: dict[str, Any]) -> dict[str, Any]:
    try:
        resp = nova.get(path, params=params, raise_exc=False)
    except ks_exc.ClientException as exc:
        raise Refused(f"GET {path} failed: {exc}") from exc
    if resp.status_code != 200:
        raise Refused(f"GET {path} answered {resp.status_code}: {resp.text[:300]}")
    version = resp.headers.get("OpenStack-API-Version", "")
    if version.split()[-1:] != [MICROVERSION]:
        raise Refused(f"GET {path} answered at microversion {version or 'none'!r}, "
                      f"not {MICROVERSION}")
    try:
        body = resp.json()
    except ValueError as exc:
        raise Refused(f"GET {path} answered something other than JSON") from exc
    if not isinstance(body, dict):
        raise Refused(f"GET {path} answered {type(body).__name__}, not an object")
    return body


def _items(body: dict[str, Any], key: str, path: str) -> list[dict[str, Any]]:
    items = body.get(key)
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise Refused(f"GET {path} answered no {key!r} list")
    return items


def _pages(nova: Any, path: str, key: str, marker_key: str,
           params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every item of a paged listing, following Nova's ``next`` links."""
    marker: str | None = None
    seen: set[str] = set()
    while True:
        query = dict(params, limit=PAGE, **({"marker": marker} if marker else {}))
        body = _get(nova, path, query)
        items = _items(body, key, path)
        yield from items
        links = body.get(f"{key}_links") or []
        if not items or not any(link.get("rel") == "next" for link in links):
            return
        marker = str(items[-1].get(marker_key))
        if marker in seen:
            raise Refused(f"GET {path}: paging came back to marker {marker}")
        seen.add(marker)


def check_cells(nova: Any) -> None:
    """Refuse when any cell does not answer (see the module's docstring)."""
    services = _items(_get(nova, "/os-services", {}), "services", "/os-services")
    down = sorted({s.get("host") or "?" for s in services if s.get("status") == UNKNOWN})
    if down:
        raise Refused(f"a Nova cell is not answering: GET /os-services shows the compute "
                      f"services of {', '.join(down)} as UNKNOWN")
    servers = _items(_get(nova, "/servers", {"all_tenants": "1"}), "servers", "/servers")
    partial = sorted(s.get("id") or "?" for s in servers
                     if s.get("status") == UNKNOWN and "name" not in s)
    if partial:
        raise Refused(f"a Nova cell is not answering: GET /servers shows {len(partial)} "
                      f"server(s) as UNKNOWN, such as {partial[0]}")


def _server(item: dict[str, Any]) -> Server:
    if "OS-EXT-SRV-ATTR:host" not in item or (item.get("status") == UNKNOWN
                                              and "name" not in item):
        raise Refused(f"GET /servers/detail gave a partial record for server "
                      f"{item.get('id')} (a cell not answering, or [nova] credentials "
                      "without the admin role)")
    return Server(uuid=item["id"], status=item.get("status") or "",
                  vm_state=item.get("OS-EXT-STS:vm_state"),
                  task_state=item.get("OS-EXT-STS:task_state"),
                  host=item.get("OS-EXT-SRV-ATTR:host"),
                  node=item.get("OS-EXT-SRV-ATTR:hypervisor_hostname"),
                  project_id=item.get("tenant_id"), user_id=item.get("user_id"))


def _migration(item: dict[str, Any]) -> Migration:
    if not item.get("uuid") or not item.get("instance_uuid") or not item.get("status"):
        raise Refused(f"GET /os-migrations gave a partial record: {item.get('id')}")
    return Migration(uuid=item["uuid"], instance_uuid=item["instance_uuid"],
                     status=item["status"], migration_type=item.get("migration_type"),
                     source_compute=item.get("source_compute"),
                     source_node=item.get("source_node"),
                     dest_compute=item.get("dest_compute"), dest_node=item.get("dest_node"))


def read(conf: cfg.ConfigOpts) -> View:
    """Nova's servers, migrations and compute nodes, or ``Refused``."""
    nova = adapter(conf)
    negotiate(nova)
    check_cells(nova)
    servers: dict[str, Server] = {}
    for item in _pages(nova, "/servers/detail", "servers", "id", {"all_tenants": "1"}):
        server = _server(item)
        servers[server.uuid] = server
    migrations: dict[str, Migration] = {}
    for item in _pages(nova, "/os-migrations", "migrations", "uuid", {}):
        migration = _migration(item)
        migrations[migration.uuid] = migration
    nodes: dict[tuple[str, str], str] = {}
    for item in _pages(nova, "/os-hypervisors/detail", "hypervisors", "id", {}):
        host = (item.get("service") or {}).get("host")
        if host and item.get("hypervisor_hostname") and item.get("id"):
            nodes[(host, item["hypervisor_hostname"])] = str(item["id"])
    # a cell that went down while the pages were read
    check_cells(nova)
    return View(servers, migrations, nodes)
