"""Policy rules and enforcement, matching openstack-placement 16.0.0.

Rule names, check strings, scope types and the legacy (deprecated) fallback
are part of the public contract: operators' policy.yaml files refer to them,
so they must stay byte-for-byte identical to placement's.
"""

import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

from oslo_config import cfg
from oslo_policy import _checks
from oslo_policy import opts as policy_opts
from oslo_policy import policy as oslo_policy

from placer import exceptions

LOG = logging.getLogger("placement.policy")

# Placement ships "policy.yaml" as the default file name (not oslo's old JSON).
DEFAULT_POLICY_FILE = "policy.yaml"

FORBIDDEN_MSG = "Policy does not allow %(action)s to be performed."

ADMIN = "rule:admin_api"
SERVICE = "rule:service_api"
ADMIN_OR_SERVICE = "rule:admin_or_service_api"
ADMIN_OR_PROJECT_READER_OR_SERVICE = "rule:admin_or_project_reader_or_service_api"

_PROJECT = ["project"]

# With [oslo_policy] enforce_new_defaults=False oslo.policy ORs this legacy
# check into each base rule that carries it, so plain admins keep working.
# The odd name ("rule:admin_api") is what placement registers; keep it so a
# policy file overriding that key behaves the same.
_LEGACY_ADMIN = oslo_policy.DeprecatedRule(
    name=ADMIN,
    check_str="role:admin",
    deprecated_reason=(
        "Placement API policies are introducing new default roles with "
        "scope_type capabilities. Old policies are deprecated and silently "
        "going to be ignored in the placement 6.0.0 (Xena) release."
    ),
    deprecated_since="W",
)

# (name, check_str, description, scope_types, legacy fallback)
_BASE_RULES = [
    ("admin_api", "role:admin",
     "Default rule for most placement APIs.", _PROJECT, None),
    ("service_api", "role:service",
     "Default rule for service-to-service placement APIs.", _PROJECT, _LEGACY_ADMIN),
    ("admin_or_service_api", "role:admin or role:service",
     "Default rule for most placement APIs.", _PROJECT, _LEGACY_ADMIN),
    # Placement leaves this one without scope_types; copy that quirk.
    ("project_reader_api", "role:reader and project_id:%(project_id)s",
     "Default rule for Project level reader APIs.", None, _LEGACY_ADMIN),
    ("admin_or_project_reader_or_service_api",
     "role:admin or rule:project_reader_api or role:service",
     "Default rule for project level reader APIs.", _PROJECT, _LEGACY_ADMIN),
]

# The API rule names. Only here are they written out: each route of
# ``placer.route_table`` names the rule the router checks for it.
RESOURCE_PROVIDERS_LIST = "placement:resource_providers:list"
RESOURCE_PROVIDERS_CREATE = "placement:resource_providers:create"
RESOURCE_PROVIDERS_SHOW = "placement:resource_providers:show"
RESOURCE_PROVIDERS_UPDATE = "placement:resource_providers:update"
RESOURCE_PROVIDERS_DELETE = "placement:resource_providers:delete"
RESOURCE_CLASSES_LIST = "placement:resource_classes:list"
RESOURCE_CLASSES_CREATE = "placement:resource_classes:create"
RESOURCE_CLASSES_SHOW = "placement:resource_classes:show"
RESOURCE_CLASSES_UPDATE = "placement:resource_classes:update"
RESOURCE_CLASSES_DELETE = "placement:resource_classes:delete"
INVENTORIES_LIST = "placement:resource_providers:inventories:list"
INVENTORIES_CREATE = "placement:resource_providers:inventories:create"
INVENTORIES_SHOW = "placement:resource_providers:inventories:show"
INVENTORIES_UPDATE = "placement:resource_providers:inventories:update"
INVENTORIES_DELETE = "placement:resource_providers:inventories:delete"
AGGREGATES_LIST = "placement:resource_providers:aggregates:list"
AGGREGATES_UPDATE = "placement:resource_providers:aggregates:update"
PROVIDER_USAGES = "placement:resource_providers:usages"
TOTAL_USAGES = "placement:usages"
TRAITS_LIST = "placement:traits:list"
TRAITS_SHOW = "placement:traits:show"
TRAITS_UPDATE = "placement:traits:update"
TRAITS_DELETE = "placement:traits:delete"
PROVIDER_TRAITS_LIST = "placement:resource_providers:traits:list"
PROVIDER_TRAITS_UPDATE = "placement:resource_providers:traits:update"
PROVIDER_TRAITS_DELETE = "placement:resource_providers:traits:delete"
ALLOCATIONS_MANAGE = "placement:allocations:manage"
ALLOCATIONS_LIST = "placement:allocations:list"
ALLOCATIONS_UPDATE = "placement:allocations:update"
ALLOCATIONS_DELETE = "placement:allocations:delete"
PROVIDER_ALLOCATIONS_LIST = "placement:resource_providers:allocations:list"
ALLOCATION_CANDIDATES_LIST = "placement:allocation_candidates:list"
RESHAPE = "placement:reshaper:reshape"

