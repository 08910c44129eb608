"""Nova's side of the ``--nova`` tests, run by the Python of a venv with the
``nova`` package (tests/helpers/nova_api.py makes it): never imported by the tests.

    python nova_stage.py build DIR WORLD.json   the databases, made and seeded
    python nova_stage.py down DIR COPY LIMIT CELL...   a copy of DIR's deployment with
                                                 [api] max_limit LIMIT, CELLs down
    python nova_stage.py serve DIR PORT         Nova's compute API on 127.0.0.1:PORT

``build`` writes ``DIR/nova.conf`` and ``DIR/api-paste.ini``, makes the API,
cell0 and cell databases (SQLite) with ``nova-manage``, maps the cells, and
seeds the world with Nova's own objects: services, compute nodes, host
mappings, instances (and their mappings and request specs) and migrations,
each ``.create()``-d as Nova's services would. ``down`` copies the API
database into a second deployment over the same cell databases and points
some cells at a database that cannot be opened (``nova-manage cell_v2
update_cell``): cells whose database is down.

``serve`` runs Nova's own WSGI application (``nova.api.openstack.wsgi_app``,
the paste pipeline Nova ships) with two stand-ins, as Nova's functional
fixtures do (``OSAPIFixture._stub_keystone``): no Keystone (every request is
an admin's), and no Neutron (the servers have no ports, so no security
groups are listed).
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# this file's directory holds the tests' helpers, not Nova's modules
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent]

NOVA_CONF = """\
[DEFAULT]
host = nova-api-test
state_path = {dir}
transport_url = fake:/
[api]
max_limit = {max_limit}
[api_database]
connection = sqlite:///{dir}/api.db
[database]
connection = sqlite:///{dir}/cell1.db
[oslo_concurrency]
lock_path = {dir}/locks
[wsgi]
api_paste_config = {dir}/api-paste.ini
[oslo_policy]
enforce_scope = false
"""


def _manage(directory: Path, *args: str, conf: Path | None = None) -> None:
    files = ["--config-file", str(directory / "nova.conf")]
    if conf is not None:
        files += ["--config-file", str(conf)]
    manage = Path(sys.executable).parent / "nova-manage"
    done = subprocess.run([str(manage), *files, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"nova-manage {' '.join(args)}: {done.returncode}\n"
                         f"{done.stdout}\n{done.stderr}")


def build(directory: Path, world_file: Path) -> None:
    world = json.loads(world_file.read_text())
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "locks").mkdir(exist_ok=True)
    (directory / "nova.conf").write_text(
        NOVA_CONF.format(dir=directory, max_limit=world.get("max_limit", 1000)))
    paste = Path(sys.prefix) / "etc" / "nova" / "api-paste.ini"
    (directory / "api-paste.ini").write_text(paste.read_text())

    _manage(directory, "api_db", "sync")
    _manage(directory, "cell_v2", "map_cell0", "--database_connection",
            f"sqlite:///{directory}/cell0.db")
    cells = sorted({h["cell"] for h in world["hosts"]} | {"cell1"}
                   | {s["cell"] for s in world["servers"] if "cell" in s})
    for cell in cells:
        url = f"sqlite:///{directory}/{cell}.db"
        extra = directory / f"{cell}.conf"
        extra.write_text(f"[database]\nconnection = {url}\n")
        _manage(directory, "db", "sync", "--local_cell", conf=extra)
        _manage(directory, "cell_v2", "create_cell", "--name", cell,
                "--database_connection", url, "--transport-url", f"fake://{cell}/")
    _manage(directory, "db", "sync")  # cell0
    _seed(directory, world)


def down(source: Path, directory: Path, max_limit: int, cells: list[str]) -> None:
    """A second deployment of ``source``'s: its own API database (a copy),
    the same cell databases, but ``cells`` pointed at a database that cannot
    be opened: cells that are down."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "locks").mkdir(exist_ok=True)
    shutil.copy(source / "api.db", directory / "api.db")
    shutil.copy(source / "api-paste.ini", directory / "api-paste.ini")
    conf = (source / "nova.conf").read_text().replace(str(source), str(directory))
    conf = conf.replace(f"sqlite:///{directory}/cell1.db", f"sqlite:///{source}/cell1.db")
    conf = re.sub(r"max_limit = \d+", f"max_limit = {max_limit}", conf)
    (directory / "nova.conf").write_text(conf)
    for cell in cells:
        _manage(directory, "cell_v2", "update_cell", "--cell_uuid", _cell_uuid(directory, cell),
                "--database_connection", f"sqlite:///{directory}/gone/{cell}.db")


def _nova(directory: Path):
    from nova import config, context, objects
    objects.register_all()
    config.parse_args(["nova_stage"], default_config_files=[str(directory / "nova.conf")])
    return context, objects


def _cell_uuid(directory: Path, name: str) -> str:
    context, objects = _nova(directory)
    ctxt = context.get_admin_context()
    (cell,) = [c for c in objects.CellMappingList.get_all(ctxt) if c.name == name]
    return cell.uuid


