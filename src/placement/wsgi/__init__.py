"""``init_application()``: a new WSGI app, as the reference's ``placement.wsgi``."""

from placer.wsgi import init_application

__all__ = ["init_application"]