# (name, check_str, description); all project-scoped. The operations the
# sample policy file lists for a rule are the routes of placer.route_table
# that name it (see ``defaults``).
_API_RULES = [
    (RESOURCE_PROVIDERS_LIST, ADMIN_OR_SERVICE, "List resource providers."),
    (RESOURCE_PROVIDERS_CREATE, ADMIN_OR_SERVICE, "Create resource provider."),
    (RESOURCE_PROVIDERS_SHOW, ADMIN_OR_SERVICE, "Show resource provider."),
    (RESOURCE_PROVIDERS_UPDATE, ADMIN_OR_SERVICE, "Update resource provider."),
    (RESOURCE_PROVIDERS_DELETE, ADMIN_OR_SERVICE, "Delete resource provider."),
    (RESOURCE_CLASSES_LIST, ADMIN_OR_SERVICE, "List resource classes."),
    (RESOURCE_CLASSES_CREATE, ADMIN_OR_SERVICE, "Create resource class."),
    (RESOURCE_CLASSES_SHOW, ADMIN_OR_SERVICE, "Show resource class."),
    (RESOURCE_CLASSES_UPDATE, ADMIN_OR_SERVICE, "Update resource class."),
    (RESOURCE_CLASSES_DELETE, ADMIN_OR_SERVICE, "Delete resource class."),
    (INVENTORIES_LIST, ADMIN_OR_SERVICE, "List resource provider inventories."),
    (INVENTORIES_CREATE, ADMIN_OR_SERVICE, "Create one resource provider inventory."),
    (INVENTORIES_SHOW, ADMIN_OR_SERVICE, "Show resource provider inventory."),
    (INVENTORIES_UPDATE, ADMIN_OR_SERVICE, "Update resource provider inventory."),
    (INVENTORIES_DELETE, ADMIN_OR_SERVICE, "Delete resource provider inventory."),
    (AGGREGATES_LIST, ADMIN_OR_SERVICE, "List resource provider aggregates."),
    (AGGREGATES_UPDATE, ADMIN_OR_SERVICE, "Update resource provider aggregates."),
    (PROVIDER_USAGES, ADMIN_OR_SERVICE, "List resource provider usages."),
    (TOTAL_USAGES, ADMIN_OR_PROJECT_READER_OR_SERVICE,
     "List total resource usages for a given project."),
    (TRAITS_LIST, ADMIN_OR_SERVICE, "List traits."),
    (TRAITS_SHOW, ADMIN_OR_SERVICE, "Show trait."),
    (TRAITS_UPDATE, ADMIN_OR_SERVICE, "Update trait."),
    (TRAITS_DELETE, ADMIN_OR_SERVICE, "Delete trait."),
    (PROVIDER_TRAITS_LIST, ADMIN_OR_SERVICE, "List resource provider traits."),
    (PROVIDER_TRAITS_UPDATE, ADMIN_OR_SERVICE, "Update resource provider traits."),
    (PROVIDER_TRAITS_DELETE, ADMIN_OR_SERVICE, "Delete resource provider traits."),
    (ALLOCATIONS_MANAGE, ADMIN_OR_SERVICE, "Manage allocations."),
    (ALLOCATIONS_LIST, ADMIN_OR_SERVICE, "List allocations."),
    (ALLOCATIONS_UPDATE, ADMIN_OR_SERVICE, "Update allocations."),
    (ALLOCATIONS_DELETE, ADMIN_OR_SERVICE, "Delete allocations."),
    (PROVIDER_ALLOCATIONS_LIST, ADMIN_OR_SERVICE, "List resource provider allocations."),
    (ALLOCATION_CANDIDATES_LIST, ADMIN_OR_SERVICE, "List allocation candidates."),
    (RESHAPE, SERVICE, "Reshape Inventory and Allocations."),
]

