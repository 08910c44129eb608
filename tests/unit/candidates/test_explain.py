"""The explain funnel (candidates/explanation): examples, and properties that
tie it to the search it explains."""

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from placer.candidates import explanation, search
from placer.candidates.explanation import filters, render
from placer.candidates.explanation.provider import own_failures
from placer.candidates.explanation.steps import Step
from placer.candidates.explanation.unit_rules import RULES
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import SHARING_TRAIT, Inventory, Provider, Snapshot
from placer.schemas.allocation_candidates import parse_query
from tests.helpers.floors import answered, at_least, examples
from tests.helpers.worlds import queries, worlds

AGG = "00000000-0000-0000-0000-0000000000a1"


def rp(pid, name, parent=None, root=None, inv=None, used=None, traits=(), aggs=()):
    return Provider(id=pid, uuid=f"00000000-0000-0000-0000-{pid:012d}", name=name,
                    parent_id=parent, root_id=root or pid, traits=frozenset(traits),
                    aggregates=frozenset(aggs), inventories=inv or {}, usages=used or {})


def cloud():
    """compute-1: 64 VCPU with 16 used, a NIC child; compute-2: 32 VCPU
    (max_unit 8) and AVX2; a sharing disk pool in AGG with compute-1."""
    return Snapshot([
        rp(1, "compute-1", inv={"VCPU": Inventory(64), "MEMORY_MB": Inventory(4096)},
           used={"VCPU": 16}, aggs=[AGG]),
        rp(2, "compute-1-nic", parent=1, root=1, inv={"NET_BW_EGR_KILOBIT_PER_SEC":
                                                      Inventory(1000)}, traits=["CUSTOM_NIC"]),
        rp(3, "compute-2", inv={"VCPU": Inventory(32, max_unit=8),
                                "MEMORY_MB": Inventory(2048, step_size=512)},
           traits=["HW_CPU_X86_AVX2"]),
        rp(4, "disk-pool", inv={"DISK_GB": Inventory(1000)}, traits=[SHARING_TRAIT],
           aggs=[AGG]),
    ])


def run(query, snapshot=None, version=(1, 39), **kw):
    request = parse_query([tuple(p.split("=", 1)) for p in query.split("&")], version)
    return explanation.explain(request, snapshot or cloud(), **kw)


def run_request(query, version=(1, 39)):
    return parse_query([tuple(p.split("=", 1)) for p in query.split("&")], version)


def removable(step: Step, request: CandidateRequest) -> bool:
    """The step's constraint can be dropped from the query, leaving a valid
    one: not a group's last positive filter when it has no resources (it
    would then match nothing), nor a rule the query cannot drop."""
    if step.group is None:
        if step.constraint == "same_subtree":
            # a resourceless group must stay in some same_subtree
            resourceless = {g.suffix for g in request.groups if not g.resources}
            others = {s for subtree in request.same_subtree if ",".join(subtree) != step.value
                      for s in subtree}
            return not (resourceless & set(step.value.split(",")) - others)
        return step.constraint in ("root_required", "root_forbidden", "isolate")
    group = next(g for g in request.groups if g.suffix == step.group)
    if step.constraint not in filters.POSITIVE or group.resources:
        return step.constraint not in ("class", "providers", *(r.kind for r in RULES))
    return sum(1 for kind, _ in filters.of(group) if kind in filters.POSITIVE) > 1


def without(request: CandidateRequest, step: Step) -> CandidateRequest:
    """The request without the constraint of a removable step."""
    if step.group is None:
        if step.constraint == "root_required":
            return dataclasses.replace(
                request, root_required=request.root_required - {step.value})
        if step.constraint == "root_forbidden":
            return dataclasses.replace(
                request, root_forbidden=request.root_forbidden - {step.value})
        if step.constraint == "same_subtree":
            return dataclasses.replace(request, same_subtree=tuple(
                s for s in request.same_subtree if ",".join(s) != step.value))
        assert step.constraint == "isolate", step
        return dataclasses.replace(request, group_policy="none")
    groups = []
    for group in request.groups:
        if group.suffix == step.group:
            kept = [f for f in filters.of(group)
                    if (f[0], filters.text(f)) != (step.constraint, step.value)]
            group = filters.with_only(group, kept)
        groups.append(group)
    return dataclasses.replace(request, groups=tuple(groups))


