"""Policy rules and enforcement must match placement 16.0.0's documented defaults."""

import itertools
import os
import time

import pytest
from oslo_config import cfg
from oslo_policy import _external
from oslo_policy import opts as policy_opts
from oslo_policy import policy as oslo_policy

from placer import exceptions, policy
from placer.context import RequestContext
from placer.route_table import policy_defaults

# Copied by hand from the placement "Policy Reference" docs (name -> default).
_AOS = "rule:admin_or_service_api"
DOCUMENTED_DEFAULTS = {
    "admin_api": "role:admin",
    "service_api": "role:service",
    "admin_or_service_api": "role:admin or role:service",
    "project_reader_api": "role:reader and project_id:%(project_id)s",
    "admin_or_project_reader_or_service_api":
        "role:admin or rule:project_reader_api or role:service",
    "placement:resource_providers:list": _AOS,
    "placement:resource_providers:create": _AOS,
    "placement:resource_providers:show": _AOS,
    "placement:resource_providers:update": _AOS,
    "placement:resource_providers:delete": _AOS,
    "placement:resource_classes:list": _AOS,
    "placement:resource_classes:create": _AOS,
    "placement:resource_classes:show": _AOS,
    "placement:resource_classes:update": _AOS,
    "placement:resource_classes:delete": _AOS,
    "placement:resource_providers:inventories:list": _AOS,
    "placement:resource_providers:inventories:create": _AOS,
    "placement:resource_providers:inventories:show": _AOS,
    "placement:resource_providers:inventories:update": _AOS,
    "placement:resource_providers:inventories:delete": _AOS,
    "placement:resource_providers:aggregates:list": _AOS,
    "placement:resource_providers:aggregates:update": _AOS,
    "placement:resource_providers:usages": _AOS,
    "placement:usages": "rule:admin_or_project_reader_or_service_api",
    "placement:traits:list": _AOS,
    "placement:traits:show": _AOS,
    "placement:traits:update": _AOS,
    "placement:traits:delete": _AOS,
    "placement:resource_providers:traits:list": _AOS,
    "placement:resource_providers:traits:update": _AOS,
    "placement:resource_providers:traits:delete": _AOS,
    "placement:allocations:manage": _AOS,
    "placement:allocations:list": _AOS,
    "placement:allocations:update": _AOS,
    "placement:allocations:delete": _AOS,
    "placement:resource_providers:allocations:list": _AOS,
    "placement:allocation_candidates:list": _AOS,
    "placement:reshaper:reshape": "rule:service_api",
}
# Placer's own rules, for what the reference lacks, come after the reference's.
PLACER_DEFAULTS = {
    "placement:metrics:show": "rule:admin_api",
    "placement:allocation_candidates:explain": "rule:admin_api",
    "placement:capacity:show": _AOS,
    "placement:audit:show": "rule:admin_api",
}
ALL_RULES = [*DOCUMENTED_DEFAULTS, *PLACER_DEFAULTS]
ADMIN_OR_SERVICE_RULES = [n for n, c in {**DOCUMENTED_DEFAULTS, **PLACER_DEFAULTS}.items()
                          if c == _AOS]
# Only the service role may reshape under the new defaults.
SERVICE_ONLY_RULES = ["service_api", "placement:reshaper:reshape"]

TARGET = {"project_id": "other-project", "user_id": "someone"}


def _msg(action):
    return f"Policy does not allow {action} to be performed."


pytestmark = pytest.mark.usefixtures("fresh_policy")


def _init(new_defaults=True, policy_file=None):
    conf = cfg.ConfigOpts()
    conf([], project="placer-policy-test", default_config_files=[])
    policy_opts.set_defaults(conf)  # registers [oslo_policy] so we can override
    conf.set_override("enforce_new_defaults", new_defaults, group="oslo_policy")
    if policy_file is not None:
        conf.set_override("policy_file", str(policy_file), group="oslo_policy")
    policy.init(conf, policy_defaults(), suppress_deprecation_warnings=True)
    return conf


def _allowed(ctx, action, target=TARGET):
    try:
        policy.authorize(ctx, action, target)
    except exceptions.Forbidden:
        return False
    return True


def _project_ctx(*roles, project_id="my-project"):
    return RequestContext(user_id="u1", project_id=project_id, roles=list(roles))


