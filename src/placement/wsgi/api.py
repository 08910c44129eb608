"""The WSGI application, built when this module is loaded.

Deployment tools point their WSGI server here (``module =
placement.wsgi.api:application``); puppet copies this file elsewhere and
loads the copy, so it imports by absolute name only.
"""

from placement.wsgi import init_application

application = init_application()