def by_key(result):
    return {(s.group, s.constraint, s.value): s for s in result.steps}


def test_capacity_names_the_largest_free_amount():
    result = run("resources=VCPU:64")
    first = result.first_empty
    assert (first.group, first.constraint, first.value) == ("", "capacity", "VCPU:64")
    assert first.message == ("no provider has 64 free VCPU: the largest free amount is 48 on "
                             "compute-1")
    funnel = [s for g in render.body(result)["groups"] for s in g["funnel"]]
    assert funnel[0] == {"constraint": "class", "value": "VCPU", "providers": 2, "trees": 2}
    assert funnel[1]["providers"] == 0 and funnel[1]["trees"] == 0
    assert result.candidates == 0
    assert render.body(result)["first_empty"] == {
        "group": "", "constraint": "capacity", "value": "VCPU:64", "message": first.message}


def test_a_satisfiable_query_names_nothing_and_counts_the_answer():
    result = run("resources=VCPU:4,DISK_GB:10&limit=1")
    assert result.first_empty is None
    steps = by_key(result)
    assert steps[(None, "candidates", "")].candidates == 1  # only compute-1 gets the pool
    assert steps[(None, "limit", "1")].candidates == 1
    assert result.candidates == 1
    assert steps[("", "class", "DISK_GB")].trees == 1


def test_short_answer_shows_the_limit_and_max_candidates():
    result = run("resources=VCPU:1&limit=5", max_candidates=1)
    steps = by_key(result)
    assert steps[(None, "candidates", "")].candidates == 2
    assert steps[(None, "max_allocation_candidates", "1")].candidates == 1
    assert result.candidates == 1 and result.first_empty is None


def test_unit_rules():
    only_2 = Snapshot([cloud().get(3)])
    assert run("resources=VCPU:16", only_2).first_empty.message == (
        "no provider with room for 16 VCPU accepts so much at once: the largest max_unit is 8 "
        "on compute-2")
    assert run("resources=MEMORY_MB:100", only_2).first_empty.message == (
        "no provider with room for 100 MEMORY_MB takes it in steps that divide 100: step sizes "
        "are 512")
    result = run("resources=VCPU:4,MEMORY_MB:100&required=HW_CPU_X86_AVX2")
    first = result.first_empty
    # compute-1 lacks the trait, compute-2 takes memory in steps of 512
    assert (first.constraint, first.value) == ("required", "HW_CPU_X86_AVX2")
    assert by_key(result)[("", "step_size", "MEMORY_MB:100")].trees == 1
    first = run("resources=VCPU:20&required=HW_CPU_X86_AVX2").first_empty
    assert (first.constraint, first.value) == ("required", "HW_CPU_X86_AVX2")
    assert by_key(run("resources=VCPU:20"))[("", "max_unit", "VCPU:20")].providers == 1


def test_traits_and_aggregates_in_words():
    first = run("resources=VCPU:1&required=CUSTOM_GPU").first_empty
    assert first.message == ("no provider left for the unsuffixed group has trait CUSTOM_GPU "
                             "(on the providers it uses together, in one tree)")
    first = run("resources1=VCPU:1&required1=!HW_CPU_X86_AVX2&member_of1=" + AGG
                + "&resources2=VCPU:1&required2=HW_CPU_X86_AVX2&group_policy=none").first_empty
    assert (first.group, first.constraint) == (None, "one_tree")
    assert first.message.startswith("no tree can serve every group: group '1' fits in 1 tree")


