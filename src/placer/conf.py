"""Configuration options, in the reference's groups with its names and defaults.

An upstream ``placement.conf`` must work unchanged, so every option the
reference registers is registered here too, even those Placer does not act on
(their help says "Accepted for compatibility", as docs/api/differences.md lists them).
"""

import os

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
from oslo_log import log as oslo_log
from oslo_middleware import cors, http_proxy_to_wsgi, sizelimit
from oslo_middleware.healthcheck import opts as healthcheck_opts
from oslo_policy import opts as policy_opts

from placer.http import bodylimit

DEFAULT_CONSUMER_MISSING_ID = "00000000-0000-0000-0000-000000000000"

_default_opts = [
    cfg.StrOpt("tempdir", help="Accepted for compatibility; unused."),
    cfg.StrOpt("pybasedir", default=os.path.abspath(os.path.dirname(__file__)),
               sample_default="<Path>", help="Accepted for compatibility; unused."),
    cfg.StrOpt("state_path", default="$pybasedir",
               help="Accepted for compatibility; unused."),
    cfg.BoolOpt("log_options", default=True,
                help="Log the values of all options at start-up (DEBUG level)."),
]

_api_opts = [
    cfg.StrOpt("auth_strategy", default="keystone", choices=("keystone", "noauth2"),
               deprecated_group="DEFAULT",
               help="Authentication strategy: keystone, or noauth2 (testing only: "
                    "no credential checking, token 'admin' is an administrator)."),
]

_placement_opts = [
    cfg.BoolOpt("randomize_allocation_candidates", default=False,
                help="Visit roots and candidates in a random order, so that a limited "
                     "answer is a random sample (a whole answer comes in a random order)."),
    cfg.StrOpt("incomplete_consumer_project_id", default=DEFAULT_CONSUMER_MISSING_ID,
               help="Project id recorded for allocations written before microversion 1.8."),
    cfg.StrOpt("incomplete_consumer_user_id", default=DEFAULT_CONSUMER_MISSING_ID,
               help="User id recorded for allocations written before microversion 1.8."),
    cfg.IntOpt("allocation_conflict_retry_count", default=10,
               help="Server-side retries of an allocation write on a provider "
                    "generation conflict."),
    cfg.IntOpt("max_allocation_candidates", default=-1,
               help="Most allocation candidates generated for one request (-1: no limit)."),
    cfg.StrOpt("allocation_candidates_generation_strategy", default="depth-first",
               choices=("depth-first", "breadth-first"),
               help="Order in which viable roots are visited when generating candidates."),
]

_database_opts = [
    cfg.StrOpt("connection", required=True, secret=True,
               help="SQLAlchemy URL of the placement database."),
    cfg.StrOpt("connection_parameters", default="",
               help="Extra query parameters appended to the connection URL."),
    cfg.BoolOpt("sqlite_synchronous", default=True,
                help="SQLite's PRAGMA synchronous: NORMAL when True, OFF when False."),
    cfg.StrOpt("slave_connection", secret=True, help="Accepted for compatibility; unused."),
    cfg.StrOpt("mysql_sql_mode", default="TRADITIONAL",
               help="SQL mode set on MySQL/MariaDB sessions."),
    cfg.IntOpt("mysql_wsrep_sync_wait",
               help="For Galera only, configure wsrep_sync_wait causality checks on new "
                    "connections. Default is None, meaning don't configure any setting "
                    "(1 makes every read wait until the node has applied all writes the "
                    "cluster committed before it: causal reads)."),
    cfg.IntOpt("connection_recycle_time", default=3600,
               help="Seconds after which a pooled connection is replaced."),
    cfg.IntOpt("max_pool_size",
               help="Most connections kept open in the pool (PostgreSQL, MySQL)."),
    cfg.IntOpt("max_retries", default=10,
               help="Connection attempts at start-up (-1: forever, 0: no check)."),
    cfg.IntOpt("retry_interval", default=10, help="Seconds between connection attempts."),
    cfg.IntOpt("max_overflow",
               help="Connections allowed beyond max_pool_size (PostgreSQL, MySQL)."),
    cfg.IntOpt("connection_debug", default=0,
               help="SQL logging: 0 none, 50 or more statements, 100 results too."),
    cfg.BoolOpt("connection_trace", default=False, help="Accepted for compatibility; unused."),
    cfg.IntOpt("pool_timeout",
               help="Seconds to wait for a pooled connection (PostgreSQL, MySQL)."),
    cfg.BoolOpt("sync_on_startup", default=False,
                help="Run database migrations when the web service starts."),
]

_workaround_opts = [
    cfg.BoolOpt("optimize_for_wide_provider_trees", default=False,
                help="Accepted for compatibility: Placer's candidate search is always "
                     "lazy, so wide trees need no workaround."),
]

# The candidate orders (placer.candidates.order.ORDERS: the engine's names,
# which a test holds equal; options import no engine).
CANDIDATE_ORDERS = ("id", "random", "spread", "pack")

