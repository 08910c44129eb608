"""Random worlds and candidate queries for property tests (hypothesis)."""

from hypothesis import assume
from hypothesis import strategies as st

from placer import exceptions
from placer.candidates.snapshot import SHARING_TRAIT, Inventory, Provider, Snapshot
from placer.schemas.allocation_candidates import parse_query

RCS = ("VCPU", "DISK_GB")
TRAITS = ("CUSTOM_A", "CUSTOM_B")
AGGS = ("00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b")


# -- random worlds and queries ---------------------------------------------------------


@st.composite
def inventories(draw):
    result = {}
    for rc in RCS:
        # Hypothesis leans to the first/smallest values: make those the rich ones.
        if draw(st.integers(0, 3)) != 3:
            total = 5 - draw(st.integers(0, 4))
            result[rc] = Inventory(
                total=total,
                reserved=draw(st.sampled_from([0, 0, 0, 1])),
                min_unit=draw(st.sampled_from([1, 1, 1, 1, 2])),
                max_unit=draw(st.sampled_from([total, total, total, 1, 2])),
                step_size=draw(st.sampled_from([1, 1, 1, 1, 2])),
                allocation_ratio=draw(st.sampled_from([1.0, 1.0, 1.5])),
            )
    return result


@st.composite
def worlds(draw):
    count = 7 - draw(st.integers(0, 6))
    providers = []
    for pid in range(1, count + 1):
        sharing = pid > 1 and draw(st.integers(0, 4)) == 4
        parent = None
        if pid > 1 and not sharing and draw(st.integers(0, 2)) != 2:
            parent = draw(st.sampled_from([p for p in providers if not p.is_sharing]))
        traits = set(draw(st.sets(st.sampled_from(TRAITS + TRAITS[:1]))))
        if sharing:
            traits.add(SHARING_TRAIT)
        invs = draw(inventories())
        usages = {rc: draw(st.integers(1, 2)) for rc in invs if draw(st.integers(0, 3)) == 3}
        providers.append(
            Provider(
                id=pid,
                uuid=f"00000000-0000-0000-0000-{pid:012d}",
                name=f"p{pid}",
                parent_id=parent.id if parent else None,
                root_id=parent.root_id if parent else pid,
                traits=frozenset(traits),
                aggregates=frozenset(draw(st.sets(st.sampled_from(AGGS)))),
                inventories=invs,
                usages=usages,
            )
        )
    return Snapshot(providers)


@st.composite
def queries(draw, snapshot):
    pairs = []
    suffixes = draw(st.sampled_from([[""], ["", "1"], ["1"], ["1", "2"], ["", "1", "2"]]))
    uuids = [p.uuid for p in snapshot.providers.values()]
    for suffix in suffixes:
        resourceless = suffix and draw(st.integers(0, 4)) == 4
        if not resourceless:
            rcs = draw(st.lists(st.sampled_from(RCS), min_size=1, max_size=2, unique=True))
            amounts = ",".join(f"{rc}:{draw(st.sampled_from([1, 1, 2]))}" for rc in rcs)
            pairs.append(("resources" + suffix, amounts))
        traits = draw(
            st.sampled_from(
                ["", "", "", "", "CUSTOM_A", "!CUSTOM_B", "in:CUSTOM_A,CUSTOM_B", "CUSTOM_B"]
            )
        )
        if traits or resourceless:
            pairs.append(("required" + suffix, traits or "CUSTOM_A"))
        member = draw(
            st.sampled_from(["", "", "", AGGS[0], f"in:{AGGS[0]},{AGGS[1]}", "!" + AGGS[1]])
        )
        if member:
            pairs.append(("member_of" + suffix, member))
        if draw(st.integers(0, 6)) == 6:
            pairs.append(("in_tree" + suffix, draw(st.sampled_from(uuids))))
    pairs.append(("group_policy", draw(st.sampled_from(["isolate", "none"]))))
    granular = [s for s in suffixes if s]
    if granular and draw(st.integers(0, 2)) == 2:
        pairs.append(("same_subtree", ",".join(granular)))
    if draw(st.integers(0, 4)) == 4:
        pairs.append(("root_required", draw(st.sampled_from(["CUSTOM_A", "!CUSTOM_A"]))))
    version = draw(st.sampled_from([(1, 39), (1, 36), (1, 28)]))
    try:
        return parse_query(pairs, version)
    except exceptions.BadRequest:
        assume(False)


def engine_key(candidate):
    return (
        frozenset(
            (u, rc, n) for u, res in candidate.allocations().items() for rc, n in res.items()
        ),
        frozenset((s, frozenset(u)) for s, u in candidate.mappings().items()),
    )


def across(per_root: list[list], limit: int) -> list:
    """A limited answer from each root's candidates (roots in answer order):
    every root's first, then every root's second, and so on, cut at
    ``limit``. A candidate two roots can give (one made of sharing
    providers only) is taken once, by the first root to reach it: a root
    whose next candidate was taken gives the one after it."""
    taken: set = set()
    answer: list = []
    streams = [iter(keys) for keys in per_root]
    while streams and len(answer) < limit:
        going = []
        for stream in streams:
            key = next((k for k in stream if k not in taken), None)
            if key is None:
                continue  # this root has nothing left
            taken.add(key)
            answer.append(key)
            going.append(stream)
            if len(answer) == limit:
                break
        streams = going
    return answer
