"""Parsers for the values of the query parameters providers and allocation
candidates share (resources, required, member_of, in_tree), raising
BadRequest with the reference's exact texts. Order is kept as written, so
the first unknown name reported is the first one the client wrote."""

from oslo_utils import uuidutils

from placer import exceptions

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
    if not uuidutils.is_uuid_like(stripped):
        raise exceptions.BadRequest(
            "Invalid query string parameters: Expected 'in_tree' parameter to be a "
            f"format of uuid. Got: {value}"
        )
    return stripped
