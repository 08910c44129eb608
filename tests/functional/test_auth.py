"""Authentication (noauth2, keystone) and policy enforcement over HTTP.

Expected answers were checked against openstack-placement 16.0.0 run with the
same tokens and headers.
"""

import contextlib
import itertools
import os
import time

import pytest
from keystonemiddleware import fixture as ks_fixture

from placer import policy, wsgi
from tests.helpers.api import KEYSTONE, Api, assert_error, make_conf

LIST_DENIED = "Policy does not allow placement:resource_classes:list to be performed."
LATEST = "latest"


pytestmark = pytest.mark.usefixtures("fresh_policy")


# -- noauth2 ------------------------------------------------------------------

def test_root_needs_no_token(api):
    r = api.get("/", token=None)
    assert r.status_code == 200
    assert r.json["versions"][0]["id"] == "v1.0"


@pytest.mark.parametrize("path", ["/resource_classes", "/resource_providers",
                                  "/nowhere", "/resource_classes/VCPU"])
def test_no_token_is_401_everywhere_but_root(api, path):
    r = api.get(path, version=LATEST, token=None)
    assert r.status_code == 401
    # WebOb's own body, as the reference answers (not the API-SIG one)
    assert r.json["title"] == "Unauthorized"
    assert r.json["code"] == "401 Unauthorized"


def test_admin_token_is_admin(api):
    r = api.get("/resource_classes", version=LATEST, token="admin")
    assert r.status_code == 200
    assert r.json["resource_classes"][0]["name"] == "VCPU"
    assert api.post("/resource_classes", version=LATEST, token="admin",
                    json={"name": "CUSTOM_AUTH"}).status_code == 201


@pytest.mark.parametrize("token", ["alice:proj", "alice", "someone:admin"])
def test_user_tokens_without_roles_are_forbidden(api, token):
    error = assert_error(api.get("/resource_classes", version=LATEST, token=token), 403,
                         LIST_DENIED, "placement.undefined_code")
    assert error["title"] == "Forbidden"


def test_forbidden_detail_is_the_references(api):
    r = api.get("/resource_classes", version=LATEST, token="alice:proj")
    assert r.json["errors"][0]["detail"] == (
        "Access was denied to this resource.\n\n " + LIST_DENIED + "  ")


@pytest.mark.parametrize("roles,status", [
    ("admin", 200), ("service", 200), ("reader,member", 403), ("", 403),
    ("member,admin", 200),
])
def test_x_roles_are_honoured(api, roles, status):
    r = api.get("/resource_classes", version=LATEST, token="alice:proj",
                headers={"X-Roles": roles})
    assert r.status_code == status, r.text


def test_x_roles_replace_the_admin_tokens_role(api):
    r = api.get("/resource_classes", version=LATEST, token="admin",
                headers={"X-Roles": "member"})
    assert_error(r, 403, LIST_DENIED)


def test_writes_are_denied_too(api):
    r = api.post("/resource_classes", version=LATEST, token="alice:proj",
                 json={"name": "CUSTOM_NOPE"})
    assert_error(r, 403, "Policy does not allow placement:resource_classes:create "
                         "to be performed.")
    assert api.get("/resource_classes/CUSTOM_NOPE", version=LATEST).status_code == 404


@pytest.mark.parametrize("token", ["admin", "alice"])
def test_system_scope_is_not_a_project_scope(api, token):
    """Placement's rules are project-scoped: a system-scoped admin is refused,
    with the bare action name as detail (as the reference does)."""
    r = api.get("/resource_classes", version=LATEST, token=token,
                headers={"OpenStack-System-Scope": "all", "X-Roles": "admin"})
    error = assert_error(r, 403)
    assert error["detail"] == (
        "Access was denied to this resource.\n\n placement:resource_classes:list  ")


# -- policy file overrides --------------------------------------------------------

def _api_with_policy(db, tmp_path, text: str) -> Api:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(text)
    conf = make_conf(tmp_path, oslo_policy={"policy_file": str(policy_file)})
    return Api(wsgi.create_app(conf, db))


_AHEAD = itertools.count(1)  # seconds: each edit later than the last


