"""Naming rules of placer.model.names for resource classes and traits."""

import pytest

from placer.model import names


@pytest.mark.parametrize(("name", "expected"), [
    ("A", True),
    ("HW_CPU_X86_VMX", True),
    ("CUSTOM_MAGIC", True),
    ("X" * 255, True),
    ("X" * 256, False),
    ("", False),
    ("lower", False),
    ("A-B", False),
    ("A B", False),
    ("A\n", False),
    ("A\x00", False),
    ("\u00c9", False),
])
def test_could_be_trait(name, expected):
    assert names.could_be_trait(name) is expected


@pytest.mark.parametrize(("name", "expected"), [
    ("CUSTOM_MAGIC", True),
    ("CUSTOM_" + "A" * 248, True),   # 255 characters
    ("CUSTOM_" + "A" * 249, False),  # 256 characters
    ("CUSTOM_", False),
    ("CUSTOM_MAGIC\n", False),
    ("CUSTOM_magic", False),
    ("HW_CPU_X86_VMX", False),       # standard names are not custom
    ("CUSTOMMAGIC", False),
    ("", False),
])
def test_is_valid_custom_trait(name, expected):
    assert names.is_valid_custom_trait(name) is expected


def test_patterns_and_constants():
    assert names.NAME_PATTERN == "^[A-Z0-9_]+$"
    assert names.CUSTOM_PATTERN == "^CUSTOM_[A-Z0-9_]+$"
    assert names.CUSTOM_PREFIX == "CUSTOM_"
    assert names.MIN_CUSTOM_RESOURCE_CLASS_ID == 10000
    assert names.MAX_NAME_LENGTH == 255
