"""Domain errors raised by the core; the HTTP layer maps them to responses.

Each carries the human detail and, optionally, the placement error code
(the ``code`` field clients see from microversion 1.23).
"""

DEFAULT_CODE = "placement.undefined_code"
INVENTORY_INUSE = "placement.inventory.inuse"
CONCURRENT_UPDATE = "placement.concurrent_update"
DUPLICATE_NAME = "placement.duplicate_name"
PROVIDER_IN_USE = "placement.resource_provider.inuse"
PROVIDER_CANNOT_DELETE_PARENT = "placement.resource_provider.cannot_delete_parent"
RESOURCE_PROVIDER_NOT_FOUND = "placement.resource_provider.not_found"
ILLEGAL_DUPLICATE_QUERYPARAM = "placement.query.duplicate_key"
QUERYPARAM_BAD_VALUE = "placement.query.bad_value"
QUERYPARAM_MISSING_VALUE = "placement.query.missing_value"


def no_such_trait(name: str) -> str:
    """The reference's text for an unknown trait, inside several messages."""
    return f"No such trait(s): {name}."


def no_such_class(name: str) -> str:
    """The reference's text for an unknown resource class, inside several messages."""
    return f"No such resource class {name}."


class PlacerError(Exception):
    """Base class: ``status`` is the HTTP status the API layer answers with."""

    status = 500

    def __init__(self, detail: str = "", code: str | None = None):
        super().__init__(detail)
        self.detail = detail
        self.code = code or DEFAULT_CODE


class BadRequest(PlacerError):
    status = 400

    def of_shape(self, name: str) -> "BadRequest":
        """This error, naming the capacity shape it is about."""
        return BadRequest(f"Shape {name!r}: {self.detail}", code=self.code)


class InvalidBody(BadRequest):
    """A JSON body that breaks its schema, or a rule no JSON Schema can say."""

    def __init__(self, problem: str):
        super().__init__(f"JSON does not validate: {problem}")


class Forbidden(PlacerError):
    status = 403


class NotFound(PlacerError):
    status = 404


class Conflict(PlacerError):
    status = 409


class ConcurrentUpdate(Conflict):
    """A generation compare-and-set lost: someone else changed the row first."""

    def __init__(self, detail: str = "Another thread concurrently updated the data. "
                                     "Please retry your update"):
        super().__init__(detail, CONCURRENT_UPDATE)


class UnsupportedDatabase(PlacerError):
    """The database lacks a feature Placer needs: the service refuses to start."""


class DatabaseUnavailable(PlacerError):
    """The database cannot be reached (down, restarting, connections cut): the
    client should come back shortly. The driver's error, which names hosts and
    ports, is logged where this is raised, never shown."""

    status = 503
    headers = {"Retry-After": "1"}

    def __init__(self, detail: str = "The database is unavailable. Please retry shortly."):
        super().__init__(detail)