# Placer's own options, beyond the reference's (which has no [placer] group).
_placer_opts = [
    cfg.BoolOpt("metrics_enabled", default=False,
                help="Serve Prometheus metrics at GET /metrics (policy rule "
                     "placement:metrics:show, admin by default): request counts and "
                     "latencies per route, allocation candidate query sizes and times, "
                     "generation conflicts, retries and database errors. When False, "
                     "/metrics is 404 like any unknown path."),
    cfg.StrOpt("candidate_order", choices=CANDIDATE_ORDERS,
               help="Which roots a limited GET /allocation_candidates answer comes from, "
                    "and in which order. id: by provider id (the reference's order); "
                    "random: a random sample (what [placement] "
                    "randomize_allocation_candidates does); spread: the trees with the "
                    "most free capacity of the requested classes first; pack: the least "
                    "free first, among those that fit. Unset: random if [placement] "
                    "randomize_allocation_candidates is true, else id; when set, it wins "
                    "over that option. See docs/operator/candidate-order.md."),
    cfg.DictOpt("candidate_order_weights", default={},
                help="Weight of each resource class in the spread and pack scores, as "
                     "CLASS:MULTIPLIER pairs (like Nova's RAM, CPU and disk weigher "
                     "multipliers); classes not listed weigh 1.0, 0 leaves a class out. "
                     "Multipliers are 0 or more."),
    cfg.FloatOpt("candidate_order_pool", default=2.0, min=1.0,
                 help="Herd avoidance for spread and pack: a limited answer is drawn at "
                      "random from the best pool x limit roots that fit, so that "
                      "schedulers asking at once do not all get the same first hosts. "
                      "1.0 gives the exact order."),
    cfg.BoolOpt("metrics_open", default=False,
                help="Serve GET /metrics without a token and without its policy rule, "
                     "for a Prometheus with a static scrape configuration (it cannot renew "
                     "a Keystone token). Anyone who reaches the port then reads the metrics, "
                     "provider names and capacity included: serve it only where the "
                     "network limits who does."),
    cfg.FloatOpt("capacity_time_budget", default=2.0, min=0.0,
                 help="Seconds GET and POST /capacity may spend, per shape, in the integer "
                      "programs that count copies on trees no closed form answers; a root "
                      "not proven by then answers a lower bound marked \"exact\": false."),
    cfg.BoolOpt("capacity_metrics", default=False,
                help="Also serve at GET /metrics (metrics_enabled) the placement gauges of "
                     "openstack-exporter 1.7.0 (openstack_placement_resource_total, "
                     "_allocation_ratio, _reserved, _usage, openstack_placement_up) and, "
                     "for each of capacity_shapes, os-capacity's "
                     "openstack_free_capacity_by_flavor_total and "
                     "openstack_free_capacity_hypervisor_by_flavor, read from the database "
                     "at each scrape."),
    cfg.MultiStrOpt("capacity_shapes", default=[],
                    help="Named candidate queries counted by the capacity metrics and "
                         "placement-manage capacity, each NAME=QUERY, e.g. "
                         "m1.large=resources=VCPU:4,MEMORY_MB:8192 (parsed at the latest "
                         "microversion). Repeat the option for several shapes."),
    cfg.DictOpt("capacity_az_aggregates", default={},
                help="Aggregate uuid:availability zone name pairs: the az_aggregate label "
                     "of openstack_free_capacity_hypervisor_by_flavor for the hosts in "
                     "each aggregate (empty when a host is in none)."),
    cfg.DictOpt("capacity_project_aggregates", default={},
                help="Aggregate uuid:name pairs: the project_aggregate label of "
                     "openstack_free_capacity_hypervisor_by_flavor for the hosts in each "
                     "aggregate (empty when a host is in none)."),
    cfg.IntOpt("provider_cache_size", default=100000, min=0,
               help="Providers whose inventories and traits each API worker keeps "
                    "between candidate requests (300 bytes to 1.6 KiB each: equal records "
                    "are kept once), so that only their "
                    "usages and generations are read again: a record is used only while "
                    "its provider's generation, which every write of them bumps, is "
                    "unchanged in the database. 0 reads them on every request."),
    cfg.BoolOpt("audit_metrics", default=False,
                help="Also serve at GET /metrics (metrics_enabled) the audit's gauges, "
                     "read from the database at each scrape: "
                     "placement_audit_findings{kind} (what GET /audit counts, per kind) and "
                     "placement_audit_over_capacity_excess (how far each provider's class "
                     "is over its capacity). See docs/operator/audit.md."),
]

GROUPS = {
    "api": _api_opts,
    "placement": _placement_opts,
    "placement_database": _database_opts,
    "workarounds": _workaround_opts,
    "placer": _placer_opts,
}


