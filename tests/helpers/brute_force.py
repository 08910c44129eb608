"""The candidate rules read literally: every provider tried for every slot
(one per unsuffixed class, one per suffixed group) under every root, kept
when it satisfies the rules as written in search.py's docstring, and
deduplicated on (allocations, mappings). It shares no code with the engine,
which the property tests compare with it."""

import itertools

from placer.candidates import search
from tests.helpers.worlds import engine_key


def brute_force(request, snap):
    providers = list(snap.providers.values())
    if any(g.in_tree and g.in_tree not in snap.by_uuid for g in request.groups):
        return set()
    slots = [(g, {rc: n}) for g in request.groups if not g.suffix for rc, n in g.resources.items()]
    slots += [(g, dict(g.resources)) for g in request.groups if g.suffix]
    found = set()
    for anchor in providers:
        if anchor.parent_id is not None or not root_ok(request, anchor):
            continue
        for combo in itertools.product(providers, repeat=len(slots)):
            if valid(request, snap, anchor, slots, combo):
                found.add(key(request, slots, combo))
    return found


def root_ok(request, root):
    return request.root_required <= root.traits and not request.root_forbidden & root.traits


def serves(snap, p, anchor):
    if p.root_id == anchor.id:
        return True
    return p.is_sharing and any(
        q.root_id == anchor.id and q.aggregates & p.aggregates for q in snap.providers.values()
    )


def members(snap, group):
    return {
        p.id
        for p in snap.providers.values()
        if all(p.aggregates & any_of for any_of in group.member_of)
    }


def unit_ok(p, rc, n):
    inv = p.inventories.get(rc)
    return inv is not None and inv.min_unit <= n <= inv.max_unit and n % inv.step_size == 0


def has_traits(traits, group):
    return all(c & traits for c in group.trait_clauses)


def slot_ok(request, snap, anchor, group, demand, p):
    if not serves(snap, p, anchor) or group.forbidden & p.traits:
        return False
    if not all(unit_ok(p, rc, n) for rc, n in demand.items()):
        return False
    tree = snap.by_uuid[group.in_tree].root_id if group.in_tree else None
    m = members(snap, group)
    if not group.suffix:
        if tree is not None and p.root_id != tree:
            return False
        if p.root_id != anchor.id and (tree is not None or (group.member_of and p.id not in m)):
            return False
        if group.member_of and p.id not in m and anchor.id not in m:
            return False
        return not group.forbidden_aggs & (p.aggregates | anchor.aggregates)
    if not has_traits(p.traits, group) or group.forbidden_aggs & p.aggregates:
        return False
    if group.member_of and p.id not in m:
        return False
    if not demand:
        return bool(group.trait_clauses or group.member_of)
    return tree is None or p.root_id == tree


def valid(request, snap, anchor, slots, combo):
    for (group, demand), p in zip(slots, combo, strict=True):
        if not slot_ok(request, snap, anchor, group, demand, p):
            return False
    totals = {}
    for (_, demand), p in zip(slots, combo, strict=True):
        for rc, n in demand.items():
            totals[(p, rc)] = totals.get((p, rc), 0) + n
    for (p, rc), n in totals.items():
        inv = p.inventories[rc]
        if n > inv.max_unit or p.usages.get(rc, 0) + n > inv.capacity:
            return False
    unsuffixed = [p for (g, _), p in zip(slots, combo, strict=True) if not g.suffix]
    for group in request.groups:
        if not group.suffix and not has_traits(set().union(*(p.traits for p in unsuffixed)), group):
            return False
    by_suffix = {g.suffix: p for (g, _), p in zip(slots, combo, strict=True) if g.suffix}
    if request.isolate and len(set(by_suffix.values())) != len(by_suffix):
        return False
    for names in request.same_subtree:
        chosen = {by_suffix[s] for s in names}
        if not any(all(top.id in snap.lineage(p.id) for p in chosen) for top in chosen):
            return False
    if not request.nested_aware:
        giving = {p for p, _ in totals}
        if len({p.root_id for p in giving}) != len(giving):
            return False
    return True


def key(request, slots, combo):
    allocations = {}
    mappings = {}
    for (group, demand), p in zip(slots, combo, strict=True):
        mappings.setdefault(group.suffix, set()).add(p.uuid)
        for rc, n in demand.items():
            allocations[(p.uuid, rc)] = allocations.get((p.uuid, rc), 0) + n
    return (
        frozenset((u, rc, n) for (u, rc), n in allocations.items()),
        frozenset((s, frozenset(u)) for s, u in mappings.items()),
    )


def answers(request, snap) -> list:
    """The engine's whole answer, as engine_key of each candidate in order."""
    return [engine_key(c) for c in search.find_candidates(request, snap, limit=None)]


def by_anchor(request, snap) -> dict[str, set]:
    """Root uuid -> the allocations (frozensets of (uuid, class, amount)) of
    the candidates anchored there, every provider tried for every slot."""
    providers = list(snap.providers.values())
    if any(g.in_tree and g.in_tree not in snap.by_uuid for g in request.groups):
        return {}
    slots = [(g, {rc: n}) for g in request.groups if not g.suffix for rc, n in g.resources.items()]
    slots += [(g, dict(g.resources)) for g in request.groups if g.suffix]
    found: dict[str, set] = {}
    for anchor in providers:
        if anchor.parent_id is not None or not root_ok(request, anchor):
            continue
        for combo in itertools.product(providers, repeat=len(slots)):
            if valid(request, snap, anchor, slots, combo):
                found.setdefault(anchor.uuid, set()).add(key(request, slots, combo)[0])
    return found


def most_copies(allocations, snap) -> int:
    """The most candidates (``allocations``: each a frozenset of (uuid, class,
    amount), usable any number of times) that the providers' free capacity
    holds at once: every count of the first, then of the next, and so on."""
    vectors = sorted(allocations, key=sorted)
    pairs = sorted({(u, rc) for v in vectors for u, rc, _ in v})
    index = {pair: i for i, pair in enumerate(pairs)}
    free0 = []
    for u, rc in pairs:
        p = snap.by_uuid[u]
        free0.append(max(p.inventories[rc].capacity - p.usages.get(rc, 0), 0))
    memo: dict = {}

    def best(i, free):
        if i == len(vectors):
            return 0
        if (i, free) not in memo:
            result, left, count = 0, list(free), 0
            while True:
                result = max(result, count + best(i + 1, tuple(left)))
                for u, rc, n in vectors[i]:
                    left[index[u, rc]] -= n
                if min(left) < 0:
                    break
                count += 1
            memo[i, free] = result
        return memo[i, free]

    return best(0, tuple(free0))