# Placer's own rules, for what the reference does not have (same form, listed
# after the reference's rules).
METRICS_SHOW = "placement:metrics:show"
ALLOCATION_CANDIDATES_EXPLAIN = "placement:allocation_candidates:explain"
CAPACITY_SHOW = "placement:capacity:show"
AUDIT_SHOW = "placement:audit:show"

_PLACER_RULES = [
    (METRICS_SHOW, ADMIN, "Read the Prometheus metrics ([placer] metrics_enabled)."),
    (ALLOCATION_CANDIDATES_EXPLAIN, ADMIN,
     "Explain an allocation candidates query: what each constraint leaves."),
    (CAPACITY_SHOW, ADMIN_OR_SERVICE,
     "Count how many copies of candidate queries fit, or the free capacity per class."),
    (AUDIT_SHOW, ADMIN,
     "List what is inconsistent in the cloud: allocations over capacity, against unit "
     "limits or without inventory, consumers split over trees or without allocations, "
     "idle providers, unused projects and users."),
]


def defaults(operations: Mapping[str, list[tuple[str, str]]]) -> list[oslo_policy.RuleDefault]:
    """All rule defaults, base rules first (the order of placement's sample
    file); ``operations``: rule name -> the (method, path) pairs that check
    it, which placer.route_table gives."""
    rules: list[oslo_policy.RuleDefault] = [
        oslo_policy.RuleDefault(name, check, description=desc, scope_types=scopes,
                                deprecated_rule=legacy)
        for name, check, desc, scopes, legacy in _BASE_RULES
    ]
    rules.extend(
        oslo_policy.DocumentedRuleDefault(
            name, check, desc, [{"method": m, "path": p} for m, p in operations[name]],
            scope_types=list(_PROJECT))
        for name, check, desc in (*_API_RULES, *_PLACER_RULES)
    )
    return rules


_ENFORCER: oslo_policy.Enforcer | None = None
_DECISIONS: "_Decisions | None" = None
_LOCK = threading.Lock()

# Whether authorize() memoises decisions (tests turn it off to compare).
MEMOISE = True


def init(conf: cfg.ConfigOpts, rules: list[oslo_policy.RuleDefault],
         suppress_deprecation_warnings: bool = False) -> None:
    """Create the process-wide enforcer from ``conf`` with the ``rules``'
    defaults (idempotent).

    ``[oslo_policy] policy_file``/``enforce_new_defaults`` come from ``conf``.
    Scope checking is left to oslo.policy, as in the reference: releases that
    still have ``[oslo_policy] enforce_scope`` read it, 6.x always enforce.
    """
    global _ENFORCER, _DECISIONS
    with _LOCK:
        if _ENFORCER is not None:
            return
        policy_opts.set_defaults(conf, policy_file=DEFAULT_POLICY_FILE)
        enforcer = oslo_policy.Enforcer(conf)
        # Every base rule changed its default; like placement, don't spam a
        # warning per rule on each start.
        enforcer.suppress_default_change_warnings = True
        enforcer.suppress_deprecation_warnings = suppress_deprecation_warnings
        enforcer.register_defaults(rules)
        # Fail at start-up, not on first request, if the policy file is bad.
        enforcer.load_rules()
        _ENFORCER = enforcer
        _DECISIONS = _Decisions(enforcer, conf)


def reset() -> None:
    """Drop the enforcer so tests can init() again with other config."""
    global _ENFORCER, _DECISIONS
    with _LOCK:
        if _ENFORCER is not None:
            _ENFORCER.clear()
        _ENFORCER = None
        _DECISIONS = None


