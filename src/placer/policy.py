"""Policy rules and enforcement, matching openstack-placement 16.0.0.

Rule names, check strings, scope types and the legacy (deprecated) fallback
are part of the public contract: operators' policy.yaml files refer to them,
so they must stay byte-for-byte identical to placement's.
"""

import logging
import threading
from collections.abc import Mapping

from oslo_config import cfg
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
_LOCK = threading.Lock()


def init(conf: cfg.ConfigOpts, rules: list[oslo_policy.RuleDefault],
         suppress_deprecation_warnings: bool = False) -> None:
    """Create the process-wide enforcer from ``conf`` with the ``rules``'
    defaults (idempotent).

    ``[oslo_policy] policy_file``/``enforce_new_defaults`` come from ``conf``.
    Scope checking is left to oslo.policy, as in the reference: releases that
    still have ``[oslo_policy] enforce_scope`` read it, 6.x always enforce.
    """
    global _ENFORCER
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


def reset() -> None:
    """Drop the enforcer so tests can init() again with other config."""
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is not None:
            _ENFORCER.clear()
        _ENFORCER = None


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


def authorize(context, action: str, target: dict):
    """Return a truthy value if ``context`` may do ``action`` on ``target``.

    Raises ``exceptions.Forbidden`` otherwise. Unregistered actions raise
    oslo.policy's ``PolicyNotRegistered`` (a programming error, so a 500).
    """
    enforcer = _ENFORCER
    if enforcer is None:
        # Refuse rather than allow: an un-initialised policy must never pass.
        raise RuntimeError("placer.policy.init() must be called before authorize()")
    try:
        return enforcer.authorize(action, target, context, True,
                                  exceptions.Forbidden, FORBIDDEN_MSG % {"action": action})
    except oslo_policy.InvalidScope:
        # Placement builds PolicyNotAuthorized(action) here, whose message is
        # then the bare action name; reproduce that text for parity.
        LOG.debug("Policy check for %s failed: token scope not allowed", action)
        raise exceptions.Forbidden(action) from None
    except exceptions.Forbidden:
        LOG.debug("Policy check for %s failed with credentials %s",
                  action, context.to_policy_values())
        raise
