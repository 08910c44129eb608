"""The GET /allocation_candidates query string: its JSON Schemas, per
microversion, and its parse into the candidate service's CandidateRequest
(``parse_query``; ``parse_explain_query`` for explain's, which adds
``provider``). As schemas/resource_providers.py parses its list query, the
HTTP side parses and validates; the candidate service takes a parsed request.

Clients see the validator's message verbatim (schema and instance included),
so each schema has exactly the content and key order the reference prints.
The order of the checks, and so which error a bad query gets, follows the
reference: JSON Schema first, then request-wide parameters, then the groups
in the order their keys first appear, then cross-group rules.
"""

import re
import uuid as uuidlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from placer import exceptions
from placer import microversions as mv
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.microversions import FORBIDDEN_TRAITS, SAME_SUBTREE, STRING_SUFFIXES, Version
from placer.model import query_values
from placer.schemas.validation import QUERY_FORMATS, check_query, validator
from placer.schemas.versioned import Since

INTEGER_SUFFIX = r"[1-9][0-9]*"
STRING_SUFFIX = r"[a-zA-Z0-9_-]{1,64}"
GROUP_PREFIXES = ("resources", "required", "member_of", "in_tree")


def _limit():
    return {
        "type": ["integer", "string"],
        "pattern": "^[1-9][0-9]*$",
        "minimum": 1,
        "minLength": 1,
    }


def _schema(version: mv.Version) -> dict:
    if version < mv.GRANULAR_GROUPS:
        props: dict = {"resources": {"type": "string"}}
        if version >= mv.CANDIDATES_LIMIT:
            props["limit"] = _limit()
        if version >= mv.CANDIDATES_REQUIRED:
            props["required"] = {"type": ["string"]}
        if version >= mv.CANDIDATES_MEMBER_OF:
            props["member_of"] = {"type": ["string"]}
        return {
            "type": "object",
            "properties": props,
            "required": ["resources"],
            "additionalProperties": False,
        }
    props = {
        "limit": _limit(),
        "group_policy": {"type": "string", "enum": ["none", "isolate"]},
    }
    if version >= mv.ROOT_REQUIRED:
        props["root_required"] = {"type": ["string"]}
    if version >= mv.SAME_SUBTREE:
        props["same_subtree"] = {"type": ["string"]}
    suffix = STRING_SUFFIX if version >= mv.STRING_SUFFIXES else INTEGER_SUFFIX
    prefixes = GROUP_PREFIXES if version >= mv.CANDIDATES_IN_TREE else GROUP_PREFIXES[:3]
    return {
        "type": "object",
        "properties": props,
        "additionalProperties": False,
        "patternProperties": {f"^{p}({suffix})?$": {"type": "string"} for p in prefixes},
    }


def _validator(boundary: mv.Version):
    return validator(_schema(boundary), QUERY_FORMATS)


# The schema only changes at these microversions: one validator each.
QUERY = Since({boundary: _validator(boundary) for boundary in (
    mv.ALLOCATION_CANDIDATES, mv.CANDIDATES_LIMIT, mv.CANDIDATES_REQUIRED,
    mv.CANDIDATES_MEMBER_OF, mv.GRANULAR_GROUPS, mv.CANDIDATES_IN_TREE, mv.STRING_SUFFIXES,
    mv.ROOT_REQUIRED, mv.SAME_SUBTREE)})


def validate(instance: dict[str, str], version: mv.Version) -> None:
    """Raise BadRequest with the reference's text if ``instance`` is invalid."""
    check_query(instance, QUERY.at(version))


def _with_provider(query):
    """A candidate query validator that also takes explain's ``provider``."""
    schema = query.schema
    return validator({**schema, "properties": {
        **schema["properties"], "provider": {"type": "string", "format": "uuid"}}},
        QUERY_FORMATS)


# GET /allocation_candidates/explain (Placer's own): the same query plus provider=<uuid>
EXPLAIN_QUERY = Since({first: _with_provider(v) for first, v in QUERY.steps})


# --- the parse: query pairs to a CandidateRequest ------------------------------------

