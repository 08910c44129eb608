"""/resource_classes (1.2) and /resource_classes/{name}."""

import falcon

from placer import exceptions
from placer.db import resource_classes as db
from placer.http import util
from placer.http.negotiation import json_body, returns_json, takes_json
from placer.http.request import Request
from placer.microversions import PUT_RESOURCE_CLASS
from placer.schemas import resource_classes as schema


def _url(req: Request, name: str) -> str:
    return f"{util.url_prefix(req)}/resource_classes/{name}"


def _render(req: Request, rc) -> dict:
    return {"name": rc.name, "links": [{"rel": "self", "href": _url(req, rc.name)}]}


def _stamp(rc):
    # standard classes carry no meaningful timestamps: the reference says "now"
    return None if rc.standard else rc.updated_at or rc.created_at


@returns_json
def list_classes(req: Request, resp: falcon.Response):
    classes = req.context.db.read(db.list_all)
    util.send_json(req, resp, {"resource_classes": [_render(req, rc) for rc in classes]},
                   last_modified=util.newest(_stamp(rc) for rc in classes))


@takes_json
def create_class(req: Request, resp: falcon.Response):
    name = json_body(req, util.body_schema(req))["name"]
    req.context.db.write(db.create, name)
    util.no_content(resp, 201, _url(req, name))


@returns_json
def show_class(req: Request, resp: falcon.Response, name):
    rc = req.context.db.read(db.get, name)
    util.send_json(req, resp, _render(req, rc), last_modified=_stamp(rc))


@takes_json(before=PUT_RESOURCE_CLASS)
def update_class(req: Request, resp: falcon.Response, name):
    if util.want(req, PUT_RESOURCE_CLASS):
        # 1.7+: bodiless create-or-verify; the name in the path is validated
        # as if it were a body so the error reads the same.
        error = next(schema.CLASS.iter_errors({"name": name}), None)
        if error is not None:
            raise exceptions.InvalidBody(str(error))
        _rc, created = req.context.db.write(db.ensure, name)
        util.no_content(resp, 201 if created else 204, _url(req, name))
        return
    new_name = json_body(req, util.body_schema(req))["name"]
    rc = req.context.db.write(db.rename, name, new_name)
    util.send_json(req, resp, _render(req, rc))


def delete_class(req: Request, resp: falcon.Response, name):
    req.context.db.write(db.delete, name)
    util.no_content(resp)