def test_request_wide_constraints():
    first = run("resources=VCPU:1&root_required=CUSTOM_NIC").first_empty
    assert (first.constraint, first.value) == ("root_required", "CUSTOM_NIC")
    first = run("resources1=VCPU:1&resources2=MEMORY_MB:512&group_policy=none").first_empty
    assert first is None
    first = run("resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate").first_empty
    assert first.constraint == "isolate" and removable(first, run_request(
        "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate"))
    first = run("resources1=VCPU:1&resources2=NET_BW_EGR_KILOBIT_PER_SEC:1"
                "&group_policy=none&required2=CUSTOM_NIC").first_empty
    assert first is None
    first = run("resources=VCPU:1,NET_BW_EGR_KILOBIT_PER_SEC:1", version=(1, 28)).first_empty
    assert first.constraint == "one_provider_per_tree"
    assert not removable(first, run_request("resources=VCPU:1", (1, 28)))
    first = run("resources=VCPU:40,MEMORY_MB:1&resources1=VCPU:20&group_policy=none"
                ).first_empty
    assert first.constraint == "together"


def test_same_subtree():
    first = run("resources1=VCPU:1&resources2=NET_BW_EGR_KILOBIT_PER_SEC:1&group_policy=none"
                "&same_subtree=1,2").first_empty
    assert first is None
    first = run("resources1=MEMORY_MB:1&resources2=NET_BW_EGR_KILOBIT_PER_SEC:1"
                "&group_policy=none&same_subtree=2,1").first_empty
    assert first is None  # compute-1 is above its NIC
    snap = cloud()
    snap = Snapshot([*snap.providers.values(), rp(5, "compute-1-nic2", parent=1, root=1,
                                                  inv={"VGPU": Inventory(1)})])
    first = run("resources1=VGPU:1&resources2=NET_BW_EGR_KILOBIT_PER_SEC:1"
                "&group_policy=none&same_subtree=1,2", snap).first_empty
    assert (first.constraint, first.value) == ("same_subtree", "1,2")


def test_unknown_in_tree():
    first = run("resources=VCPU:1&in_tree=00000000-0000-0000-0000-000000000099").first_empty
    assert first.message == "in_tree: there is no provider 00000000-0000-0000-0000-000000000099"


def test_provider_report_says_by_how_much():
    result = run("resources=VCPU:64,DISK_GB:2000&required=CUSTOM_NIC",
                 provider="00000000-0000-0000-0000-000000000001")
    body = render.body(result)["provider"]
    assert body["name"] == "compute-1"
    details = {(f["constraint"], f["value"]): f["detail"] for f in body["failures"]}
    assert details[("capacity", "VCPU:64")] == (
        "48 VCPU free on compute-1 (capacity 64, used 16), 64 asked: 16 short")
    assert ("required", "CUSTOM_NIC") not in details  # judged on the tree
    tree = {(f["constraint"], f["value"]): f["detail"] for f in body["tree"]["failures"]}
    assert tree[("capacity", "DISK_GB:2000")] == (
        "1000 DISK_GB free on disk-pool (capacity 1000, used 0), 2000 asked: 1000 short")
    assert tree[("capacity", "VCPU:64")].endswith("16 short")
    result = run("resources1=VCPU:1&required1=HW_CPU_X86_AVX2&member_of1=" + AGG,
                 provider="00000000-0000-0000-0000-000000000003")
    failures = result.provider.failures
    assert [(f.constraint, f.detail) for f in failures] == [
        ("member_of", f"compute-2: in none of the aggregates {AGG}")]
    assert [f.constraint for f in result.provider.tree_failures] == ["member_of"]
    result = run("resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate",
                 provider="00000000-0000-0000-0000-000000000003")
    assert result.provider.failures == []
    assert [f.constraint for f in result.provider.tree_failures] == ["isolate"]


# -- properties ------------------------------------------------------------------------

FLOOR = 12  # examples with an answer each property test must see (45 to 51 of 120 seen)


def _key(step):
    return step.group, step.constraint, step.value


