"""Providers for the resource provider tests, created over the API (their
rows come from tests/helpers/factories.py)."""

import uuid as uuidlib

import sqlalchemy as sa

from tests.helpers import factories

RPS = "/resource_providers"
U1 = "11111111-1111-1111-1111-111111111111"
U2 = "22222222-2222-2222-2222-222222222222"
MISSING = "99999999-9999-9999-9999-999999999999"


def make(api, name, uuid=None, parent=None, version="1.39", inventory=None) -> str:
    """Create provider ``name`` (under ``parent``, a uuid) at ``version``;
    ``inventory``: class -> total, or -> inventory fields. Returns its uuid."""
    body = {"name": name, "uuid": uuid or str(uuidlib.uuid4())}
    if parent is not None:
        body["parent_provider_uuid"] = parent
    r = api.post(RPS, version=version, json=body)
    assert r.status_code in (200, 201), r.text
    if inventory:
        inventories = {rc: spec if isinstance(spec, dict) else {"total": spec}
                       for rc, spec in inventory.items()}
        r = api.put(f"{RPS}/{body['uuid']}/inventories", version=version,
                    json={"resource_provider_generation": 0, "inventories": inventories})
        assert r.status_code == 200, r.text
    return body["uuid"]


def count_rows(db, table, uuid_or_id):
    def read(conn):
        rp = uuid_or_id if isinstance(uuid_or_id, int) else factories.rp_id(conn, uuid_or_id)
        return conn.execute(sa.select(sa.func.count()).select_from(table)
                            .where(table.c.resource_provider_id == rp)).scalar()
    return db.read(read)


def links(uuid, *rels):
    url = f"{RPS}/{uuid}"
    return [{"rel": "self", "href": url}] + [{"rel": r, "href": f"{url}/{r}"} for r in rels]