def test_rule_names_and_defaults_match_docs():
    rules = policy_defaults()
    names = [r.name for r in rules]
    assert names == ALL_RULES
    assert {r.name: r.check_str for r in rules} == {**DOCUMENTED_DEFAULTS, **PLACER_DEFAULTS}
    for rule in rules:
        expected_scope = None if rule.name == "project_reader_api" else ["project"]
        assert rule.scope_types == expected_scope, rule.name


def test_api_rules_are_documented_with_operations():
    by_name = {r.name: r for r in policy_defaults()}
    for name in ALL_RULES[5:]:
        assert isinstance(by_name[name], oslo_policy.DocumentedRuleDefault), name
    assert by_name["placement:resource_providers:inventories:update"].operations == [
        {"method": "PUT", "path": "/resource_providers/{uuid}/inventories"},
        {"method": "PUT", "path": "/resource_providers/{uuid}/inventories/{resource_class}"},
    ]
    assert by_name["placement:reshaper:reshape"].operations == [
        {"method": "POST", "path": "/reshaper"}]


def test_legacy_fallback_is_role_admin_on_base_rules():
    legacy = {r.name: r.deprecated_rule for r in policy_defaults() if r.deprecated_rule}
    assert set(legacy) == {"service_api", "admin_or_service_api", "project_reader_api",
                           "admin_or_project_reader_or_service_api"}
    assert {(d.name, d.check_str) for d in legacy.values()} == {
        ("rule:admin_api", "role:admin")}


def test_authorize_without_init_refuses():
    with pytest.raises(RuntimeError):
        policy.authorize(_project_ctx("admin"), "placement:traits:list", TARGET)


def test_policy_file_defaults_to_policy_yaml():
    conf = _init()
    assert conf.oslo_policy.policy_file == "policy.yaml"
    assert conf.oslo_policy.enforce_new_defaults is True


def test_unregistered_action_is_an_error():
    _init()
    with pytest.raises(oslo_policy.PolicyNotRegistered):
        policy.authorize(_project_ctx("admin"), "placement:nope", TARGET)


def test_admin_allowed_on_every_rule_with_legacy_defaults():
    _init(new_defaults=False)
    admin = _project_ctx("admin")
    assert [r for r in ALL_RULES if not _allowed(admin, r)] == []


def test_admin_under_new_defaults_lacks_only_service_and_reader_rules():
    _init(new_defaults=True)
    admin = _project_ctx("admin")
    denied = [r for r in ALL_RULES if not _allowed(admin, r)]
    assert denied == ["service_api", "project_reader_api", "placement:reshaper:reshape"]


@pytest.mark.parametrize("new_defaults", [True, False])
def test_member_denied_admin_rules_with_exact_message(new_defaults):
    _init(new_defaults=new_defaults)
    member = _project_ctx("member", "reader")
    for action in ["admin_api", *SERVICE_ONLY_RULES, *ADMIN_OR_SERVICE_RULES]:
        with pytest.raises(exceptions.Forbidden) as exc:
            policy.authorize(member, action, TARGET)
        assert exc.value.detail == _msg(action)
        assert exc.value.status == 403


def test_context_can_uses_policy():
    _init()
    with pytest.raises(exceptions.Forbidden, match="placement:traits:list"):
        _project_ctx("member").can("placement:traits:list")
    _project_ctx("admin").can("placement:traits:list")


