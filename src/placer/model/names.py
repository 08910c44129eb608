"""Naming rules for resource classes and traits (and the standard sets)."""

import re

import os_resource_classes as orc

NAME_CHARS = "[A-Z0-9_]"
NAME_PATTERN = f"^{NAME_CHARS}+$"
CUSTOM_PATTERN = f"^CUSTOM_{NAME_CHARS}+$"
CUSTOM_PREFIX = "CUSTOM_"
MIN_CUSTOM_RESOURCE_CLASS_ID = 10000

_custom = re.compile(CUSTOM_PATTERN)


def is_custom(name: str) -> bool:
    return bool(_custom.match(name))


def is_standard_class(name: str) -> bool:
    return name in orc.STANDARDS
