"""GET /audit's query (Placer's own): which kinds (``kind``, repeatable;
default every kind), items per kind (``limit``), and the age of an idle
provider (``idle_days``)."""

from placer import exceptions
from placer.model.audit import DEFAULT_IDLE_DAYS, DEFAULT_LIMIT, KINDS
from placer.schemas.validation import QUERY_FORMATS, validator

QUERY = validator({
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": list(KINDS),
                 "description": "A kind of finding; repeat it for several (default: every kind)"},
        "limit": {"type": "string", "pattern": "^[1-9][0-9]*$",
                  "description": f"Items per kind (default {DEFAULT_LIMIT}); counts are whole"},
        "idle_days": {"type": "string", "pattern": "^[0-9]+$",
                      "description": "idle_providers: unchanged for at least this many days "
                                     f"(default {DEFAULT_IDLE_DAYS})"},
    },
    "additionalProperties": False,
}, QUERY_FORMATS)


_EXPECTED = {
    "kind": f"a kind of finding: one of {', '.join(KINDS)}",
    "limit": "an integer of 1 or more",
    "idle_days": "an integer of 0 or more",
}


def _shown(value: str) -> str:
    return repr(value if len(value) <= 100 else value[:100] + "...")


def parse_query(pairs: list[tuple[str, str]]) -> tuple[tuple[str, ...], int, int]:
    """(kinds in KINDS' order, limit, idle_days) of GET /audit's query
    pairs, checked with QUERY; BadRequest (placement.query.bad_value) naming
    what is wrong. A repeated limit or idle_days: the last one counts, as
    elsewhere."""
    for key, value in pairs:  # every value of a repeated key is checked
        if QUERY.is_valid({key: value}):
            continue
        if key in _EXPECTED:
            problem = f"{key}={_shown(value)} is not {_EXPECTED[key]}."
        else:
            problem = (f"{_shown(key)} is not a parameter of GET /audit, which takes "
                       f"{', '.join(_EXPECTED)}.")
        raise exceptions.BadRequest(f"Invalid query string parameters: {problem}",
                                    code=exceptions.QUERYPARAM_BAD_VALUE)
    values = dict(pairs)
    asked = {value for key, value in pairs if key == "kind"}
    kinds = tuple(kind for kind in KINDS if kind in asked) if asked else KINDS
    return (kinds, int(values.get("limit", DEFAULT_LIMIT)),
            int(values.get("idle_days", DEFAULT_IDLE_DAYS)))