def _rewrite(path, text: str) -> None:
    """An edit with an mtime past the last one (file times move in clock
    ticks: two same-sized writes in one tick look alike to oslo.policy too)."""
    stamp = time.time_ns() + next(_AHEAD) * 10**9
    path.write_text(text)
    os.utime(path, ns=(stamp, stamp))


@pytest.mark.parametrize("memoise", [True, False], ids=["memoised", "oslo.policy"])
def test_policy_file_edited_while_serving(db, tmp_path, monkeypatch, memoise):
    """Each edit decides the next request, both ways, memoised or not."""
    monkeypatch.setattr(policy, "MEMOISE", memoise)
    api = _api_with_policy(db, tmp_path, '"placement:resource_classes:show": "role:admin"\n')
    path = tmp_path / "policy.yaml"

    def statuses():
        return [api.get("/resource_classes/VCPU", version=LATEST, token=token,
                        headers=headers).status_code
                for token, headers in (("admin", None), ("alice:p", {"X-Roles": "member"}))
                for _ in range(2)]

    assert statuses() == [200, 200, 403, 403]
    _rewrite(path, '"placement:resource_classes:show": "role:member"\n')
    assert statuses() == [403, 403, 200, 200]
    _rewrite(path, '"placement:resource_classes:show": "!"\n')
    assert statuses() == [403, 403, 403, 403]
    _rewrite(path, '"placement:resource_classes:show": "@"\n')
    assert statuses() == [200, 200, 200, 200]
    path.unlink()  # no file: the defaults
    assert statuses() == [200, 200, 403, 403]
    _rewrite(path, '"placement:resource_classes:show": "role:member"\n')  # back again
    assert statuses() == [403, 403, 200, 200]


def test_policy_file_opens_a_rule_to_members(db, tmp_path):
    api = _api_with_policy(db, tmp_path,
                           '"placement:resource_classes:list": "role:member"\n')
    member = {"X-Roles": "member,reader"}
    r = api.get("/resource_classes", version=LATEST, token="alice:proj", headers=member)
    assert r.status_code == 200, r.text
    # other rules keep their defaults
    assert_error(api.get("/resource_classes/VCPU", version=LATEST, token="alice:proj",
                         headers=member),
                 403, "Policy does not allow placement:resource_classes:show to be performed.")
    assert_error(api.get("/resource_classes", version=LATEST, token="bob:proj",
                         headers={"X-Roles": "reader"}), 403, LIST_DENIED)


def test_policy_file_can_close_a_rule_to_admins(db, tmp_path):
    api = _api_with_policy(db, tmp_path, '"placement:resource_classes:list": "!"\n')
    assert_error(api.get("/resource_classes", version=LATEST, token="admin"), 403,
                 LIST_DENIED)
    assert api.get("/resource_classes/VCPU", version=LATEST, token="admin").status_code == 200


def test_token_project_and_user_reach_policy(db, tmp_path):
    """noauth2's ``user:project`` token is the credential policy checks see."""
    api = _api_with_policy(db, tmp_path,
                           '"placement:resource_classes:list": "project_id:proj2"\n'
                           '"placement:resource_classes:show": "user_id:carol"\n')
    assert api.get("/resource_classes", version=LATEST, token="alice:proj2").status_code == 200
    assert_error(api.get("/resource_classes", version=LATEST, token="alice:proj3"), 403,
                 LIST_DENIED)
    # a bare token is both the user and the project
    assert api.get("/resource_classes", version=LATEST, token="proj2").status_code == 200
    assert api.get("/resource_classes/VCPU", version=LATEST,
                   token="carol:x").status_code == 200
    assert api.get("/resource_classes/VCPU", version=LATEST,
                   token="dave:x").status_code == 403


def test_policy_file_overriding_a_base_rule(db, tmp_path):
    """Overriding admin_or_service_api changes every rule built on it."""
    api = _api_with_policy(db, tmp_path,
                           '"admin_or_service_api": "role:admin or role:operator"\n')
    operator = {"X-Roles": "operator"}
    for path in ("/resource_classes", "/resource_classes/VCPU", "/traits"):
        r = api.get(path, version=LATEST, token="op:proj", headers=operator)
        assert r.status_code == 200, (path, r.text)
    r = api.get("/resource_classes", version=LATEST, token="svc:proj",
                headers={"X-Roles": "service"})
    assert r.status_code == 403


