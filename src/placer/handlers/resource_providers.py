"""/resource_providers and /resource_providers/{uuid}."""

import re
import uuid as uuidlib

import falcon
import orjson

from placer.db import resource_providers as db
from placer.handlers._provider_body import provider_body
from placer.http import query, util
from placer.http.negotiation import json_body, returns_json, takes_json
from placer.http.request import Request
from placer.microversions import (
    ALLOCATIONS_LINK,
    BASE,
    CREATE_PROVIDER_BODY,
    NESTED_PROVIDERS,
    PROVIDER_AGGREGATES,
    REPARENTING,
    TRAITS,
)
from placer.schemas import resource_providers as schema

# Link relations after 'self', with the microversion adding each.
_RELS = (("inventories", BASE), ("usages", BASE), ("aggregates", PROVIDER_AGGREGATES),
         ("traits", TRAITS), ("allocations", ALLOCATIONS_LINK))


def _url(req: Request, uuid: str) -> str:
    return f"{util.url_prefix(req)}/resource_providers/{uuid}"


def _render(req: Request, rp: db.ProviderRecord) -> dict:
    url = _url(req, rp.uuid)
    links = [{"rel": "self", "href": url}]
    links += [{"rel": rel, "href": f"{url}/{rel}"} for rel, since in _RELS
              if util.want(req, since)]
    body = {"uuid": rp.uuid, "name": rp.name, "generation": rp.generation, "links": links}
    if util.want(req, NESTED_PROVIDERS):
        body["parent_provider_uuid"] = rp.parent_uuid
        body["root_provider_uuid"] = rp.root_uuid
    return body


def _stamp(rp: db.ProviderRecord):
    return rp.updated_at or rp.created_at


# Printable ASCII but '"' and '\\': text that JSON carries as it is.
_PLAIN_JSON = re.compile(r'[ !#-\[\]-~]*')


def _json_text(value: str) -> str:
    """``value`` as it reads inside a JSON string."""
    return orjson.dumps(value)[1:-1].decode()


def _link_pieces(rels: list[str]) -> list[str]:
    """The JSON text of a provider's links cut where its url goes:
    ``url.join(pieces)`` is the array of the self link and then ``rels``."""
    pieces, close = [], "["
    for rel, suffix in [("self", "")] + [(rel, f"/{rel}") for rel in rels]:
        pieces.append(f'{close}{{"rel":"{rel}","href":"')
        close = f'{suffix}"}},'
    pieces.append(close[:-1] + "]")
    return pieces


def _render_rows(req: Request, rows) -> list[dict]:
    """The bodies of listed providers (db.list_filtered rows), as _render
    gives them, with what the microversion shows decided once per request.
    A provider's links go to the encoder as one pre-encoded fragment: fixed
    text around its url, whose uuid needs escaping only in a database that
    holds odd ones (checked once for all)."""
    rels = [rel for rel, since in _RELS if util.want(req, since)]
    pieces = _link_pieces(rels)
    href = _json_text(f"{util.url_prefix(req)}/resource_providers/")
    fragment = orjson.Fragment
    uuids = [r[0] for r in rows]
    if _PLAIN_JSON.fullmatch("".join(uuids)) is None:
        uuids = [_json_text(uuid) for uuid in uuids]
    links = [fragment((href + uuid).join(pieces)) for uuid in uuids]
    both = zip(rows, links, strict=True)
    if util.want(req, NESTED_PROVIDERS):
        return [{"uuid": uuid, "name": name, "generation": generation, "links": link,
                 "parent_provider_uuid": parent, "root_provider_uuid": root}
                for (uuid, name, generation, parent, root, _), link in both]
    return [{"uuid": uuid, "name": name, "generation": generation, "links": link}
            for (uuid, name, generation, _, _, _), link in both]


@returns_json
def list_providers(req: Request, resp: falcon.Response):
    parsed = schema.parse_list_query(query.pairs(req), util.version(req))
    filters = db.ProviderFilter(**parsed)
    rows, changed_at = req.context.db.read(db.list_filtered, filters)
    body = {"resource_providers": _render_rows(req, rows)}
    util.send_json(req, resp, body, last_modified=changed_at)


@takes_json
def create_provider(req: Request, resp: falcon.Response):
    data = json_body(req, util.body_schema(req))
    # a given uuid is stored in its canonical form (dashed, lower case)
    uuid = str(uuidlib.UUID(data["uuid"])) if data.get("uuid") else str(uuidlib.uuid4())
    rp = req.context.db.write(db.create, uuid, data["name"], data.get("parent_provider_uuid"))
    if not util.want(req, CREATE_PROVIDER_BODY):
        util.no_content(resp, 201, _url(req, rp.uuid))
        return
    resp.location = _url(req, rp.uuid)
    util.send_json(req, resp, _render(req, rp))  # Last-Modified: now, as the reference


@returns_json
def show_provider(req: Request, resp: falcon.Response, uuid):
    rp = req.context.db.read(db.get, uuid)
    util.send_json(req, resp, _render(req, rp), last_modified=_stamp(rp))


@takes_json
def update_provider(req: Request, resp: falcon.Response, uuid):
    data = provider_body(req, uuid)
    parent = data["parent_provider_uuid"] if "parent_provider_uuid" in data else db.UNSET
    rp, before = req.context.db.write(db.update, uuid, data["name"], parent,
                                      util.want(req, REPARENTING))
    util.send_json(req, resp, _render(req, rp), last_modified=before)
    if before is None:
        # The reference reports the updated_at read before saving, and no
        # Last-Modified at all when there was none.
        resp.delete_header("Last-Modified")


def delete_provider(req: Request, resp: falcon.Response, uuid):
    req.context.db.write(db.delete, uuid)
    util.no_content(resp)
