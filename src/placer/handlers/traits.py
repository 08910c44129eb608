"""/traits and /traits/{name} (1.6), and /resource_providers/{uuid}/traits (1.6)."""

import falcon

from placer import exceptions
from placer.db import traits as db
from placer.http import query as querystring
from placer.http import util
from placer.http.negotiation import json_body, returns_json, takes_json
from placer.http.request import Request
from placer.model import names, query_values
from placer.schemas import validation

BAD_TRAIT = ('The trait is invalid. A valid trait must be no longer than 255 characters, '
             'start with the prefix "CUSTOM_" and use following characters: "A"-"Z", '
             '"0"-"9" and "_"')


def _url(req: Request, name: str) -> str:
    return f"{util.url_prefix(req)}/traits/{name}"


def _stamp(traits):
    return util.newest(t.updated_at or t.created_at for t in traits)


def _list_filters(query: dict[str, str], schema) -> dict:
    validation.check_query(query, schema)
    filters: dict = {}
    if "name" in query:
        filters.update(query_values.parse_name_filter(query["name"]))
    if "associated" in query:
        filters["associated"] = query_values.parse_associated(query["associated"])
    return filters


@returns_json
def list_traits(req: Request, resp: falcon.Response):
    filters = _list_filters(querystring.as_dict(req), util.query_schema(req))
    traits = req.context.db.read(db.list_traits, **filters)
    util.send_json(req, resp, {"traits": [t.name for t in traits]},
                   last_modified=_stamp(traits))


def show_trait(req: Request, resp: falcon.Response, name):
    trait = req.context.db.read(db.get, name)
    util.no_content(resp)
    util.set_last_modified(req, resp, trait.created_at)


def create_trait(req: Request, resp: falcon.Response, name):
    if not names.is_valid_custom_trait(name):
        raise exceptions.BadRequest(BAD_TRAIT)
    trait, created = req.context.db.write(db.ensure_custom, name)
    util.no_content(resp, 201 if created else 204, _url(req, name))
    util.set_last_modified(req, resp, trait.created_at)


def delete_trait(req: Request, resp: falcon.Response, name):
    req.context.db.write(db.delete_custom, name)
    util.no_content(resp)


def _send_provider_traits(req: Request, resp: falcon.Response, traits, generation: int) -> None:
    util.send_json(req, resp, {"traits": [t.name for t in traits],
                               "resource_provider_generation": generation},
                   last_modified=_stamp(traits))


@returns_json
def list_provider_traits(req: Request, resp: falcon.Response, uuid):
    try:
        traits, generation = req.context.db.read(db.provider_traits, uuid)
    except exceptions.NotFound as exc:
        # this route alone repeats the cause after the sentence
        raise exceptions.NotFound(f"{exc.detail}: {exc.detail}") from None
    _send_provider_traits(req, resp, traits, generation)


@takes_json
def set_provider_traits(req: Request, resp: falcon.Response, uuid):
    data = json_body(req, util.body_schema(req))
    # a whole float such as 3.0 is a valid integer to jsonschema
    seen = int(data["resource_provider_generation"])
    traits, generation = req.context.db.write(db.set_provider_traits, uuid, data["traits"], seen)
    _send_provider_traits(req, resp, traits, generation)


def delete_provider_traits(req: Request, resp: falcon.Response, uuid):
    req.context.db.write(db.delete_provider_traits, uuid)
    util.no_content(resp)
