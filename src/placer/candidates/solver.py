"""Enumerate the assignments of one anchor's slots, lazily, with pruning.

Depth-first over the slots in order (unsuffixed classes first, then suffixed
groups). Cross-slot rules are checked as soon as they can fail: capacity and
max_unit on the candidate's total per provider and class, isolate, the
unsuffixed group's collective traits, same_subtree, and before 1.29 the
one-provider-per-tree rule. Look-ahead keeps dead branches short, so the
work done follows the number of answers rather than the size of the space:

- same_subtree: once some of a set's groups are placed, the provider that
  will be the set's top can only be one of a few ancestors; the remaining
  groups of the set are confined below the highest of them;
- isolate: a matching of the remaining suffixed slots to distinct providers
  is kept and repaired after each choice; when none exists, nor does a
  completion (a matching that still uses edges lost since only makes this
  check weaker, never wrong);
- otherwise: every remaining slot that the choice can affect (one sharing a
  class with it, or any slot before 1.29) must keep a provider that still
  fits, and per class the remaining demand must not exceed the remaining
  free room. That room is checked once per anchor for every class asked by
  several slots, then after each choice for its own classes only: the
  others' demand, pool and use did not change, so neither did their answer.

When no such rule can apply (``Plan.independent``: no class in two slots,
no traits spread over slots, no same_subtree, isolate with at most one
suffixed group and, before 1.29, at most one slot giving resources), every
combination of the options is a candidate and is taken in the walk's order
without walking.

A Plan holds what is the same for every anchor of a request; a _Search the
state of one anchor's walk (walks of several anchors may be interleaved).
"""

import itertools
from collections.abc import Callable, Iterator

from placer.candidates.domains import Layout, Problem
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Provider, Snapshot

# (class, demand of the slots concerned, their indices): one room check
_RoomCheck = tuple[str, int, tuple[int, ...]]


def _takes(demand: dict[str, int]) -> Callable[[str, list[int]], bool]:
    """Whether a class is one of ``demand``'s (whatever slots use it)."""
    return lambda rc, _users: rc in demand


class Plan:
    """What the search needs that is the same for every anchor of a request."""

    def __init__(self, layout: Layout, request: CandidateRequest, snapshot: Snapshot):
        self.snapshot = snapshot
        self.slots = slots = layout.slots
        self.clauses = layout.clauses
        self.isolate = request.isolate
        self.nested_aware = request.nested_aware
        count = len(slots)
        self.last_unsuffixed = max((i for i, s in enumerate(slots) if not s.granular), default=-1)
        self.granular = [i for i, s in enumerate(slots) if s.granular]
        index = {s.suffix: i for i, s in enumerate(slots) if s.granular}
        self.subtrees = [sorted(index[sfx] for sfx in group) for group in request.same_subtree]
        self.sets_of = [
            [n for n, members in enumerate(self.subtrees) if i in members] for i in range(count)
        ]
        # Every option fits its own slot alone (see domains): only classes that
        # an earlier slot may take from the same provider need checking again.
        self.shared_demand = [
            [(rc, n) for rc, n in s.demand.items() if any(rc in t.demand for t in slots[:i])]
            for i, s in enumerate(slots)
        ]
        self.linked = [[i for i in range(d + 1, count) if self._linked(d, i)] for d in range(count)]
        self.initial_room = self._room_checks(range(count), lambda rc, users: len(users) > 1)
        self.room_after = [
            self._room_checks(range(d + 1, count), _takes(slots[d].demand))
            for d in range(count)
        ]
        # What a slot takes is read back only by later slots asking for the
        # same class (their fits, the room checks): only that is recorded.
        self.recorded = [
            [(rc, n) for rc, n in s.demand.items() if any(rc in t.demand for t in slots[i + 1:])]
            for i, s in enumerate(slots)
        ]
        # after these slots the look-ahead has nothing to check (unless a
        # same_subtree bound moved)
        self.settled = [not self.linked[d] and not self.room_after[d] for d in range(count)]
        self._lineages: dict[int, list[int]] = {}
        # No rule ties the slots together (no slot's choice leaves anything
        # to check, nor do spread traits or same_subtree): every combination
        # of the options (each fits its slot alone) is a candidate, in the
        # walk's order.
        self.independent = all(self.settled) and not self.clauses and not self.subtrees

    def _linked(self, d: int, i: int) -> bool:
        """Whether taking a provider for slot d can change what fits slot i."""
        first, later = self.slots[d], self.slots[i]
        if first.demand.keys() & later.demand.keys():
            return True  # capacity and max_unit of a common class
        if not self.nested_aware and first.demand and later.demand:
            return True  # the one-provider-per-tree rule
        return self.isolate and first.granular and later.granular

    def _room_checks(self, rest: range,
                     wanted: Callable[[str, list[int]], bool]) -> list[_RoomCheck]:
        users: dict[str, list[int]] = {}
        for i in rest:
            for rc in self.slots[i].demand:
                users.setdefault(rc, []).append(i)
        return [
            (rc, sum(self.slots[i].demand[rc] for i in ids), tuple(ids))
            for rc, ids in users.items()
            if wanted(rc, ids)
        ]

    def lineage(self, pid: int) -> list[int]:
        found = self._lineages.get(pid)
        if found is None:
            found = self._lineages[pid] = self.snapshot.lineage(pid)
        return found

    def assignments(self, problem: Problem) -> Iterator[list[Provider]]:
        """Yield, for each valid candidate of this anchor, the provider per slot."""
        if self.independent:
            return map(list, itertools.product(*problem.options))
        search = _Search(self, problem.options)
        if not search.room_ok(self.initial_room):
            return iter(())
        return search.walk(0, None)


