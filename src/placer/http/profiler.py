"""Cross-service tracing with osprofiler, driven by placement.conf's ``[profiler]``.

The options are osprofiler's own (its ``osprofiler`` config namespace). With
``[profiler] enabled``, ``setup`` points osprofiler's notifier at
``connection_string`` and hands back its WSGI middleware, which traces a
request only when its ``X-Trace-Info``/``X-Trace-HMAC`` headers are signed
with one of ``hmac_keys`` (``openstack --os-profile KEY ...``). With
``trace_sqlalchemy`` too, every statement on the API's engine is a ``db``
trace point inside the request's ``wsgi`` one. When tracing is off nothing is
wrapped or hooked, and neither osprofiler's initializer nor its SQLAlchemy
hooks are imported (its options are: they are how ``enabled`` is read).
"""

import socket
import weakref
from collections.abc import Callable

import sqlalchemy as sa
from oslo_config import cfg

PROJECT = SERVICE = "placement"  # the names traces show, as the reference's

Middleware = Callable[[Callable], Callable]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """osprofiler's groups ([profiler], and its drivers' [profiler_jaeger] and
    [profiler_otlp]) on ``conf``; registering again is harmless."""
    from osprofiler import opts

    opts.set_defaults(conf)
    for group, group_opts in opts.list_opts():
        conf.register_opts(group_opts, group=group)


def setup(conf: cfg.ConfigOpts, engine: sa.Engine | None = None) -> Middleware | None:
    """The osprofiler middleware for ``conf``, or None when ``[profiler]
    enabled`` is off. Reads (and so checks) every ``[profiler]`` value, sets
    up osprofiler's notifier, and traces ``engine``'s statements if
    ``trace_sqlalchemy``."""
    register_opts(conf)
    values = {name: getattr(conf.profiler, name) for name in conf.profiler}
    if not values["enabled"]:
        return None
    from osprofiler import initializer, web

    initializer.init_from_conf(conf=conf, context={}, project=PROJECT, service=SERVICE,
                               host=socket.gethostname())
    if engine is not None and values["trace_sqlalchemy"]:
        trace_statements(engine)
    return web.WsgiMiddleware.factory({}, **values)


_TRACED: "weakref.WeakSet[sa.Engine]" = weakref.WeakSet()


def trace_statements(engine: sa.Engine) -> None:
    """A ``db`` trace point per statement ``engine`` runs (hooked once: an app
    can be built again over the same ``Database``)."""
    if engine in _TRACED:
        return
    from osprofiler import sqlalchemy as os_sqlalchemy

    os_sqlalchemy.add_tracing(sa, engine, "db")
    _TRACED.add(engine)