def _flavor(objects, spec: dict):
    return objects.Flavor(
        id=1, flavorid="1", name=spec.get("name", "small"), memory_mb=spec.get("ram", 512),
        vcpus=spec.get("vcpus", 1), root_gb=spec.get("disk", 1), ephemeral_gb=0, swap=0,
        rxtx_factor=1.0, vcpu_weight=0, disabled=False, is_public=True, extra_specs={},
        description=None)


def _seed(directory: Path, world: dict) -> None:
    context, objects = _nova(directory)
    from nova.network import model as network_model
    ctxt = context.get_admin_context()
    cells = {c.name: c for c in objects.CellMappingList.get_all(ctxt)}
    host_cell = {}
    services = {}
    node_ids = {}
    for h in world["hosts"]:
        cell = cells[h["cell"]]
        host_cell[h["host"]] = cell
        with context.target_cell(ctxt, cell) as cctxt:
            if h["host"] not in services:
                service = objects.Service(cctxt, host=h["host"], binary="nova-compute",
                                          topic="compute", report_count=0)
                service.create()
                services[h["host"]] = service
                objects.HostMapping(ctxt, host=h["host"], cell_mapping=cell).create()
            node = objects.ComputeNode(
                cctxt, uuid=h["uuid"], host=h["host"], hypervisor_hostname=h["node"],
                service_id=services[h["host"]].id, vcpus=8, memory_mb=8192, local_gb=100,
                vcpus_used=0, memory_mb_used=0, local_gb_used=0, hypervisor_type="fake",
                hypervisor_version=1, cpu_info="{}", cpu_allocation_ratio=16.0,
                ram_allocation_ratio=1.5, disk_allocation_ratio=1.0)
            node.create()
            node_ids[(h["host"], h["node"])] = node.id
    for s in world["servers"]:
        cell = cells[s["cell"]] if "cell" in s else host_cell[s["host"]]
        flavor = _flavor(objects, s.get("flavor", {}))
        with context.target_cell(ctxt, cell) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=s["uuid"], project_id=s.get("project", "project"),
                user_id=s.get("user", "user"), display_name=s.get("name", s["uuid"][:8]),
                host=s.get("host"), node=s.get("node"),
                compute_id=node_ids.get((s.get("host"), s.get("node"))),
                vm_state=s.get("vm_state", "active"),
                task_state=s.get("task_state"), power_state=1, flavor=flavor,
                instance_type_id=flavor.id, memory_mb=flavor.memory_mb, vcpus=flavor.vcpus,
                root_gb=flavor.root_gb, ephemeral_gb=0, availability_zone="nova",
                launched_at=None, metadata={}, system_metadata={},
                info_cache=objects.InstanceInfoCache(network_info=network_model.NetworkInfo()))
            instance.create()
        objects.InstanceMapping(ctxt, instance_uuid=s["uuid"], cell_mapping=cell,
                                project_id=instance.project_id,
                                user_id=instance.user_id).create()
        objects.RequestSpec(ctxt, instance_uuid=s["uuid"], project_id=instance.project_id,
                            user_id=instance.user_id, flavor=flavor, num_instances=1,
                            availability_zone="nova", is_bfv=False,
                            image=objects.ImageMeta.from_dict({})).create()
    for m in world.get("migrations", []):
        cell = host_cell[m["source_compute"]]
        with context.target_cell(ctxt, cell) as cctxt:
            objects.Migration(
                cctxt, uuid=m["uuid"], instance_uuid=m["instance_uuid"],
                source_compute=m["source_compute"], source_node=m["source_node"],
                dest_compute=m.get("dest_compute"), dest_node=m.get("dest_node"),
                dest_compute_id=node_ids.get((m.get("dest_compute"), m.get("dest_node"))),
                dest_host=None, status=m["status"], migration_type=m["migration_type"],
                old_instance_type_id=1, new_instance_type_id=1,
                cross_cell_move=False, hidden=False).create()


def serve(directory: Path, port: int) -> None:
    from unittest import mock
    os.environ["OS_NOVA_CONFIG_DIR"] = str(directory)
    os.environ["OS_NOVA_CONFIG_FILES"] = "api-paste.ini;nova.conf"
    sys.argv = ["nova-api-test"]
    from nova import monkey_patch
    monkey_patch.patch(backend="threading")  # first, as nova.wsgi.osapi_compute does
    from nova import context
    # no Keystone: as OSAPIFixture._stub_keystone, every request an admin's
    patches = [
        mock.patch("keystonemiddleware.auth_token.filter_factory",
                   return_value=lambda app: app),
        mock.patch("nova.api.auth.NovaKeystoneContext._create_context",
                   lambda self, env, **kw: context.RequestContext(
                       "admin", "admin", is_admin=True,
                       roles=["admin", "member", "reader"], **kw)),
        # no Neutron: no ports, so no security groups to list
        mock.patch("nova.network.security_group_api.get_instances_security_groups_bindings",
                   return_value={}),
    ]
    for patch in patches:
        patch.start()
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from nova.wsgi import osapi_compute

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = make_server("127.0.0.1", port, osapi_compute.application, handler_class=Quiet)
    print("serving", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1] == "down":
        down(Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5:])
    elif sys.argv[1] == "serve":
        serve(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        raise SystemExit(__doc__)
