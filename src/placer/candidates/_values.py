"""Parsers for single query-string values of GET /allocation_candidates.

Each raises BadRequest with the reference's exact text. Names of traits and
resource classes are not checked here: that needs the database.
"""

import uuid

from placer import exceptions

_RESOURCES_FORM = (
    "Badly formed resources parameter. Expected resources query string parameter "
    "in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {}."
)


def is_uuid_like(value: str) -> bool:
    """Accept what the reference accepts: any case, with or without dashes,
    braces or a ``urn:uuid:`` prefix."""
    try:
        canonical = uuid.UUID(value).hex
    except (TypeError, ValueError, AttributeError):
        return False
    loose = value.replace("urn:", "").replace("uuid:", "").strip("{}").replace("-", "")
    return canonical == loose.lower()


def parse_resources(value: str) -> dict[str, int]:
    """``VCPU:2,MEMORY_MB:1024`` -> {'VCPU': 2, 'MEMORY_MB': 1024}; a repeated
    class keeps its first position and its last amount, like the reference."""
    if value.strip() == "":
        raise exceptions.BadRequest(_RESOURCES_FORM.format("empty string"))
    result: dict[str, int] = {}
    for item in value.split(","):
        parts = item.split(":")
        if len(parts) != 2:
            raise exceptions.BadRequest(_RESOURCES_FORM.format(item))
        name, raw = parts
        try:
            # int() on purpose: the reference accepts ' 1', '+1' and '1_0'.
            amount = int(raw)
        except ValueError:
            raise exceptions.BadRequest(
                f"Requested resource {name} expected positive integer amount. Got: {raw}."
            ) from None
        if amount < 1:
            raise exceptions.BadRequest(
                f"Requested resource {name} requires amount >= 1. Got: {amount}."
            )
        result[name] = amount
    return result


def parse_traits(
    value: str, allow_forbidden: bool, allow_any: bool
) -> tuple[list[frozenset[str]], set[str]]:
    """Parse one ``required`` value into (list of any-of trait sets, forbidden).

    ``in:A,B`` gives one any-of set; ``A,!B`` gives singleton sets and forbidden
    traits. Leading ``!`` are all stripped (``!!A`` forbids A), as upstream does.
    """
    if value.startswith("in:"):
        if not allow_any:
            raise exceptions.BadRequest(
                "Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,"
                f"CUSTOM_MAGIC' only supported since microversion 1.39. Got: {value}"
            )
        names = {part.strip() for part in value[3:].split(",")}
        if not all(names):
            raise exceptions.BadRequest(
                "Invalid query string parameters: Expected 'required' parameter value of "
                "the form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: "
                f"{value}"
            )
        if any(name.startswith("!") for name in names):
            raise exceptions.BadRequest(
                "Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,"
                f"CUSTOM_MAGIC' does not support forbidden traits. Got: {value}"
            )
        return [frozenset(names)], set()

    names = [part.strip() for part in value.split(",")]
    forbidden = {name.lstrip("!") for name in names if name.startswith("!")}
    if not all(names) or not all(forbidden):
        form = "HW_CPU_X86_VMX,!CUSTOM_MAGIC" if allow_forbidden else "HW_CPU_X86_VMX,CUSTOM_MAGIC"
        raise exceptions.BadRequest(
            "Invalid query string parameters: Expected 'required' parameter value of the "
            f"form: {form}. Got an empty trait in: {value}"
        )
    if forbidden and not allow_forbidden:
        raise exceptions.BadRequest(
            "Invalid query string parameters: Expected 'required' parameter value of the "
            f"form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: {value}"
        )
    required = [frozenset([name]) for name in names if not name.startswith("!")]
    return required, forbidden


def parse_member_of(value: str) -> tuple[frozenset[str], frozenset[str]]:
    """Parse one ``member_of`` value into (any-of aggregates, forbidden aggregates)."""
    if "," in value and not (value.startswith("in:") or value.startswith("!in:")):
        raise exceptions.BadRequest(
            "Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' "
            f"keyword using the valid microversion. Got: {value}"
        )
    required: frozenset[str] = frozenset()
    forbidden: frozenset[str] = frozenset()
    if value.startswith("!in:"):
        forbidden = frozenset(value[4:].split(","))
    elif value.startswith("!"):
        forbidden = frozenset([value[1:]])
    elif value.startswith("in:"):
        required = frozenset(value[3:].split(","))
    else:
        required = frozenset([value])
    for agg in sorted(required | forbidden):
        if not is_uuid_like(agg):
            raise exceptions.BadRequest(
                "Invalid query string parameters: Expected 'member_of' parameter to "
                f"contain valid UUID(s). Got: {agg}"
            )
    return required, forbidden


def parse_in_tree(value: str) -> str:
    stripped = value.strip()
    if not is_uuid_like(stripped):
        raise exceptions.BadRequest(
            "Invalid query string parameters: Expected 'in_tree' parameter to be a "
            f"format of uuid. Got: {value}"
        )
    return stripped