@dataclass
class _Builder:
    resources: dict[str, int] = field(default_factory=dict)
    clauses: list[frozenset[str]] = field(default_factory=list)
    forbidden: set[str] = field(default_factory=set)
    member_of: list[frozenset[str]] = field(default_factory=list)
    forbidden_aggs: set[str] = field(default_factory=set)
    in_tree: str | None = None

    def build(self, suffix: str) -> RequestGroup:
        return RequestGroup(
            suffix=suffix,
            resources=self.resources,
            required=frozenset(next(iter(c)) for c in self.clauses if len(c) == 1),
            forbidden=frozenset(self.forbidden),
            any_of=tuple(dict.fromkeys(c for c in self.clauses if len(c) > 1)),
            member_of=tuple(self.member_of),
            forbidden_aggs=frozenset(self.forbidden_aggs),
            in_tree=self.in_tree,
            written_traits=tuple(dict.fromkeys(t for c in self.clauses for t in sorted(c))),
        )


def asks_for_resources(pairs: Iterable[tuple[str, str]]) -> bool:
    """Whether a query string's pairs name resources (a candidates query)."""
    return any(key.startswith("resources") for key, _ in pairs)


def parse_query(pairs: Iterable[tuple[str, str]], version: Version) -> CandidateRequest:
    """Turn decoded query pairs (repeats allowed, blank values kept) into a
    CandidateRequest, or raise BadRequest exactly where the reference would."""
    pairs = list(pairs)
    values, instance = query_values.group(pairs)
    validate(instance, version)

    limit = _parse_limit(values.get("limit"), instance, version)
    group_policy = values["group_policy"][0] if "group_policy" in values else None
    root_required, root_forbidden = _parse_root_required(values.get("root_required", []))
    same_subtree = _parse_same_subtree(values.get("same_subtree", []))
    builders = _parse_groups(pairs, values, version)

    if version >= SAME_SUBTREE:
        _check_resourceless(builders, same_subtree)
    else:
        _check_orphans(builders)
    if version >= FORBIDDEN_TRAITS:
        _check_conflicts(builders)
    if not group_policy and sum(1 for suffix in builders if suffix) > 1:
        raise exceptions.BadRequest(
            'The "group_policy" parameter is required when specifying more than one '
            '"resources{N}" parameter.'
        )
    return CandidateRequest(
        groups=tuple(b.build(suffix) for suffix, b in builders.items()),
        group_policy=group_policy,
        limit=limit,
        root_required=root_required,
        root_forbidden=root_forbidden,
        same_subtree=same_subtree,
        version=version,
    )


def _parse_limit(raw: list[str] | None, instance: dict[str, str], version: Version):
    if not raw:
        return None
    # The schema saw only the last value; the first is the one used. The
    # reference answers 500 when the first is bad, we answer the schema's 400.
    if not re.fullmatch(r"[1-9][0-9]*\n?", raw[0]):
        validate({**instance, "limit": raw[0]}, version)
    return int(raw[0])