def _monotone(result):
    for _, steps in result.groups:
        trees = [s.trees for s in steps if s.trees is not None]
        assert trees == sorted(trees, reverse=True), steps
        assert steps[-1].tree_ids <= steps[0].tree_ids
    finals = [steps[-1].tree_ids for _, steps in result.groups]
    trees = [s for s in result.request_steps if s.trees is not None]
    assert all(trees[0].tree_ids <= f for f in finals)
    for before, after in zip(trees, trees[1:], strict=False):
        assert after.tree_ids <= before.tree_ids


@at_least(FLOOR)
@settings(max_examples=examples(120))
@given(st.data())
def test_explain_agrees_with_the_search(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    found = answered(len(list(search.find_candidates(request, snap, limit=None))))
    result = explanation.explain(request, snap)
    _monotone(result)
    assert result.candidates == found
    first = result.first_empty
    assert (first is None) == (found > 0)
    if first is None:
        return
    assert first.message
    if removable(first, request):
        relaxed = explanation.explain(without(request, first), snap)
        again = relaxed.first_empty
        if again is None:
            assert next(search.find_candidates(relaxed.request, snap), None) is not None
        else:
            order = [_key(s) for s in result.steps]
            assert order.index(_key(again)) > order.index(_key(first)), (first, again)


@at_least(FLOOR)
@settings(max_examples=examples(120))
@given(st.data())
def test_tree_report_agrees_with_the_search(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    provider = data.draw(st.sampled_from(list(snap.providers.values())))
    report = explanation.explain(request, snap, provider=provider.uuid).provider
    alone = Snapshot(snap.providers.values(), anchor_ids=[provider.root_id])
    anchored = answered(next(search.find_candidates(request, alone, limit=None), None)
                        is not None)
    assert anchored == (report.tree_failures == []), report.tree_failures
    assert all(f.detail for f in report.failures + report.tree_failures)


def test_provider_report_judges_member_of_as_the_search():
    """A child in one aggregate and its root in the other: neither is in
    both, so the search finds nothing, and the child's report says why."""
    other = "00000000-0000-0000-0000-0000000000b2"
    snap = Snapshot([
        rp(1, "host", aggs=[other]),
        rp(2, "host-numa", parent=1, root=1, inv={"VCPU": Inventory(8)}, aggs=[AGG]),
    ])
    query = f"resources=VCPU:1&member_of={AGG}&member_of={other}"
    result = run(query, snap, provider="00000000-0000-0000-0000-000000000002")
    assert result.candidates == 0
    assert [(f.constraint, f.value) for f in result.provider.failures] == [("member_of", other)]
    assert "its root host is" in result.provider.failures[0].detail


def test_provider_report_ignores_in_tree_of_a_group_without_resources():
    # the search ignores in_tree there too: compute-2 serves the group
    query = ("resources2=VCPU:1&required1=HW_CPU_X86_AVX2"
             "&in_tree1=00000000-0000-0000-0000-000000000001&same_subtree=1,2"
             "&group_policy=none")
    result = run(query, provider="00000000-0000-0000-0000-000000000003")
    assert result.candidates > 0
    assert result.provider.failures == []


@at_least(FLOOR)
@settings(max_examples=examples(120))
@given(st.data())
def test_providers_serving_a_candidate_fail_nothing_by_themselves(data):
    """Each provider that serves a suffixed group in a candidate, and each
    provider of the anchor's own tree serving the unsuffixed group, meets
    that group's own rules in the provider report."""
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    groups = {g.suffix: g for g in request.groups}
    for candidate in answered(list(search.find_candidates(request, snap, limit=20))):
        for suffix, served in candidate.groups.items():
            for p, gives in served:
                if not suffix and p.root_id != candidate.anchor.id:
                    continue  # a sharing provider is judged against its own root
                group = groups[suffix]
                if not suffix:  # it gives some of the unsuffixed group's classes
                    group = dataclasses.replace(group, resources=gives)
                failures = own_failures(group, p, snap.get(p.root_id), snap)
                assert failures == [], (suffix, p.name, failures)