def get_enforcer(rules: list[oslo_policy.RuleDefault]) -> oslo_policy.Enforcer:
    """The live enforcer. The oslopolicy tools (entry point oslo.policy.enforcer,
    placer.route_table.policy_enforcer) call this in a fresh process: then it
    is built with ``rules`` from the tool's
    ``--config-file`` or, as the reference does, from the placement.conf
    oslo.config finds (for ``[oslo_policy] policy_file``)."""
    if _ENFORCER is None:
        if not getattr(cfg.CONF, "config_file", None):
            cfg.CONF([], project="placement")
        init(cfg.CONF, rules)
    assert _ENFORCER is not None
    return _ENFORCER


# The checks whose answer depends on nothing but the rules, the credentials
# and the target (an ``http:`` check asks a server: never memoised).
_PURE_CHECKS = (_checks.TrueCheck, _checks.FalseCheck, _checks.NotCheck, _checks.AndCheck,
                _checks.OrCheck, _checks.RuleCheck, _checks.RoleCheck, _checks.GenericCheck)
_ALLOWED, _DENIED, _BAD_SCOPE = "allowed", "denied", "scope"
_MAX_DECISIONS = 4096


def _pure(check) -> bool:
    if type(check) not in _PURE_CHECKS:
        return False
    if isinstance(check, (_checks.AndCheck, _checks.OrCheck)):
        return all(_pure(rule) for rule in check.rules)
    if isinstance(check, _checks.NotCheck):
        return _pure(check.rule)
    return True


def _frozen(values: Mapping[str, Any]) -> tuple[Any, ...]:
    """A flat mapping of credentials or target as a key (TypeError: a value
    that cannot be one)."""
    key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                       for k, v in values.items()))
    hash(key)
    return key


