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
- otherwise: every remaining slot must keep a provider that still fits, and
  per class the remaining demand must not exceed the remaining free room.
"""

from collections.abc import Iterator

from placer.candidates._domains import Problem
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Snapshot


class _Search:
    def __init__(self, problem: Problem, request: CandidateRequest, snapshot: Snapshot):
        self.snapshot = snapshot
        self.slots = problem.slots
        self.clauses = problem.clauses
        self.isolate = request.isolate
        self.nested_aware = request.nested_aware
        self.last_unsuffixed = max(
            (i for i, s in enumerate(self.slots) if not s.granular), default=-1
        )
        self.granular = [i for i, s in enumerate(self.slots) if s.granular]
        self.option_sets = [set(s.options) for s in self.slots]
        index = {s.suffix: i for i, s in enumerate(self.slots) if s.granular}
        self.subtrees = [sorted(index[sfx] for sfx in group) for group in request.same_subtree]
        self.sets_of = [
            [n for n, members in enumerate(self.subtrees) if i in members]
            for i in range(len(self.slots))
        ]
        self._lineages: dict[int, list[int]] = {}
        # the partial candidate
        self.choice: list[int] = []
        self.taken: dict[tuple[int, str], int] = {}
        self.granular_use: dict[int, int] = {}  # provider id -> suffixed slots using it
        self.tree_user: dict[int, tuple[int, int]] = {}  # root -> (provider, uses), < 1.29
        self.bound: dict[int, int] = {}  # same_subtree set -> provider all must be under

    def lineage(self, pid: int) -> list[int]:
        found = self._lineages.get(pid)
        if found is None:
            found = self._lineages[pid] = self.snapshot.lineage(pid)
        return found

    # -- can slot i take provider pid, given the partial candidate? -----------

    def fits(self, i: int, pid: int) -> bool:
        slot = self.slots[i]
        if self.isolate and slot.granular and pid in self.granular_use:
            return False
        provider = self.snapshot.get(pid)
        for rc, amount in slot.demand.items():
            if not provider.fits(rc, amount, self.taken.get((pid, rc), 0)):
                return False
        if not self.nested_aware and slot.demand:
            user = self.tree_user.get(provider.root_id)
            if user is not None and user[0] != pid:
                return False
        for n in self.sets_of[i]:
            top = self.bound.get(n)
            if top is not None and top not in self.lineage(pid):
                return False
        return True

    def _place(self, i: int, pid: int, sign: int) -> None:
        slot = self.slots[i]
        for rc, amount in slot.demand.items():
            self.taken[(pid, rc)] = self.taken.get((pid, rc), 0) + sign * amount
        if slot.granular:
            self.granular_use[pid] = self.granular_use.get(pid, 0) + sign
            if not self.granular_use[pid]:
                del self.granular_use[pid]
        if not self.nested_aware and slot.demand:
            root = self.snapshot.get(pid).root_id
            uses = self.tree_user.get(root, (pid, 0))[1] + sign
            if uses:
                self.tree_user[root] = (pid, uses)
            else:
                del self.tree_user[root]

    # -- rules over several slots ---------------------------------------------

    def _traits_ok(self) -> bool:
        traits: set[str] = set()
        for i in range(self.last_unsuffixed + 1):
            traits |= self.snapshot.get(self.choice[i]).traits
        return all(clause & traits for clause in self.clauses)

    def _tighten_subtrees(self, depth: int) -> dict[int, int | None] | None:
        """Update the bound of each same_subtree set holding slot ``depth``.

        The set's top must be an ancestor-or-self of every chosen member and
        be chosen itself, now or by a later slot of the set; all members must
        end up below it. Returns the previous bounds (to undo), or None when
        no top is possible any more.
        """
        previous: dict[int, int | None] = {}
        for n in self.sets_of[depth]:
            members = self.subtrees[n]
            chosen = {self.choice[i] for i in members if i <= depth}
            later = [i for i in members if i > depth]
            tops = [
                a
                for a in self._common_ancestors(chosen)
                if a in chosen or any(a in self.option_sets[i] for i in later)
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
        common = self.lineage(first)
        for pid in others:
            lineage = self.lineage(pid)
            common = [a for a in common if a in lineage]
        return common

    def _restore(self, previous: dict[int, int | None]) -> None:
        for n, top in previous.items():
            if top is None:
                self.bound.pop(n, None)
            else:
                self.bound[n] = top

    def _lookahead_ok(self, depth: int, watch: list[int]) -> bool:
        rest = range(depth + 1, len(self.slots))
        pid = self.choice[depth]
        for i in rest:
            if (pid in self.option_sets[i] or i in watch) and not any(
                self.fits(i, q) for q in self.slots[i].options
            ):
                return False
        return self._capacity_ok(rest)

    def _capacity_ok(self, rest: range) -> bool:
        demand: dict[str, int] = {}
        pool: dict[str, set[int]] = {}
        for i in rest:
            for rc, amount in self.slots[i].demand.items():
                demand[rc] = demand.get(rc, 0) + amount
                pool.setdefault(rc, set()).update(self.slots[i].options)
        for rc, needed in demand.items():
            room = 0
            for pid in pool[rc]:
                provider = self.snapshot.get(pid)
                inv = provider.inventories[rc]
                limit = min(inv.capacity - provider.usages.get(rc, 0), inv.max_unit)
                room += max(limit - self.taken.get((pid, rc), 0), 0)
                if room >= needed:
                    break
            else:
                return False
        return True

    # -- isolate: a matching of remaining suffixed slots to distinct providers ---

    def _augment(self, i: int, match: dict[int, int], owner: dict[int, int], seen) -> bool:
        for pid in self.slots[i].options:
            if pid in seen or not self.fits(i, pid):
                continue
            seen.add(pid)
            other = owner.get(pid)
            if other is None or self._augment(other, match, owner, seen):
                match[i] = pid
                owner[pid] = i
                return True
        return False

    def _fresh_matching(self, first: int) -> dict[int, int] | None:
        match: dict[int, int] = {}
        owner: dict[int, int] = {}
        for i in self.granular:
            if i >= first and not self._augment(i, match, owner, set()):
                return None
        return match

    def _repair(self, match: dict[int, int], depth: int) -> dict[int, int] | None:
        match = dict(match)
        match.pop(depth, None)
        pid = self.choice[depth]
        owner = {p: i for i, p in match.items()}
        loser = owner.pop(pid, None)
        if loser is None:
            return match
        del match[loser]
        return match if self._augment(loser, match, owner, {pid}) else None

    # -- the walk -----------------------------------------------------------------

    def run(self) -> Iterator[list[int]]:
        yield from self._walk(0, None)

    def _walk(self, depth: int, match: dict[int, int] | None) -> Iterator[list[int]]:
        if depth == len(self.slots):
            yield list(self.choice)
            return
        slot = self.slots[depth]
        if self.isolate and slot.granular and match is None:
            match = self._fresh_matching(depth)  # entering the suffixed slots
            if match is None:
                return
        for pid in slot.options:
            if not self.fits(depth, pid):
                continue
            self.choice.append(pid)
            self._place(depth, pid, +1)
            previous = self._tighten_subtrees(depth) if self.sets_of[depth] else {}
            if previous is not None:
                child = self._next_matching(match, depth, bool(previous))
                if child is not False and self._extends(depth, child, list(previous)):
                    yield from self._walk(depth + 1, child)
                self._restore(previous)
            self._place(depth, pid, -1)
            self.choice.pop()

    def _next_matching(self, match, depth: int, bounds_moved: bool):
        """The matching for the slots after ``depth``; False: no completion."""
        if match is None:
            return None
        child = self._fresh_matching(depth + 1) if bounds_moved else self._repair(match, depth)
        return False if child is None else child

    def _extends(self, depth: int, match, moved_sets: list[int]) -> bool:
        if depth == self.last_unsuffixed and not self._traits_ok():
            return False
        if match is not None:
            return True  # the matching is the look-ahead for suffixed slots
        watch = [i for n in moved_sets for i in self.subtrees[n] if i > depth]
        return self._lookahead_ok(depth, watch)


def assignments(
    problem: Problem, request: CandidateRequest, snapshot: Snapshot
) -> Iterator[list[int]]:
    """Yield, for each valid candidate of this anchor, the provider id per slot."""
    return _Search(problem, request, snapshot).run()