# -- keystone -----------------------------------------------------------------

@contextlib.contextmanager
def _keystone_app(db, tmp_path, **sections):
    """The app with [api] auth_strategy = keystone, and keystonemiddleware's own
    fixture standing in for Keystone (tokens are registered on it; no network)."""
    tokens = ks_fixture.AuthTokenFixture()
    tokens.setUp()
    try:
        conf = make_conf(tmp_path, api={"auth_strategy": "keystone"},
                         keystone_authtoken={"www_authenticate_uri": KEYSTONE}, **sections)
        yield Api(wsgi.create_app(conf, db)), tokens
    finally:
        tokens.cleanUp()


@pytest.fixture
def keystone(db, tmp_path):
    with _keystone_app(db, tmp_path) as app_and_tokens:
        yield app_and_tokens


def test_keystone_valid_admin_token(keystone):
    api, tokens = keystone
    tokens.add_token_data(token_id="tok-admin", user_id="u1", project_id="p1",
                          role_list=["admin", "member", "reader"])
    r = api.get("/resource_classes", version=LATEST, token="tok-admin")
    assert r.status_code == 200, r.text
    assert r.json["resource_classes"][0]["name"] == "VCPU"


def test_keystone_token_roles_reach_policy(keystone):
    api, tokens = keystone
    tokens.add_token_data(token_id="tok-reader", user_id="u2", project_id="p2",
                          role_list=["reader", "member"])
    assert_error(api.get("/resource_classes", version=LATEST, token="tok-reader"),
                 403, LIST_DENIED)


def test_keystone_token_project_reaches_policy(db, tmp_path):
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text('"placement:resource_classes:list": "project_id:p2 and user_id:u2"\n')
    with _keystone_app(db, tmp_path, oslo_policy={"policy_file": str(policy_file)}) as (
            api, tokens):
        tokens.add_token_data(token_id="mine", user_id="u2", project_id="p2")
        tokens.add_token_data(token_id="theirs", user_id="u2", project_id="p3")
        assert api.get("/resource_classes", version=LATEST, token="mine").status_code == 200
        assert_error(api.get("/resource_classes", version=LATEST, token="theirs"),
                     403, LIST_DENIED)


def test_keystone_ignores_forged_identity_headers(keystone):
    """Roles come from the validated token, never from headers the client sent."""
    api, tokens = keystone
    tokens.add_token_data(token_id="tok-member", user_id="u3", project_id="p3",
                          role_list=["member"])
    r = api.get("/resource_classes", version=LATEST, token="tok-member",
                headers={"X-Roles": "admin"})
    assert_error(r, 403, LIST_DENIED)


def test_keystone_service_role_token(keystone):
    api, tokens = keystone
    tokens.add_token_data(token_id="tok-svc", user_id="nova", project_id="service",
                          role_list=["service"])
    assert api.post("/resource_classes", version=LATEST, token="tok-svc",
                    json={"name": "CUSTOM_KS"}).status_code == 201


@pytest.mark.parametrize("token", ["not-a-token", None])
def test_keystone_invalid_or_missing_token_is_401(keystone, token):
    api, tokens = keystone
    tokens.add_token_data(token_id="tok-admin", role_list=["admin"])
    r = api.get("/resource_classes", version=LATEST, token=token)
    assert r.status_code == 401
    assert r.headers["WWW-Authenticate"] == f'Keystone uri="{KEYSTONE}"'


def test_keystone_root_needs_no_token(keystone):
    api, _ = keystone
    r = api.get("/", token=None)
    assert r.status_code == 200
    assert r.json["versions"][0]["max_version"] == "1.39"


def test_keystone_expired_token_is_401(keystone):
    api, tokens = keystone
    tokens.add_token_data(token_id="tok-old", user_id="u", project_id="p",
                          role_list=["admin"], expires="2000-01-01T00:00:00Z")
    assert api.get("/resource_classes", version=LATEST, token="tok-old").status_code == 401
