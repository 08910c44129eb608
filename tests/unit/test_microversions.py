"""The named microversions: one name per version, 1.0 to 1.39, in order."""

from placer import microversions
from placer.http import errors, version_header

NAMES = {name: value for name, value in vars(microversions).items()
         if name.isupper() and name not in ("MIN", "MAX", "ALL")}


def test_every_version_from_1_0_to_1_39_has_exactly_one_name():
    assert sorted(NAMES.values()) == [(1, minor) for minor in range(40)]


def test_all_lists_the_named_versions_oldest_first():
    assert microversions.ALL == tuple(sorted(NAMES.values()))
    assert microversions.ALL[0] == microversions.MIN == microversions.BASE
    assert microversions.ALL[-1] == microversions.MAX == microversions.ANY_TRAITS


def test_names_read_in_version_order_in_the_module():
    assert list(NAMES.values()) == sorted(NAMES.values())


def test_text_is_the_header_form():
    assert microversions.text((1, 0)) == "1.0"
    assert microversions.text(microversions.CONSUMER_TYPES) == "1.38"


def test_http_layer_serves_exactly_the_named_range():
    assert version_header.VERSIONS == [f"1.{minor}" for minor in range(40)]
    assert (errors.MIN_VERSION, errors.MAX_VERSION) == ("1.0", "1.39")
    assert errors.ERROR_CODE_MICROVERSION == (1, 23)


def test_names_are_plain_tuples_that_compare_with_parsed_versions():
    parsed = version_header.parse("1.38")
    assert parsed >= microversions.CONSUMER_TYPES
    assert parsed < microversions.ANY_TRAITS
    assert all(type(v) is tuple and len(v) == 2 for v in NAMES.values())