class _Search:
    """The walk over one anchor's options, with its partial candidate."""

    def __init__(self, plan: Plan, options: list[list[Provider]]):
        self.plan = plan
        self.options = options
        self._option_sets: list[set[Provider]] | None = None
        self._pools: dict[tuple[str, tuple[int, ...]], set[Provider]] = {}
        # the partial candidate
        self.choice: list[Provider] = []
        self.taken: dict[tuple[Provider, str], int] = {}
        self.granular_use: dict[Provider, int] = {}  # provider -> suffixed slots using it
        self.tree_user: dict[int, tuple[Provider, int]] = {}  # root -> (provider, uses), < 1.29
        self.bound: dict[int, int] = {}  # same_subtree set -> provider id all must be under

    @property
    def option_sets(self) -> list[set[Provider]]:
        if self._option_sets is None:
            self._option_sets = [set(options) for options in self.options]
        return self._option_sets

    # -- can slot i take provider p, given the partial candidate? -------------

    def fits(self, i: int, p: Provider) -> bool:
        plan = self.plan
        slot = plan.slots[i]
        if slot.granular and plan.isolate and p in self.granular_use:
            return False
        for rc, amount in plan.shared_demand[i]:
            if not p.fits(rc, amount, self.taken.get((p, rc), 0)):
                return False
        if not plan.nested_aware and slot.demand:
            user = self.tree_user.get(p.root_id)
            if user is not None and user[0] is not p:
                return False
        for n in plan.sets_of[i]:
            top = self.bound.get(n)
            if top is not None and top not in plan.lineage(p.id):
                return False
        return True

    def _place(self, i: int, p: Provider, sign: int) -> None:
        plan = self.plan
        slot = plan.slots[i]
        for rc, amount in plan.recorded[i]:
            self.taken[(p, rc)] = self.taken.get((p, rc), 0) + sign * amount
        if slot.granular:
            uses = self.granular_use.get(p, 0) + sign
            if uses:
                self.granular_use[p] = uses
            else:
                del self.granular_use[p]
        if not plan.nested_aware and slot.demand:
            uses = self.tree_user.get(p.root_id, (p, 0))[1] + sign
            if uses:
                self.tree_user[p.root_id] = (p, uses)
            else:
                del self.tree_user[p.root_id]

    # -- rules over several slots ---------------------------------------------

    def _traits_ok(self) -> bool:
        if not self.plan.clauses:
            return True
        traits: set[str] = set()
        for p in self.choice[: self.plan.last_unsuffixed + 1]:
            traits |= p.traits
        return all(clause & traits for clause in self.plan.clauses)

    def _tighten_subtrees(self, depth: int) -> dict[int, int | None] | None:
        """Update the bound of each same_subtree set holding slot ``depth``.

        The set's top must be an ancestor-or-self of every chosen member and
        be chosen itself, now or by a later slot of the set; all members must
        end up below it. Returns the previous bounds (to undo), or None when
        no top is possible any more.
        """
        previous: dict[int, int | None] = {}
        for n in self.plan.sets_of[depth]:
            members = self.plan.subtrees[n]
            chosen = {self.choice[i].id for i in members if i <= depth}
            later = [i for i in members if i > depth]
            tops = [
                a
                for a in self._common_ancestors(chosen)
                if a in chosen or any(self.plan.snapshot.get(a) in self.option_sets[i]
                                      for i in later)
            ]
            if not tops:
                self._restore(previous)
                return None
            previous[n] = self.bound.get(n)
            self.bound[n] = tops[-1]  # the highest: the weakest sound confinement
        return previous

    def _common_ancestors(self, providers: set[int]) -> list[int]:
        """Common ancestors-or-self, nearest first."""
        first, *others = providers
        common = self.plan.lineage(first)
        for pid in others:
            lineage = self.plan.lineage(pid)
            common = [a for a in common if a in lineage]
        return common

    def _restore(self, previous: dict[int, int | None]) -> None:
        for n, top in previous.items():
            if top is None:
                self.bound.pop(n, None)
            else:
                self.bound[n] = top

    def _lookahead_ok(self, depth: int, watch: list[int]) -> bool:
        p = self.choice[depth]
        for i in self.plan.linked[depth]:
            if p in self.option_sets[i] and not self._fillable(i):
                return False
        if not all(self._fillable(i) for i in watch):
            return False
        return self.room_ok(self.plan.room_after[depth])

    def _fillable(self, i: int) -> bool:
        return any(self.fits(i, q) for q in self.options[i])

    def room_ok(self, checks: list[_RoomCheck]) -> bool:
        for rc, needed, users in checks:
            pool = self._pools.get((rc, users))
            if pool is None:
                pool = self._pools[(rc, users)] = {q for i in users for q in self.options[i]}
            room = 0
            for q in pool:
                inv = q.inventories[rc]
                limit = min(inv.capacity - q.usages.get(rc, 0), inv.max_unit)
                room += max(limit - self.taken.get((q, rc), 0), 0)
                if room >= needed:
                    break
            else:
                return False
        return True

    # -- isolate: a matching of remaining suffixed slots to distinct providers ---
    # (only under isolate: a provider in granular_use is taken, the cheap test)

    def _augment(self, i: int, match: dict[int, Provider], owner: dict[Provider, int],
                 seen: set[Provider]) -> bool:
        for p in self.options[i]:
            if p in seen or p in self.granular_use or not self.fits(i, p):
                continue
            seen.add(p)
            other = owner.get(p)
            if other is None or self._augment(other, match, owner, seen):
                match[i] = p
                owner[p] = i
                return True
        return False

    def _fresh_matching(self, first: int) -> dict[int, Provider] | None:
        match: dict[int, Provider] = {}
        owner: dict[Provider, int] = {}
        for i in self.plan.granular:
            if i >= first and not self._augment(i, match, owner, set()):
                return None
        return match

    def _repair(self, match: dict[int, Provider], depth: int) -> dict[int, Provider] | None:
        match = dict(match)
        p = self.choice[depth]
        freed = match.pop(depth, None)
        if freed is p:
            return match  # the matching's own choice: nothing else uses p
        loser = next((i for i, q in match.items() if q is p), None)
        if loser is None:
            return match
        del match[loser]
        if freed is not None and self.fits(loser, freed):
            match[loser] = freed  # a swap: the common case with alike providers
            return match
        owner = {q: i for i, q in match.items()}
        return match if self._augment(loser, match, owner, {p}) else None

    # -- the walk -----------------------------------------------------------------

    def walk(self, depth: int, match: dict[int, Provider] | None) -> Iterator[list[Provider]]:
        plan = self.plan
        slot = plan.slots[depth]
        if plan.isolate and slot.granular and match is None:
            match = self._fresh_matching(depth)  # entering the suffixed slots
            if match is None:
                return
        last = depth == len(plan.slots) - 1
        used = self.granular_use if plan.isolate and slot.granular else ()
        for p in self.options[depth]:
            if p in used or not self.fits(depth, p):  # the cheap test first
                continue
            self.choice.append(p)
            if last:  # nothing left to place: check what the choice completes
                if self._completes(depth):
                    yield list(self.choice)
                self.choice.pop()
                continue
            self._place(depth, p, +1)
            previous = self._tighten_subtrees(depth) if plan.sets_of[depth] else {}
            if previous is not None:
                if match is None:  # no matching kept (no isolate, or before suffixed slots)
                    alive, child = True, None
                else:
                    child = self._next_matching(match, depth, bool(previous))
                    alive = child is not None
                if alive and self._extends(depth, child, list(previous)):
                    yield from self.walk(depth + 1, child)
                self._restore(previous)
            self._place(depth, p, -1)
            self.choice.pop()

    def _completes(self, depth: int) -> bool:
        if self.plan.sets_of[depth]:
            previous = self._tighten_subtrees(depth)
            if previous is None:
                return False
            self._restore(previous)
        return depth != self.plan.last_unsuffixed or self._traits_ok()

    def _next_matching(self, match: dict[int, Provider], depth: int,
                       bounds_moved: bool) -> dict[int, Provider] | None:
        """The matching for the slots after ``depth``, from ``match`` (the one
        for the slots from ``depth``); None when there is none: no completion."""
        if bounds_moved:
            return self._fresh_matching(depth + 1)
        return self._repair(match, depth)

    def _extends(self, depth: int, match: dict[int, Provider] | None,
                 moved_sets: list[int]) -> bool:
        if depth == self.plan.last_unsuffixed and not self._traits_ok():
            return False
        if match is not None:
            return True  # the matching is the look-ahead for suffixed slots
        if not moved_sets and self.plan.settled[depth]:
            return True
        watch = [i for n in moved_sets for i in self.plan.subtrees[n] if i > depth]
        return self._lookahead_ok(depth, watch)
