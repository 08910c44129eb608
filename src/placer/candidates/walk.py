"""A request's walk over the candidate roots, one batch of trees at a time:
what a search (service.find) and a count of copies (count.py) share.

The trees that serve others (in_tree targets, sharing providers) are
loaded once and join every batch; the candidate roots come in answer
order ([placer] candidate_order: by id, shuffled, or ranked by the trees'
stored scores for spread and pack, see order.py and ranking.py).
"""

import random
from collections.abc import Iterator

from placer.candidates import batches, precheck, ranking
from placer.candidates.batches import InOrder, Ranked, Shuffled, Sizes
from placer.candidates.order import Order
from placer.candidates.request import CandidateRequest
from placer.candidates.root_plan import RootPlan
from placer.candidates.snapshot import Snapshot
from placer.candidates.store import Names, SearchStore


def start(store: SearchStore, request: CandidateRequest) -> "Walk | None":
    """The walk of ``request``, None when it finds nothing anywhere (an
    unknown name where the reference answers empty, an unknown in_tree
    provider, a member_of no provider meets). Raises BadRequest for an
    unknown name where the reference does."""
    names = store.names(request)
    if names.lack_some_of(request):
        # Only an unknown name needs the whole picture: a 400, or the
        # reference's early empty answer.
        snapshot = store.whole_cloud(request, list(names.classes.values()))
        if not precheck.check_names(request, snapshot, names.classes, names.traits):
            return None
    walk = Walk(store, request, names)
    return None if walk.hopeless else walk


class Walk:
    """The request's walk over candidate roots, one batch of trees at a time."""

    def __init__(self, store: SearchStore, request: CandidateRequest, names: Names):
        self.store, self.request, self.names = store, request, names
        self.targets = self._targets() if names.classes else {}
        self.hopeless = not names.classes or not self._possible()
        if self.hopeless:
            return
        rc_ids = list(names.classes.values())
        # the trees that may serve others: in_tree targets and sharing providers'
        serving = set(self.targets.values()) | store.sharing_roots(rc_ids)
        if any(not g.resources for g in request.groups):
            serving |= store.classless_sharing_roots(rc_ids)
        self.serving_roots = serving
        self.class_names = store.class_names()
        self.serving = store.trees(sorted(serving), self.class_names)
        sharing = [p for p in self.serving if p.is_sharing and p.inventories]
        self.sharing = sharing
        # A tree's aggregates matter only to aggregate filters, to the sharing
        # providers it may be served by, and to resourceless groups (which
        # may use a sharing provider of any tree); provider summaries do not
        # show them.
        self.aggregates = any(g.member_of or g.forbidden_aggs or not g.resources
                              for g in request.groups) or any(p.is_sharing for p in self.serving)
        self.roots = store.roots(RootPlan(request, names, self.targets, sharing).plan())

    def _targets(self) -> dict[str, int]:
        uuids = {g.in_tree for g in self.request.groups if g.in_tree}
        return self.store.in_tree_roots(uuids) if uuids else {}

    def _possible(self) -> bool:
        """False when the engine would find nothing anywhere: an unknown
        in_tree provider, or a member_of no provider meets."""
        uuids = {g.in_tree for g in self.request.groups if g.in_tree}
        if len(self.targets) < len(uuids):
            return False
        # a group with resources needs a member in the roots' own filter;
        # a resourceless one would otherwise walk every root for nothing
        return all(self.store.any_member([self.names.agg_ids(s) for s in group.member_of])
                   for group in self.request.groups if group.member_of and not group.resources)

    def batches(self, sizes: batches.Sizes, order: Order, rng: random.Random | None = None
                ) -> Iterator[Snapshot]:
        """Snapshots of consecutive runs of candidate roots, in answer order."""
        pages = self._pages(sizes, order, rng)
        page: list[int] = []
        walked = 0
        while True:
            want = sizes.next_batch(walked)
            if not page:
                page = pages.next(sizes.next_page(want))
                if not page:
                    return
            ids, page = page[:want], page[want:]
            walked += len(ids)
            yield self._snapshot(ids)

    def batches_of(self, root_ids: list[int], size: int = 1000) -> Iterator[Snapshot]:
        """Snapshots of these candidate roots, ``size`` at a time."""
        for start in range(0, len(root_ids), size):
            yield self._snapshot(root_ids[start:start + size])

    def _snapshot(self, ids: list[int]) -> Snapshot:
        """The trees of these roots, and those serving them, answering for them."""
        trees = self.store.trees([i for i in ids if i not in self.serving_roots],
                                 self.class_names, self.aggregates)
        return Snapshot(self.serving + trees, anchor_ids=ids)

    def _pages(self, sizes: Sizes, order: Order, rng: random.Random | None
               ) -> InOrder | Shuffled | Ranked:
        """The candidate roots in ``order``, a page at a time."""
        terms = self._terms(order)
        if not terms:
            if order.name == "random":
                return batches.Shuffled(self.roots, self.store.id_range(),
                                        rng or random.Random(), sizes.largest,
                                        confined=bool(self.targets))
            return batches.InOrder(self.roots)
        best: batches.RankedRoots | batches.Listed
        if self.targets:  # in_tree confines the answer to a few trees: rank them all
            best = batches.Listed(self._ranked_roots(order, terms))
        else:
            walk = ranking.Ranking(self.store, order, terms)
            best = batches.RankedRoots(self.roots, walk, tail=all(t.least == 0 for t in terms))
        return batches.Ranked(best, order.pool_size(sizes.wanted), rng)

    def _ranked_roots(self, order: Order, terms: list[ranking.Term]) -> list[int]:
        """All candidate roots, by (rank, id) from their stored scores."""
        roots = self.roots.all()
        free = self.store.free(roots, [t.rc_id for t in terms])
        return sorted(roots, key=lambda root: (ranking.rank(order, terms, free.get(root, {})),
                                               root))

    def _terms(self, order: Order) -> list[ranking.Term]:
        """The classes of a spread or pack walk, none for the others (or
        when the scores are not kept, or no requested class weighs): a
        class no sharing provider holds must come from the tree itself,
        so trees lacking the least amount a group asks of it are skipped."""
        if not order.scored or not self.store.scores_kept:
            return []
        terms = []
        for rc in order.weighted(self.request.resource_classes()):
            shared = any(rc in s.inventories for s in self.sharing)
            least = 0 if shared else min(g.resources[rc] for g in self.request.groups
                                         if rc in g.resources)
            terms.append(ranking.Term(self.names.classes[rc], order.weight(rc), least))
        return terms
