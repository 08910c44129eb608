"""What the candidate service reads, and nothing about how: the interface
that the database side (placer.db.candidates) implements, with the plain
types that cross it.

A search asks for the ids of the names it uses, the roots of the trees
that serve others (sharing providers, in_tree targets), pages of candidate
roots for a plan (see root_plan.py), and the trees of a batch of roots;
explain and the unknown-name precheck ask for the whole relevant cloud
(SearchStore); a count of copies also reads every root and inventory
record of its classes at once (CountStore).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol

from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Provider, Snapshot

# --- the roots' plan (root_plan.py builds it, placer.db.root_filter compiles it)
Sharing = tuple[tuple[int, ...], tuple[int, ...]] | None
Ids = tuple[int, ...]
# the steps of a plan, (kind, *arguments); placer.db.root_filter takes each
# kind's arguments in this order
RootHas = tuple[Literal["root_has"], Ids]  # trait ids
RootLacks = tuple[Literal["root_lacks"], Ids]  # trait ids
InTree = tuple[Literal["in_tree"], int]  # the target's root id
NotInAggs = tuple[Literal["not_in_aggs"], Ids]  # aggregate ids
MemberOf = tuple[Literal["member_of"], tuple[Ids, ...], Sharing]  # any-of sets of aggregate ids
Traits = tuple[Literal["traits"], Ids, Sharing]  # one clause's trait ids
# class id, amount, forbidden trait ids, forbidden aggregate ids
Class = tuple[Literal["class"], int, int, Ids, Ids, Sharing]
# (class id, amount)s, trait clauses, forbidden traits, member_of sets,
# forbidden aggregates, in_tree root id
Granular = tuple[Literal["granular"], tuple[tuple[int, int], ...], tuple[Ids, ...], Ids,
                 tuple[Ids, ...], Ids, int | None, Sharing]
Step = RootHas | RootLacks | InTree | NotInAggs | MemberOf | Traits | Class | Granular
Plan = tuple[Step, ...]


# --- rows: the bulk ones are plain tuples (a count reads one per provider,
# and building an object each costs more than the read at 100,000 providers)
RootRow = tuple[int, str, str | None]  # a root provider: id, uuid, name
ChildRow = tuple[int, int]  # a provider that is not a root: id, root id
# an inventory record: provider id, class id, free (its capacity, as
# model.inventory.capacity, less what is used of it), min_unit, max_unit, step_size
InventoryRow = tuple[int, int, int, int, int, int]


class FoundProvider(NamedTuple):
    """A provider found by uuid: its uuid as stored, and its root's id."""

    uuid: str
    root_id: int


class RankedRoot(NamedTuple):
    """A tree's place in a spread or pack walk (order.py's term) and its root."""

    term: int
    root_id: int



@dataclass
class Names:
    """Ids of the names a request uses (the unknown ones are absent)."""

    classes: dict[str, int]
    traits: dict[str, int]
    aggregates: dict[str, int]

    def lack_some_of(self, request: CandidateRequest) -> bool:
        """The request names a class or trait the database does not have."""
        return bool(set(request.resource_classes()) - self.classes.keys()
                    or set(request.trait_names()) - self.traits.keys())

    def agg_ids(self, uuids: Iterable[str]) -> tuple[int, ...]:
        """Ids of the known aggregates among ``uuids`` (an unknown one has no member)."""
        return tuple(self.aggregates[u] for u in sorted(uuids) if u in self.aggregates)


class Roots(Protocol):
    """The candidate roots of one plan (providers without a parent meeting
    every condition of the plan)."""

    # whether ``among`` takes long lists of ids well: each call pays the
    # filter's fixed costs, but MariaDB plans a long list of literals worse
    long_lists: bool

    def after(self, last: int, size: int) -> list[int]:
        """The first ``size`` of them with an id above ``last``, by id."""

    def among(self, ids: list[int]) -> set[int]:
        """Those of ``ids`` that are candidate roots."""

    def all(self) -> list[int]:
        """All of them, in no particular order."""


class SearchStore(Protocol):
    """The cloud, as a search and explain read it: one transaction."""

    def names(self, request: CandidateRequest) -> Names: ...

    def in_tree_roots(self, uuids: set[str]) -> dict[str, int]:
        """uuid -> root id of the providers named (the unknown ones are absent)."""

    def any_member(self, sets: list[tuple[int, ...]]) -> bool:
        """Some provider is in one aggregate of each set of ids."""

    def sharing_roots(self, rc_ids: list[int]) -> set[int]:
        """Roots of the sharing providers with inventory of one of the classes."""

    def classless_sharing_roots(self, rc_ids: list[int]) -> set[int]:
        """Roots of the sharing providers a resourceless group may use: those
        whose tree holds one of the classes or is served by a sharing
        provider that does."""

    def id_range(self) -> tuple[int, int]:
        """The lowest and highest provider ids ((0, -1) without providers)."""

    def roots(self, plan: Plan) -> Roots:
        """The candidate roots of a plan (root_plan.RootPlan)."""

    def class_names(self) -> dict[int, str]:
        """Resource class id -> name, of every class."""

    def trees(self, root_ids: list[int], class_names: dict[int, str] | None = None,
              aggregates: bool = True) -> list[Provider]:
        """Every provider of these trees, with inventories, usages, traits and
        aggregates (none where ``aggregates`` is false)."""

    def whole_cloud(self, request: CandidateRequest, rc_ids: list[int]) -> Snapshot:
        """Every tree holding one of the classes, served by a sharing provider
        holding one, or named by in_tree."""

    def provider_root(self, uuid: str) -> FoundProvider | None:
        """A provider by uuid, None if there is none."""

    # the trees' stored scores, which spread and pack walk (order.py)
    scores_kept: bool  # whether the database has them

    def ranked(self, rc_id: int, spread: bool, after: tuple[int, int], size: int,
               least: int) -> list[RankedRoot]:
        """The next ``size`` trees holding class ``rc_id``
        with at least ``least`` free on one provider, by term then root id,
        after (term, root id) ``after``: the term is 1000 - free per mille
        for spread, free per mille for pack."""

    def free(self, root_ids: list[int], rc_ids: list[int],
             least: dict[int, int] | None = None) -> dict[int, dict[int, int]]:
        """root id -> class id -> free per mille, of the classes the trees
        hold; with ``least`` (class id -> amount), of the trees holding at
        least that much of each of those classes on one provider only."""


class CountStore(SearchStore, Protocol):
    """The cloud, as a count of copies reads it (count.py): a search's reads,
    and every root and inventory record of some classes at once."""

    def names_of_classes(self, names: list[str]) -> dict[str, int]:
        """name -> id of the known classes among ``names``."""

    def all_roots(self) -> list[RootRow]:
        """Every root provider, by uuid."""

    def children(self) -> list[ChildRow]:
        """Every provider that is not a root."""

    def inventories(self, rc_ids: list[int]) -> list[InventoryRow]:
        """Every inventory record of these classes."""