def test_policy_file_override_opens_rule(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text('"placement:resource_providers:list": "@"\n')
    _init(policy_file=path)
    member = _project_ctx("member")
    assert _allowed(member, "placement:resource_providers:list")
    # Other rules keep their defaults.
    assert not _allowed(member, "placement:resource_providers:show")


def test_policy_file_override_can_close_rule(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text('"placement:traits:list": "!"\n')
    _init(policy_file=path)
    assert not _allowed(_project_ctx("admin"), "placement:traits:list")
    assert _allowed(_project_ctx("admin"), "placement:traits:show")


def test_project_reader_new_defaults():
    _init(new_defaults=True)
    reader = _project_ctx("reader", project_id="p1")
    assert _allowed(reader, "placement:usages", {"project_id": "p1"})
    with pytest.raises(exceptions.Forbidden) as exc:
        policy.authorize(reader, "placement:usages", {"project_id": "p2"})
    assert exc.value.detail == _msg("placement:usages")
    for action in ["admin_api", *SERVICE_ONLY_RULES, *ADMIN_OR_SERVICE_RULES]:
        assert not _allowed(reader, action, {"project_id": "p1"}), action


@pytest.mark.parametrize("role", ["reader", "admin"])
def test_system_scope_rejected_on_project_scoped_rules(role):
    # Every documented placement rule is project-scoped, so a system-scoped
    # token (even a reader on the reader rule) fails the scope check; the
    # reference then reports just the action name.
    _init(new_defaults=True)
    system = RequestContext(user_id="u1", system_scope="all", roles=[role])
    for action in ["placement:usages", "admin_api", *ADMIN_OR_SERVICE_RULES]:
        with pytest.raises(exceptions.Forbidden) as exc:
            policy.authorize(system, action, {"project_id": "p1"})
        assert exc.value.detail == action


@pytest.mark.parametrize("new_defaults", [True, False])
def test_project_service_role(new_defaults):
    _init(new_defaults=new_defaults)
    service = _project_ctx("service", project_id="service-project")
    for action in [*SERVICE_ONLY_RULES, *ADMIN_OR_SERVICE_RULES,
                   "admin_or_project_reader_or_service_api", "placement:usages"]:
        assert _allowed(service, action), action
    for action in ["admin_api", "project_reader_api"]:
        with pytest.raises(exceptions.Forbidden) as exc:
            policy.authorize(service, action, TARGET)
        assert exc.value.detail == _msg(action)


@pytest.mark.parametrize("rule", [n for n, c in PLACER_DEFAULTS.items() if c == "rule:admin_api"])
@pytest.mark.parametrize("new_defaults", [True, False])
def test_placer_admin_rules_are_for_admins_only(new_defaults, rule):
    _init(new_defaults=new_defaults)
    assert _allowed(_project_ctx("admin"), rule)
    for roles in (["member", "reader"], ["service"]):
        with pytest.raises(exceptions.Forbidden) as exc:
            policy.authorize(_project_ctx(*roles), rule, TARGET)
        assert exc.value.detail == _msg(rule)


def test_reset_allows_reinit_with_new_config():
    _init(new_defaults=False)
    assert _allowed(_project_ctx("admin"), "placement:reshaper:reshape")
    policy.reset()
    _init(new_defaults=True)
    assert not _allowed(_project_ctx("admin"), "placement:reshaper:reshape")


# -- memoised decisions ------------------------------------------------------------

CONTEXTS = [_project_ctx("admin"), _project_ctx("member"), _project_ctx("reader", "member"),
            _project_ctx("service"), _project_ctx("reader", project_id="other-project"),
            RequestContext(user_id="u2", system_scope="all", roles=["admin"])]


def _decisions(targets=(TARGET, {"project_id": "my-project", "user_id": "u1"})):
    return [_allowed(ctx, rule, target)
            for ctx in CONTEXTS for rule in ALL_RULES for target in targets]


def _fresh_decisions(conf, targets=(TARGET, {"project_id": "my-project", "user_id": "u1"})):
    """The same decisions from a new enforcer, not memoised."""
    policy.reset()
    policy.init(conf, policy_defaults(), suppress_deprecation_warnings=True)
    policy.MEMOISE = False
    try:
        return _decisions(targets)
    finally:
        policy.MEMOISE = True


_AHEAD = itertools.count(1)  # seconds: each edit later than the last


def _touch(path, text):
    """Write ``text`` with an mtime surely past the last one (file times
    move in clock ticks: two writes in one tick of the same size look alike,
    to oslo.policy too)."""
    stamp = time.time_ns() + next(_AHEAD) * 10**9
    path.write_text(text)
    os.utime(path, ns=(stamp, stamp))


@pytest.mark.parametrize("new_defaults", [True, False])
def test_memoised_decisions_are_oslo_policys(new_defaults):
    conf = _init(new_defaults=new_defaults)
    first = _decisions()
    assert _decisions() == first  # answered from the memo
    assert first == _fresh_decisions(conf)


def test_policy_file_edited_while_serving_changes_the_next_decision(tmp_path):
    path = tmp_path / "policy.yaml"
    _touch(path, '"placement:traits:list": "!"\n')
    conf = _init(policy_file=path)
    admin, member = _project_ctx("admin"), _project_ctx("member")
    assert not _allowed(admin, "placement:traits:list")
    assert not _allowed(member, "placement:traits:list")
    _touch(path, '"placement:traits:list": "@"\n')  # opened, to all
    assert _allowed(admin, "placement:traits:list")
    assert _allowed(member, "placement:traits:list")
    _touch(path, '"placement:traits:list": "!"\n')  # closed again: same size
    assert not _allowed(admin, "placement:traits:list")
    edited = _decisions()
    assert edited == _fresh_decisions(conf)


def test_policy_file_created_and_removed_while_serving(tmp_path):
    path = tmp_path / "policy.yaml"
    conf = _init(policy_file=path)  # not there yet
    admin = _project_ctx("admin")
    assert _allowed(admin, "placement:traits:list")
    _touch(path, '"placement:traits:list": "!"\n')
    assert not _allowed(admin, "placement:traits:list")
    assert _decisions() == _fresh_decisions(conf)
    policy.reset()
    conf = _init(policy_file=path)
    assert not _allowed(admin, "placement:traits:list")
    path.unlink()  # oslo.policy then reads no rules from it: the defaults again
    assert _allowed(admin, "placement:traits:list")


def test_policy_dir_file_added_while_serving(tmp_path):
    path = tmp_path / "policy.yaml"
    _touch(path, '"placement:traits:show": "@"\n')
    conf = cfg.ConfigOpts()
    conf([], project="placer-policy-test", default_config_files=[])
    policy_opts.set_defaults(conf)
    conf.set_override("policy_file", str(path), group="oslo_policy")
    conf.set_override("policy_dirs", [str(tmp_path / "policy.d")], group="oslo_policy")
    policy.init(conf, policy_defaults(), suppress_deprecation_warnings=True)
    admin = _project_ctx("admin")
    assert _allowed(admin, "placement:traits:list")
    (tmp_path / "policy.d").mkdir()
    _touch(tmp_path / "policy.d" / "10-close.yaml", '"placement:traits:list": "!"\n')
    assert not _allowed(admin, "placement:traits:list")
    _touch(tmp_path / "policy.d" / "10-close.yaml", '"placement:traits:list": "@"\n')
    assert _allowed(admin, "placement:traits:list")
    assert _allowed(_project_ctx("member"), "placement:traits:show")


def test_a_rule_with_an_http_check_is_not_memoised(tmp_path, monkeypatch):
    """An ``http:`` check asks a server each time: nothing is memoised."""
    path = tmp_path / "policy.yaml"
    _touch(path, '"placement:traits:list": "http://policy.test/check"\n')
    _init(policy_file=path)
    asked = []

    def answer(self, target, creds, enforcer, current_rule=None):
        asked.append(creds["user_id"])
        return len(asked) % 2 == 1

    monkeypatch.setattr(_external.HttpCheck, "__call__", answer)
    admin = _project_ctx("admin")
    assert [_allowed(admin, "placement:traits:list") for _ in range(4)] == [
        True, False, True, False]
    assert asked == ["u1"] * 4


@pytest.mark.parametrize("where", ["config_file", "config_dir"])
def test_policy_yaml_created_beside_the_configuration_while_serving(tmp_path, where):
    """``policy.yaml`` found as oslo.policy finds it: beside a configuration
    file or in a --config-dir, created after the first decision."""
    (tmp_path / "placement.conf").write_text("")
    conf = cfg.ConfigOpts()
    args = (["--config-file", str(tmp_path / "placement.conf")] if where == "config_file"
            else ["--config-dir", str(tmp_path)])
    conf(args, project="placer-policy-test", default_config_files=[])
    policy_opts.set_defaults(conf, policy_file="policy.yaml")
    policy.init(conf, policy_defaults(), suppress_deprecation_warnings=True)
    admin = _project_ctx("admin")
    assert _allowed(admin, "placement:traits:list")
    _touch(tmp_path / "policy.yaml", '"placement:traits:list": "!"\n')
    assert not _allowed(admin, "placement:traits:list")
    _touch(tmp_path / "policy.yaml", '"placement:traits:list": "@"\n')
    assert _allowed(_project_ctx("member"), "placement:traits:list")