# [nova]: how placement-manage audit --nova reaches Nova's compute API, in
# keystoneauth's own options (auth, session, adapter), as Nova configures its
# placement client: the adapter's defaults are Nova's (placer/nova.py).
NOVA_GROUP = "nova"
NOVA_ADAPTER_DEFAULTS = {"service_type": "compute", "valid_interfaces": ["internal", "public"]}


def _nova_opts() -> list[cfg.Opt]:
    """[nova]'s options for the config generator: the session's, the auth
    plugin's (auth_type, auth_section, and those of the password plugin, the
    usual one), the adapter's with Nova's defaults."""
    adapter = ks_loading.get_adapter_conf_options(include_deprecated=False)
    cfg.set_defaults(adapter, **NOVA_ADAPTER_DEFAULTS)
    return (ks_loading.get_session_conf_options() + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options("password") + adapter)


def _register_nova_opts(conf: cfg.ConfigOpts) -> None:
    ks_loading.register_session_conf_options(conf, NOVA_GROUP)
    ks_loading.register_auth_conf_options(conf, NOVA_GROUP)
    ks_loading.register_adapter_conf_options(conf, NOVA_GROUP, include_deprecated=False)
    for name, value in NOVA_ADAPTER_DEFAULTS.items():
        conf.set_default(name, value, group=NOVA_GROUP)


def set_middleware_defaults() -> None:
    """oslo.middleware defaults for Placement: CORS lets browsers send and read
    the headers the API uses (the reference's lists), the body size limit
    admits any real Placement request (see placer.http.bodylimit), and the
    health check includes the database."""
    cors.set_defaults(
        allow_headers=["X-Auth-Token", "X-Openstack-Request-Id", "X-Identity-Status",
                       "X-Roles", "X-Service-Catalog", "X-User-Id", "X-Tenant-Id",
                       "OpenStack-API-Version"],
        expose_headers=["X-Auth-Token", "X-Openstack-Request-Id", "X-Subject-Token",
                        "X-Service-Token", "OpenStack-API-Version"],
        allow_methods=["GET", "PUT", "POST", "DELETE", "PATCH"])
    cfg.set_defaults(sizelimit.OPTS, max_request_body_size=bodylimit.DEFAULT_MAX_BODY)
    # /healthcheck says whether the database answers (placer.http.health)
    cfg.set_defaults(healthcheck_opts.HEALTHCHECK_OPTS, backends=["placement_database"])


def register_opts(conf: cfg.ConfigOpts) -> None:
    set_middleware_defaults()
    conf.register_opts(_default_opts)
    for group, opts in GROUPS.items():
        conf.register_opts(opts, group=group)
    conf.register_opts(cors.CORS_OPTS, "cors")
    conf.register_opts(http_proxy_to_wsgi.OPTS, "oslo_middleware")
    conf.register_opts(sizelimit.OPTS, "oslo_middleware")
    conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, "healthcheck")
    conf.register_opts(healthcheck_opts.DISABLE_BY_FILE_OPTS, "healthcheck")
    policy_opts.set_defaults(conf, "policy.yaml")
    oslo_log.register_options(conf)
    _register_nova_opts(conf)


def list_opts():
    """For oslo-config-generator: (group, options) pairs."""
    return [("DEFAULT", _default_opts), *GROUPS.items(), (NOVA_GROUP, _nova_opts())]


def set_lib_defaults() -> None:
    """For oslo-config-generator: Placement's defaults of library options
    (policy.yaml as the policy file, the oslo.middleware ones above)."""
    set_middleware_defaults()
    policy_opts.set_defaults(cfg.CONF, "policy.yaml")


def new_config(args: list[str] | None = None, default_config_files=None) -> cfg.ConfigOpts:
    """A fresh ConfigOpts with every option registered, ``args`` parsed and
    every value checked (``check_values``)."""
    conf = cfg.ConfigOpts()
    register_opts(conf)
    conf(args or [], project="placement", default_config_files=default_config_files)
    check_values(conf)
    return conf


def check_values(conf: cfg.ConfigOpts) -> None:
    """Read every option once. oslo.config converts a value when it is first
    read, so a bad one (``max_retries = many``) would otherwise pass start-up
    and fail a request later; here it raises ``ConfigFileValueError``. (The
    values only the engine can check are checked where the app starts:
    wsgi.check_config.)"""
    for name in conf:
        value = getattr(conf, name)
        if isinstance(value, cfg.ConfigOpts.GroupAttr):
            for opt in value:
                getattr(value, opt)


def default_config_files() -> list[str] | None:
    """Where the reference looks when no --config-file is given.

    ``OS_PLACEMENT_CONFIG_DIR``/placement.conf if that variable is set, else
    None: oslo.config's own search (~/.placement, ~, /etc/placement, /etc).
    """
    conf_dir = os.environ.get("OS_PLACEMENT_CONFIG_DIR", "").strip()
    return [os.path.join(conf_dir, "placement.conf")] if conf_dir else None