def _parse_root_required(raw: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    if not raw:
        return frozenset(), frozenset()
    if len(raw) > 1:
        raise exceptions.BadRequest(
            "Query parameter 'root_required' may be specified only once.",
            code=exceptions.ILLEGAL_DUPLICATE_QUERYPARAM,
        )
    # No any-traits here, even at 1.39.
    clauses, forbidden = query_values.parse_traits(raw[0], allow_forbidden=True,
                                                   allow_any=False)
    required = {t for clause in clauses for t in clause}
    conflicts = required & set(forbidden)
    if conflicts:
        raise exceptions.BadRequest(
            "Conflicting required and forbidden traits found in root_required: "
            + ", ".join(sorted(conflicts)),
            code=exceptions.QUERYPARAM_BAD_VALUE,
        )
    return frozenset(required), frozenset(forbidden)


def _parse_same_subtree(raw: list[str]) -> tuple[tuple[str, ...], ...]:
    result = []
    for value in raw:
        suffixes = tuple(dict.fromkeys(part.strip() for part in value.split(",")))
        if "" in suffixes:
            raise exceptions.BadRequest(
                "Empty string (unsuffixed group) can not be specified in `same_subtree` ",
                code=exceptions.QUERYPARAM_BAD_VALUE,
            )
        result.append(suffixes)
    return tuple(result)


def _parse_groups(pairs, values, version) -> dict[str, _Builder]:
    suffix_pattern = STRING_SUFFIX if version >= STRING_SUFFIXES else INTEGER_SUFFIX
    key_re = re.compile(rf"^({'|'.join(GROUP_PREFIXES)})({suffix_pattern})?$")
    builders: dict[str, _Builder] = {}
    for key, value in pairs:
        match = key_re.match(key)
        if not match:
            continue
        prefix, suffix = match.group(1), match.group(2) or ""
        builder = builders.setdefault(suffix, _Builder())
        if prefix == "resources":
            builder.resources = query_values.parse_resources(value)
        elif prefix == "required":
            clauses, forbidden = query_values.read_required(values[key], version)
            builder.clauses = [frozenset(clause) for clause in clauses]
            builder.forbidden = set(forbidden)
        elif prefix == "member_of":
            any_of, excluded = query_values.read_member_of(values[key], version, suffix)
            builder.member_of = [frozenset(aggs) for aggs in any_of]
            builder.forbidden_aggs = set(excluded)
        else:
            builder.in_tree = query_values.parse_in_tree(value)
    return builders


def _check_resourceless(builders: dict[str, _Builder], same_subtree) -> None:
    resourceless = [suffix for suffix, b in builders.items() if not b.resources]
    if len(resourceless) == len(builders):
        raise exceptions.BadRequest(
            "There must be at least one resources or resources[$S] parameter.",
            code=exceptions.QUERYPARAM_MISSING_VALUE,
        )
    in_subtree = {suffix for group in same_subtree for suffix in group}
    bad = sorted(suffix for suffix in resourceless if suffix not in in_subtree)
    if bad:
        raise exceptions.BadRequest(
            "Resourceless suffixed group request should be specified in `same_subtree` "
            f"query param: bad group(s) - {bad}.",
            code=exceptions.QUERYPARAM_BAD_VALUE,
        )
    unknown = sorted(suffix for suffix in in_subtree if suffix not in builders)
    if unknown:
        raise exceptions.BadRequest(
            f"Real suffixes should be specified in `same_subtree`: {unknown} not found in "
            f"{list(builders)}.",
            code=exceptions.QUERYPARAM_BAD_VALUE,
        )


def _check_orphans(builders: dict[str, _Builder]) -> None:
    orphans = [f"required{s}" for s, b in builders.items() if b.clauses and not b.resources]
    if orphans:
        raise exceptions.BadRequest(
            "All traits parameters must be associated with resources.  Found the following "
            "orphaned traits keys: " + ", ".join(orphans)
        )
    orphans = [
        f"member_of{s}"
        for s, b in builders.items()
        if not b.resources and (b.member_of or b.forbidden_aggs)
    ]
    if orphans:
        raise exceptions.BadRequest(
            "All member_of parameters must be associated with resources. Found the "
            "following orphaned member_of keys: " + ", ".join(orphans)
        )
    if not all(b.resources for b in builders.values()):
        raise exceptions.BadRequest("All request groups must specify resources.")
    if not builders:
        raise exceptions.BadRequest(
            "At least one request group (`resources` or `resources{$S}`) is required."
        )


def _check_conflicts(builders: dict[str, _Builder]) -> None:
    conflicts = sorted(
        f"required{suffix}: ({', '.join(sorted(clause))})"
        for suffix, b in builders.items()
        for clause in b.clauses
        if clause <= b.forbidden
    )
    if conflicts:
        raise exceptions.BadRequest(
            "Conflicting required and forbidden traits found in the following traits "
            "keys: " + ", ".join(conflicts)
        )


def parse_explain_query(pairs: Iterable[tuple[str, str]], version: Version
                        ) -> tuple[CandidateRequest, str | None]:
    """(the request, the ``provider`` uuid or None) of GET
    /allocation_candidates/explain's query: the candidates query plus an
    optional ``provider=<uuid>``; BadRequest for a repeated or malformed
    ``provider`` (checked first), then where ``parse_query`` gives one."""
    pairs = list(pairs)
    values = [v for k, v in pairs if k == "provider"]
    if len(values) > 1:
        raise exceptions.BadRequest("Query parameter 'provider' may be specified only once.",
                                    code=exceptions.ILLEGAL_DUPLICATE_QUERYPARAM)
    if values:
        query_values.check_uuid("provider", values[0], code=exceptions.QUERYPARAM_BAD_VALUE)
    provider = str(uuidlib.UUID(values[0])) if values else None
    return parse_query([(k, v) for k, v in pairs if k != "provider"], version), provider
