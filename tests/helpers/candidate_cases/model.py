"""The case type: a world of providers by name, queries, expected answers.

Notation (strings, so that a case reads like the documents' answers):

- a query is the query string as sent; ``{name}`` stands for the uuid of
  the provider ``name``, or for any other name the uuid of the aggregate
  ``name``;
- a candidate's allocations: ``"NUMA1_1:VCPU=1 CN1:MEMORY_MB=512,DISK_GB=500"``
  (provider:class=amount,..., providers separated by spaces);
- its mappings: ``"=CN1 1=NIC1_1 2=NIC1_2"`` (suffix=providers, the
  unsuffixed group's suffix empty; several providers: ``"=NUMA2_1,CN2"``);
- provider names and traits: ``"CN1 CN2 SS1"``.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pytest

LATEST = "1.39"
DRIVERS = ("engine", "http")


def words(value: str | Iterable[str]) -> tuple[str, ...]:
    return tuple(value.split()) if isinstance(value, str) else tuple(value)


def version_tuple(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def allocation(text: str) -> frozenset:
    """``"CN1:VCPU=1 SS1:DISK_GB=500"`` -> {(provider, class, amount)}."""
    result = set()
    for part in text.split():
        name, _, resources = part.partition(":")
        for item in resources.split(","):
            rc, _, amount = item.partition("=")
            result.add((name, rc, int(amount)))
    return frozenset(result)


def mapping(text: str) -> frozenset:
    """``"=CN1 1=NIC1_1"`` -> {(suffix, frozenset of providers)}."""
    return frozenset((sfx, frozenset(names.split(",")))
                     for sfx, _, names in (part.partition("=") for part in text.split()))


@dataclass(frozen=True)
class Rp:
    """A provider. ``inv``: class -> total, or -> inventory fields (total,
    reserved, min_unit, max_unit, step_size, allocation_ratio); ``used``:
    class -> amount allocated (to one consumer); ``sharing`` adds
    MISC_SHARES_VIA_AGGREGATE to ``traits``. Aggregates go by name."""

    name: str
    parent: str | None = None
    inv: Mapping[str, int | Mapping[str, int | float]] = field(default_factory=dict)
    traits: str | tuple[str, ...] = ()
    aggs: str | tuple[str, ...] = ()
    sharing: bool = False
    used: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "traits", words(self.traits))
        object.__setattr__(self, "aggs", words(self.aggs))


@dataclass(frozen=True, eq=False)
class Q:
    """A query and what its answer must be. ``allocs``: the candidates'
    allocations; ``mappings``: their (allocations, mappings) pairs (1.34+);
    ``count``: the number of candidates, needed only when allocations
    repeat (with different mappings), else one per expected entry;
    ``providers``: those giving resources in some candidate; ``summaries``:
    the providers in provider_summaries; ``summary_traits``: provider ->
    its traits in provider_summaries (1.17+)."""

    query: str
    version: str = LATEST
    allocs: Iterable[str] | None = None
    mappings: Iterable[tuple[str, str]] | None = None
    count: int | None = None
    providers: str | Iterable[str] | None = None
    summaries: str | Iterable[str] | None = None
    summary_traits: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        def put(name, value):
            object.__setattr__(self, name, value)

        if self.allocs is None and self.mappings is None and self.providers is None:
            raise ValueError(f"{self.query}: no expected answer (allocs, mappings or providers)")
        if self.allocs is not None and self.mappings is not None:
            raise ValueError(f"{self.query}: allocs or mappings, not both")
        if self.mappings is not None and version_tuple(self.version) < (1, 34):
            raise ValueError(f"{self.query}: no mappings before 1.34")
        if self.summary_traits and version_tuple(self.version) < (1, 17):
            raise ValueError(f"{self.query}: no traits in summaries before 1.17")
        if self.allocs is not None:
            allocs = [allocation(a) for a in self.allocs]
            put("allocs", frozenset(allocs))
            expected = allocs
        elif self.mappings is not None:
            pairs = [(allocation(a), mapping(m)) for a, m in self.mappings]
            put("mappings", frozenset(pairs))
            expected = pairs
        else:
            expected = None
        if expected is not None:
            if len(expected) != len(set(expected)):
                raise ValueError(f"{self.query}: an expected candidate is written twice")
            if self.count is None:
                put("count", len(expected))
        elif self.count is not None:
            raise ValueError(f"{self.query}: count needs allocs or mappings")
        for name in ("providers", "summaries"):
            if getattr(self, name) is not None:
                put(name, frozenset(words(getattr(self, name))))
        put("summary_traits", {n: frozenset(words(t)) for n, t in self.summary_traits.items()})

    @property
    def empty(self) -> bool:
        """The expected answer has no candidate."""
        return not (self.allocs or self.mappings or self.providers)


@dataclass(frozen=True)
class Case:
    name: str
    world: tuple[Rp, ...]
    queries: tuple[Q, ...]
    known_traits: tuple[str, ...] = ()  # custom traits on no provider (the API must know them)
    xfail: Mapping[str, str] = field(default_factory=dict)  # driver -> why it fails today


def case(name: str, world: Iterable[Rp], *queries: Q, known_traits: str = "",
         xfail: Mapping[str, str] | None = None) -> Case:
    """A case; checks the world is well formed and that the case cannot pass
    vacuously: at least one of its queries expects candidates."""
    world = tuple(world)
    seen: set[str] = set()
    for rp in world:
        if rp.name in seen or (rp.parent is not None and rp.parent not in seen):
            raise ValueError(f"{name}: {rp.name} repeated, or before its parent")
        seen.add(rp.name)
    if not queries or all(q.empty for q in queries):
        raise ValueError(f"{name}: no query expects a candidate")
    if set(xfail or {}) - set(DRIVERS):
        raise ValueError(f"{name}: xfail names a driver not in {DRIVERS}")
    return Case(name, world, queries, words(known_traits), dict(xfail or {}))


@dataclass
class Seen:
    """An answer as a driver observes it, by provider names.

    ``candidates``: (allocations, mappings) of each, in answer order,
    mappings None when the answer has none (before 1.34);
    ``summaries``: provider -> its traits (None when not shown, before 1.17).
    """

    candidates: list[tuple[frozenset, frozenset | None]]
    summaries: dict[str, frozenset | None]


def check(q: Q, seen: Seen) -> None:
    """Assert everything ``q`` expects of ``seen``; nothing is optional."""
    found, where = seen.candidates, f"{q.query} at {q.version}"
    assert len(found) == len(set(found)), f"{where}: duplicate candidates {found}"
    if q.mappings is not None:
        assert set(found) == q.mappings, f"{where}: {found}"
    if q.allocs is not None:
        assert {a for a, _ in found} == q.allocs, f"{where}: {found}"
    if q.count is not None:
        assert len(found) == q.count, f"{where}: {found}"
    if q.providers is not None:
        giving = {name for a, _ in found for name, _, _ in a}
        assert giving == q.providers, f"{where}: {found}"
    if q.summaries is not None:
        assert set(seen.summaries) == q.summaries, f"{where}: {seen.summaries}"
    for name, traits in q.summary_traits.items():
        assert seen.summaries[name] == traits, f"{where}: {seen.summaries}"


def params(cases: Iterable[Case], driver: str) -> list:
    """The cases as pytest parameters, named, the driver's known failures
    marked (strict: a fix must remove the mark)."""
    assert driver in DRIVERS, driver
    return [pytest.param(c, id=c.name, marks=[pytest.mark.xfail(strict=True,
                                                                 reason=c.xfail[driver])]
                         if driver in c.xfail else []) for c in cases]
