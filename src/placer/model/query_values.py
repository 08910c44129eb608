"""Parsers for the values of the query parameters providers and allocation
candidates share (resources, required, member_of, in_tree), raising
BadRequest with the reference's exact texts. Order is kept as written, so
the first unknown name reported is the first one the client wrote."""

from collections.abc import Iterable

from oslo_utils import uuidutils

from placer import exceptions
from placer import microversions as mv
from placer.microversions import Version

_RESOURCES_FORM = ("Badly formed resources parameter. Expected resources query string "
                   "parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {}.")


def parse_resources(value: str) -> dict[str, int]:
    """``VCPU:2,MEMORY_MB:1024`` -> {'VCPU': 2, 'MEMORY_MB': 1024}; a repeated
    class keeps its first position and its last amount, as in the reference."""
    if value.strip() == "":
        raise exceptions.BadRequest(_RESOURCES_FORM.format("empty string"))
    result: dict[str, int] = {}
    for item in value.split(","):
        parts = item.split(":")
        if len(parts) != 2:
            raise exceptions.BadRequest(_RESOURCES_FORM.format(item))
        name, raw = parts
        try:
            amount = int(raw)  # int() on purpose: the reference takes ' 1', '+1', '1_0'
        except ValueError:
            raise exceptions.BadRequest(
                f"Requested resource {name} expected positive integer amount. Got: {raw}."
            ) from None
        if amount < 1:
            raise exceptions.BadRequest(
                f"Requested resource {name} requires amount >= 1. Got: {amount}.")
        result[name] = amount
    return result


def parse_traits(value: str, allow_forbidden: bool,
                 allow_any: bool) -> tuple[list[list[str]], list[str]]:
    """One 'required' value -> (clauses each needing one of its traits, forbidden).

    ``in:A,B`` is one any-of clause (1.39); ``A,!B`` gives one clause per
    required trait and forbids B (1.22). Every leading '!' is stripped.
    """
    prefix = "Invalid query string parameters: "
    if value.startswith("in:"):
        example = "in:HW_CPU_X86_VMX,CUSTOM_MAGIC"
        if not allow_any:
            raise exceptions.BadRequest(
                f"{prefix}The format '{example}' only supported since microversion 1.39. "
                f"Got: {value}")
        names = list(dict.fromkeys(part.strip() for part in value[3:].split(",")))
        if not all(names):
            raise exceptions.BadRequest(
                f"{prefix}Expected 'required' parameter value of the form: {example}. "
                f"Got an empty trait in: {value}")
        if any(name.startswith("!") for name in names):
            raise exceptions.BadRequest(
                f"{prefix}The format '{example}' does not support forbidden traits. "
                f"Got: {value}")
        return [names], []
    names = [part.strip() for part in value.split(",")]
    forbidden = list(dict.fromkeys(n.lstrip("!") for n in names if n.startswith("!")))
    if not all(names) or not all(forbidden):
        form = "HW_CPU_X86_VMX,!CUSTOM_MAGIC" if allow_forbidden else "HW_CPU_X86_VMX,CUSTOM_MAGIC"
        raise exceptions.BadRequest(
            f"{prefix}Expected 'required' parameter value of the form: {form}. "
            f"Got an empty trait in: {value}")
    if forbidden and not allow_forbidden:
        raise exceptions.BadRequest(
            f"{prefix}Expected 'required' parameter value of the form: "
            f"HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: {value}")
    required = dict.fromkeys(n for n in names if not n.startswith("!"))
    return [[name] for name in required], forbidden


def parse_member_of(value: str) -> tuple[list[str], list[str]]:
    """One member_of value -> (any-of aggregates, forbidden aggregates)."""
    if "," in value and not value.startswith(("in:", "!in:")):
        raise exceptions.BadRequest(
            "Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' "
            f"keyword using the valid microversion. Got: {value}")
    required: list[str] = []
    forbidden: list[str] = []
    if value.startswith("!in:"):
        forbidden = value[4:].split(",")
    elif value.startswith("!"):
        forbidden = [value[1:]]
    elif value.startswith("in:"):
        required = value[3:].split(",")
    else:
        required = [value]
    for agg in required + forbidden:
        if not uuidutils.is_uuid_like(agg):
            raise exceptions.BadRequest(
                "Invalid query string parameters: Expected 'member_of' parameter to "
                f"contain valid UUID(s). Got: {agg}")
    return list(dict.fromkeys(required)), list(dict.fromkeys(forbidden))