class _Decisions:
    """oslo.policy's decisions, memoised: (rule, the credentials, the
    target) -> allowed, denied or out of scope.

    oslo.policy looks for the policy file and the policy directories in
    every configuration directory and stats them on each ``enforce``, and
    builds the credentials anew. Here, each ``authorize`` stats only the
    paths where oslo.policy could find them (the policy file and each
    ``policy_dirs`` entry in each directory ``conf.find_file`` searches,
    and the files of an existing policy directory): when any of them
    changed (appeared, went, or changed its mtime, size or inode) the
    rules are reloaded from the files and the memo starts empty, so a
    decision follows an edited ``policy.yaml`` at the next request. Rules
    with a check other than oslo.policy's own pure ones (an ``http:``
    check) are never memoised."""

    def __init__(self, enforcer: oslo_policy.Enforcer, conf: cfg.ConfigOpts):
        self.enforcer = enforcer
        self._lock = threading.Lock()
        self._paths, self._dirs = self._watched(conf)
        # (the files as stat saw them, the enforcer's rules, how many, the memo)
        self._view: tuple[Any, Any, int, dict[tuple[Any, ...], str] | None] | None = None

    @staticmethod
    def _watched(conf: cfg.ConfigOpts) -> tuple[list[str], list[str]]:
        """The paths ``conf.find_file`` tries for the policy file and the
        policy directories (as oslo.config's ``find_file`` orders them)."""
        dirs: list[str] = []
        # every --config-dir, as find_file reads them (the option holds the last)
        config_dirs = getattr(getattr(conf, "_namespace", None), "_config_dirs", None)
        if config_dirs is None:
            config_dir = getattr(conf, "config_dir", None) or []
            config_dirs = [config_dir] if isinstance(config_dir, str) else list(config_dir)
        for directory in config_dirs:
            dirs.append(os.path.abspath(os.path.expanduser(directory)))
        for config_file in reversed(list(getattr(conf, "config_file", None) or [])):
            dirs.append(os.path.dirname(os.path.abspath(os.path.expanduser(config_file))))
        project = getattr(conf, "project", None)
        home = os.path.expanduser("~")
        dirs.extend(d for d in (
            os.path.join(home, "." + project) if project else None, home,
            os.path.join("/etc", project) if project else None, "/etc",
            os.path.join(os.environ.get("SNAP_COMMON", ""), "etc", project)
            if os.environ.get("SNAP_COMMON") and project else None,
            os.path.join(os.environ.get("SNAP", ""), "etc", project)
            if os.environ.get("SNAP") and project else None) if d)
        files = [os.path.join(d, conf.oslo_policy.policy_file) for d in dirs]
        policy_dirs = [os.path.join(d, name) for name in conf.oslo_policy.policy_dirs
                       for d in dirs]
        return files, policy_dirs

    def _files(self) -> tuple[Any, ...]:
        """What the policy files are now, as ``_stat`` sees them."""
        found: list[Any] = []
        # once found, oslo.policy reads its policy file there, and looks no more
        found_file = self.enforcer.policy_path
        for path in [found_file] if found_file else self._paths:
            found.append(_stat(path))
        for path in self._dirs:
            state = _stat(path)
            found.append(state)
            if state is not None:
                try:
                    names = sorted(os.listdir(path))
                except OSError:
                    found.append(None)
                    continue
                found.extend((name, _stat(os.path.join(path, name))) for name in names)
        return tuple(found)

    def _current(self) -> dict[tuple[Any, ...], str] | None:
        """The memo for the rules as the files are now (None: not memoised).
        The files, the rules and their memo are published together."""
        view, files, rules = self._view, self._files(), self.enforcer.rules
        if view is None or files != view[0] or rules is not view[1] or len(rules) != view[2]:
            with self._lock:
                view, files = self._view, self._files()
                if view is None or files != view[0]:
                    # stat before reading, so the rules read are never older
                    # than the files the memo is kept for; read them again
                    # even for an edit within oslo.policy's mtime resolution
                    self.enforcer.load_rules(force_reload=view is not None)
                rules = self.enforcer.rules
                memo: dict[tuple[Any, ...], str] | None = (
                    {} if all(_pure(c) for c in rules.values()) else None)
                view = self._view = (files, rules, len(rules), memo)
        return view[3]

    def authorize(self, context, action: str, target: dict, memoise: bool = True) -> bool:
        if not memoise:
            return _answer(self._decide(context, action, target), context, action)
        memo = self._current()
        key = None
        if memo is not None:
            try:
                key = (action, _frozen(context.to_policy_values()), _frozen(target))
            except TypeError:
                key = None
            decision = memo.get(key) if key is not None else None
            if decision is not None:
                return _answer(decision, context, action)
        decision = self._decide(context, action, target)
        if key is not None and memo is not None:
            if len(memo) >= _MAX_DECISIONS:
                memo.clear()
            memo[key] = decision
        return _answer(decision, context, action)

    def _decide(self, context, action: str, target: dict) -> str:
        """oslo.policy's decision (which reloads the files if it sees them changed)."""
        try:
            self.enforcer.authorize(action, target, context, True,
                                    exceptions.Forbidden, FORBIDDEN_MSG % {"action": action})
        except oslo_policy.InvalidScope:
            return _BAD_SCOPE
        except exceptions.Forbidden:
            return _DENIED
        return _ALLOWED


def _stat(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _answer(decision: str, context, action: str) -> bool:
    if decision == _ALLOWED:
        return True
    if decision == _BAD_SCOPE:
        # Placement builds PolicyNotAuthorized(action) here, whose message is
        # then the bare action name; reproduce that text for parity.
        LOG.debug("Policy check for %s failed: token scope not allowed", action)
        raise exceptions.Forbidden(action)
    LOG.debug("Policy check for %s failed with credentials %s",
              action, context.to_policy_values())
    raise exceptions.Forbidden(FORBIDDEN_MSG % {"action": action})


def authorize(context, action: str, target: dict):
    """Return a truthy value if ``context`` may do ``action`` on ``target``.

    Raises ``exceptions.Forbidden`` otherwise. Unregistered actions raise
    oslo.policy's ``PolicyNotRegistered`` (a programming error, so a 500).
    Decisions are memoised (``_Decisions``) unless ``MEMOISE`` is off.
    """
    decisions = _DECISIONS
    if decisions is None:
        # Refuse rather than allow: an un-initialised policy must never pass.
        raise RuntimeError("placer.policy.init() must be called before authorize()")
    return decisions.authorize(context, action, target, MEMOISE)
