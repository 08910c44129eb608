"""The reference's import paths, for the deployment tools that load them.

Placer's code is the ``placer`` package; this one holds only what tools name
by path: ``placement.wsgi.api:application`` (uwsgi, mod_wsgi, gunicorn) and
``placement.wsgi:init_application``. It takes the reference's place, so the
two are never installed in one environment.
"""