def parse_in_tree(value: str) -> str:
    stripped = value.strip()
    check_uuid("in_tree", stripped, shown=value)
    return stripped


def check_uuid(param: str, value: str, shown: str | None = None,
               code: str | None = None) -> None:
    """The reference's 400 when query parameter ``param`` is not a uuid
    (``shown``: the value as the client wrote it, default ``value``)."""
    if not uuidutils.is_uuid_like(value):
        raise exceptions.BadRequest(
            f"Invalid query string parameters: Expected '{param}' parameter to be a "
            f"format of uuid. Got: {value if shown is None else shown}", code=code)


def group(pairs: Iterable[tuple[str, str]]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Query pairs -> (every value of each key, in order; the dict view the
    reference validates: each key at its first position with its last value)."""
    values: dict[str, list[str]] = {}
    for key, value in pairs:
        values.setdefault(key, []).append(value)
    return values, {key: vals[-1] for key, vals in values.items()}


def read_required(raw: list[str], version: Version) -> tuple[list[list[str]], list[str]]:
    """All the values of one 'required' key -> (clauses, forbidden traits)."""
    if version < mv.ANY_TRAITS:
        raw = raw[-1:]  # before 1.39 a repeated 'required' meant its last value
    clauses: list[list[str]] = []
    forbidden: list[str] = []
    for value in raw:
        more, less = parse_traits(value, allow_forbidden=version >= mv.FORBIDDEN_TRAITS,
                                  allow_any=version >= mv.ANY_TRAITS)
        clauses += more
        forbidden += [t for t in less if t not in forbidden]
    return clauses, forbidden


def read_member_of(raw: list[str], version: Version,
                   suffix: str = "") -> tuple[list[list[str]], list[str]]:
    """All the values of one 'member_of' key (``suffix``: its request group's)
    -> (any-of aggregate sets, all required; forbidden aggregates)."""
    if version < mv.MULTIPLE_MEMBER_OF and len(raw) > 1:
        raise exceptions.BadRequest(f"Multiple member_of{suffix} parameters are not supported")
    any_of: list[list[str]] = []
    forbidden: list[str] = []
    for value in raw:
        required, excluded = parse_member_of(value)
        if required:
            any_of.append(required)
        if excluded:
            if version < mv.FORBIDDEN_AGGREGATES:
                raise exceptions.BadRequest(
                    f"Forbidden member_of{suffix} parameters are not supported in the "
                    "specified microversion")
            forbidden += [agg for agg in excluded if agg not in forbidden]
    return any_of, forbidden


_BAD_NAME_FILTER = ('Badly formatted name parameter. Expected name query string parameter in '
                    'form: ?name=[in|startswith]:[name1,name2|prefix]. Got: "{}"')


def parse_name_filter(value: str) -> dict[str, list[str] | str]:
    """GET /traits' ``name``: ``in:A,B`` -> {'name_in': [A, B]}, ``startswith:P``
    -> {'prefix': P}; any other operator is ignored, as the reference does."""
    op, colon, rest = value.partition(":")
    if not colon:
        raise exceptions.BadRequest(_BAD_NAME_FILTER.format(value))
    if op == "in":
        return {"name_in": rest.split(",")}
    if op == "startswith":
        return {"prefix": rest}
    return {}


def parse_associated(value: str) -> bool:
    """GET /traits' ``associated``: 'true' or 'false', in any case."""
    lowered = value.lower()
    if lowered not in ("true", "false"):
        raise exceptions.BadRequest(
            'The query parameter "associated" only accepts "true" or "false"')
    return lowered == "true"
