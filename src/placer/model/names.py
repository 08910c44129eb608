"""Naming rules for resource classes and traits (and the standard sets)."""

import dataclasses
import datetime
import re

NAME_CHARS = "[A-Z0-9_]"
NAME_PATTERN = f"^{NAME_CHARS}+$"
CUSTOM_PATTERN = f"^CUSTOM_{NAME_CHARS}+$"
CUSTOM_PREFIX = "CUSTOM_"
MIN_CUSTOM_RESOURCE_CLASS_ID = 10000

MAX_NAME_LENGTH = 255
_name = re.compile(f"{NAME_CHARS}{{1,{MAX_NAME_LENGTH}}}")


def is_valid_custom_trait(name: str) -> bool:
    """What PUT /traits/{name} accepts: CUSTOM_ plus [A-Z0-9_], at most 255 long
    (a whole-string match: no trailing newline slips through ``$``)."""
    return could_be_trait(name) and name.startswith(CUSTOM_PREFIX) and name != CUSTOM_PREFIX


def could_be_trait(name: str) -> bool:
    """False for strings no trait row can have (wrong characters, empty, too
    long): such names are never looked up, which also keeps NUL bytes and
    case-folding collations out of the comparison."""
    return bool(_name.fullmatch(name))


@dataclasses.dataclass(frozen=True)
class NamedRecord:
    """A resource class or a trait as stored."""

    id: int
    name: str
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None
