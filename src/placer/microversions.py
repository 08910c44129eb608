"""The API's microversions, each named for what it changed.

Code compares a request's version (a ``(major, minor)`` tuple) with these
names instead of bare tuples: ``if version >= CONSUMER_TYPES``. The list
follows the reference's REST API version history (1.0-1.39), one line each;
every version changed some behaviour, so each has a name. Plain data, no
imports: the HTTP layer, the schemas and the pure core (``candidates/``,
``model/``) all read it.
"""

Version = tuple[int, int]

# Newton
BASE = (1, 0)  # providers, inventories, provider usages and allocations
# Ocata
PROVIDER_AGGREGATES = (1, 1)  # GET/PUT /resource_providers/{uuid}/aggregates
RESOURCE_CLASSES = (1, 2)  # /resource_classes: custom resource classes
PROVIDERS_MEMBER_OF = (1, 3)  # GET /resource_providers?member_of=
PROVIDERS_RESOURCES = (1, 4)  # GET /resource_providers?resources= (capacity filter)
# Pike
DELETE_ALL_INVENTORIES = (1, 5)  # DELETE /resource_providers/{uuid}/inventories
TRAITS = (1, 6)  # /traits and /resource_providers/{uuid}/traits
PUT_RESOURCE_CLASS = (1, 7)  # PUT /resource_classes/{name} creates or verifies, no body
CONSUMER_OWNER = (1, 8)  # project_id and user_id required in PUT /allocations
TOTAL_USAGES = (1, 9)  # GET /usages?project_id=[&user_id=]
ALLOCATION_CANDIDATES = (1, 10)  # GET /allocation_candidates
# Queens
ALLOCATIONS_LINK = (1, 11)  # 'allocations' link in resource provider bodies
ALLOCATIONS_DICT = (1, 12)  # allocations keyed by provider in PUT, GET and candidates
POST_ALLOCATIONS = (1, 13)  # POST /allocations: many consumers at once
NESTED_PROVIDERS = (1, 14)  # parent/root provider uuids, ?in_tree= on providers
LAST_MODIFIED = (1, 15)  # Last-Modified and Cache-Control headers
CANDIDATES_LIMIT = (1, 16)  # ?limit= on allocation candidates
CANDIDATES_REQUIRED = (1, 17)  # ?required= on candidates, traits in provider summaries
# Rocky
PROVIDERS_REQUIRED = (1, 18)  # GET /resource_providers?required=
AGGREGATES_GENERATION = (1, 19)  # provider generation in aggregates GET/PUT (409 on conflict)
CREATE_PROVIDER_BODY = (1, 20)  # POST /resource_providers answers 200 with the provider
CANDIDATES_MEMBER_OF = (1, 21)  # ?member_of= on allocation candidates
FORBIDDEN_TRAITS = (1, 22)  # '!TRAIT' in required
ERROR_CODES = (1, 23)  # 'code' in JSON error bodies
MULTIPLE_MEMBER_OF = (1, 24)  # repeated ?member_of= on providers, AND-ed
GRANULAR_GROUPS = (1, 25)  # numbered request groups (resourcesN...), group_policy
RESERVED_EQUALS_TOTAL = (1, 26)  # inventory reserved may equal total
ALL_SUMMARY_CLASSES = (1, 27)  # every inventory class in provider summaries
CONSUMER_GENERATIONS = (1, 28)  # consumer_generation in allocation reads and writes
NESTED_CANDIDATES = (1, 29)  # candidates span trees; parent/root in provider summaries
RESHAPER = (1, 30)  # POST /reshaper
# Stein
CANDIDATES_IN_TREE = (1, 31)  # ?in_tree[N]= on allocation candidates
# Train
FORBIDDEN_AGGREGATES = (1, 32)  # '!agg' and '!in:' in member_of
STRING_SUFFIXES = (1, 33)  # request group suffixes may be strings
GROUP_MAPPINGS = (1, 34)  # 'mappings' in allocation requests (accepted in writes)
ROOT_REQUIRED = (1, 35)  # ?root_required= on allocation candidates
SAME_SUBTREE = (1, 36)  # ?same_subtree= on allocation candidates
# Xena
REPARENTING = (1, 37)  # PUT /resource_providers/{uuid} may change or drop the parent
CONSUMER_TYPES = (1, 38)  # consumer_type on allocations and usages
# Yoga
ANY_TRAITS = (1, 39)  # 'in:' (any of) and repeated required

MIN = BASE  # the oldest version served
MAX = ANY_TRAITS  # the newest version served (and the default of parsed requests)

# Every named version, oldest first.
ALL: tuple[Version, ...] = tuple(sorted(
    value for name, value in dict(globals()).items()
    if name.isupper() and name not in ("MIN", "MAX") and isinstance(value, tuple)))


def text(version: Version) -> str:
    """``(1, 39)`` -> ``"1.39"``, as the headers and the version document write it."""
    return f"{version[0]}.{version[1]}"


def previous(version: Version) -> Version:
    """``(1, 14)`` -> ``(1, 13)``: the last version before ``version``."""
    return (version[0], version[1] - 1)
