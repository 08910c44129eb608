"""The worked GET /allocation_candidates examples of the documentation
(usage guide: provider trees, sharing providers, traits, granular groups,
in_tree, root_required, same_subtree) and of the specs (nested magic,
request group mappings, any-traits, forbidden aggregates), over HTTP.

Where a document's diagram is missing, the model is rebuilt from the answers
it lists and the comment says so; such trees were also built on the
reference server, which gives exactly the answers asserted here.
"""

import pytest

from tests.helpers.candidates import SHARING, Env, alloc, mapping

TRIO = "resources=VCPU:1,MEMORY_MB:512,DISK_GB:500"
HOST = {"VCPU": 8, "MEMORY_MB": 1024, "DISK_GB": 1000}


@pytest.fixture
def env(api):
    return Env(api)


# -- Sharing resource providers ----------------------------------------------

def test_sharing_providers_flat(env):
    env.rp("SS1", inv={"DISK_GB": 1000}, traits=[SHARING], aggs=["aggA"])
    env.rp("SS2", inv={"DISK_GB": 1000}, traits=[SHARING])
    env.rp("CN1", inv=HOST, aggs=["aggA"])
    env.rp("CN2", inv=HOST)
    answer = env.ok(TRIO)
    assert answer.allocs == {
        alloc(CN1={"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 500}),
        alloc(CN2={"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 500}),
        alloc(CN1={"VCPU": 1, "MEMORY_MB": 512}, SS1={"DISK_GB": 500}),
    }
    # SS2 shares with nobody: it is in no candidate and no summary
    assert answer.names == {"CN1", "CN2", "SS1"}


def nested_sharing(env):
    env.rp("SS1", inv={"DISK_GB": 1000}, traits=[SHARING], aggs=["aggA"])
    env.rp("CN1", inv={"MEMORY_MB": 1024, "DISK_GB": 1000}, aggs=["aggA", "aggB"])
    env.rp("NUMA1_1", parent="CN1", inv={"VCPU": 8})
    env.rp("NUMA1_2", parent="CN1", inv={"VCPU": 8})
    env.rp("CN2", inv={"MEMORY_MB": 1024, "DISK_GB": 1000}, aggs=["aggA"])
    env.rp("NUMA2_1", parent="CN2", inv={"VCPU": 8}, aggs=["aggB"])
    env.rp("NUMA2_2", parent="CN2", inv={"VCPU": 8})


def local(numa, cn):
    return alloc(**{numa: {"VCPU": 1}, cn: {"MEMORY_MB": 512, "DISK_GB": 500}})


def shared(numa, cn):
    return alloc(**{numa: {"VCPU": 1}, cn: {"MEMORY_MB": 512}, "SS1": {"DISK_GB": 500}})


EIGHT = {local("NUMA1_1", "CN1"), local("NUMA1_2", "CN1"),
         local("NUMA2_1", "CN2"), local("NUMA2_2", "CN2"),
         shared("NUMA1_1", "CN1"), shared("NUMA1_2", "CN1"),
         shared("NUMA2_1", "CN2"), shared("NUMA2_2", "CN2")}
ALL_SEVEN = {"SS1", "CN1", "NUMA1_1", "NUMA1_2", "CN2", "NUMA2_1", "NUMA2_2"}


def test_sharing_provider_serves_the_whole_tree(env):
    nested_sharing(env)
    answer = env.ok(TRIO)
    assert answer.allocs == EIGHT
    assert answer.names == ALL_SEVEN


# -- Filtering aggregates ----------------------------------------------------

def test_member_of_on_the_root_spans_the_tree(env):
    nested_sharing(env)
    answer = env.ok(TRIO + "&member_of={aggA}")
    assert answer.allocs == EIGHT
    assert answer.names == ALL_SEVEN


def test_member_of_on_a_child_does_not_span_the_tree(env):
    nested_sharing(env)
    answer = env.ok(TRIO + "&member_of={aggB}")
    assert answer.allocs == {local("NUMA1_1", "CN1"), local("NUMA1_2", "CN1")}
    assert answer.names == {"CN1", "NUMA1_1", "NUMA1_2"}


# -- Filtering by traits -----------------------------------------------------

def nics(env):
    env.rp("CN1", inv=HOST)
    env.rp("NIC1_1", parent="CN1", inv={"SRIOV_NET_VF": 8}, traits=["HW_NIC_ACCEL_SSL"])
    env.rp("NIC1_2", parent="CN1", inv={"SRIOV_NET_VF": 8})


CN1_TRIO = {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 500}
TRIO_VF = TRIO + ",SRIOV_NET_VF:2"


def test_required_trait_picks_the_nic_with_it(env):
    nics(env)
    answer = env.ok(TRIO_VF + "&required=HW_NIC_ACCEL_SSL")
    assert answer.allocs == {alloc(CN1=CN1_TRIO, NIC1_1={"SRIOV_NET_VF": 2})}
    assert answer.summaries["NIC1_1"]["traits"] == ["HW_NIC_ACCEL_SSL"]


def test_forbidden_trait_excludes_the_nic_with_it(env):
    nics(env)
    assert env.ok(TRIO_VF + "&required=!HW_NIC_ACCEL_SSL").allocs == {
        alloc(CN1=CN1_TRIO, NIC1_2={"SRIOV_NET_VF": 2})}


def test_unrequested_trait_is_ignored(env):
    nics(env)
    answer = env.ok(TRIO_VF)
    assert answer.allocs == {alloc(CN1=CN1_TRIO, NIC1_1={"SRIOV_NET_VF": 2}),
                             alloc(CN1=CN1_TRIO, NIC1_2={"SRIOV_NET_VF": 2})}
    assert answer.names == {"CN1", "NIC1_1", "NIC1_2"}


# -- Granular resource requests ----------------------------------------------

GRANULAR = (TRIO + "&resources1=SRIOV_NET_VF:1&required1=HW_NIC_ACCEL_SSL"
            "&resources2=SRIOV_NET_VF:1")


def test_granular_isolate_uses_two_nics(env):
    nics(env)
    answer = env.ok(GRANULAR + "&group_policy=isolate")
    assert answer.with_mappings == {(
        alloc(CN1=CN1_TRIO, NIC1_1={"SRIOV_NET_VF": 1}, NIC1_2={"SRIOV_NET_VF": 1}),
        mapping({"": ["CN1"], "1": ["NIC1_1"], "2": ["NIC1_2"]}))}


def test_granular_none_may_use_one_nic_twice(env):
    nics(env)
    answer = env.ok(GRANULAR + "&group_policy=none")
    assert answer.with_mappings == {
        (alloc(CN1=CN1_TRIO, NIC1_1={"SRIOV_NET_VF": 1}, NIC1_2={"SRIOV_NET_VF": 1}),
         mapping({"": ["CN1"], "1": ["NIC1_1"], "2": ["NIC1_2"]})),
        (alloc(CN1=CN1_TRIO, NIC1_1={"SRIOV_NET_VF": 2}),
         mapping({"": ["CN1"], "1": ["NIC1_1"], "2": ["NIC1_1"]})),
    }


def test_granular_member_of_does_not_span_the_tree(env):
    # "if member_of<N> is specified ... it just sees whether the specified
    # aggregate is directly associated with the resource provider"
    nested_sharing(env)
    assert env.ok("resources1=VCPU:1&member_of1={aggA}").allocs == set()
    assert env.ok("resources1=VCPU:1&member_of1={aggB}").allocs == {
        alloc(NUMA2_1={"VCPU": 1})}
    assert env.ok("resources1=MEMORY_MB:1&member_of1={aggB}").allocs == {
        alloc(CN1={"MEMORY_MB": 1})}


# -- Filtering by tree -------------------------------------------------------
# The diagram is missing; rebuilt from the answers: SS1 (aggA) serves both
# compute nodes, SS2 (aggB) only CN1.

def trees_with_shared_disks(env):
    env.rp("SS1", inv={"DISK_GB": 1000}, traits=[SHARING], aggs=["aggA"])
    env.rp("SS2", inv={"DISK_GB": 1000}, traits=[SHARING], aggs=["aggB"])
    env.rp("CN1", inv={"DISK_GB": 1000}, aggs=["aggA", "aggB"])
    env.rp("NUMA1_1", parent="CN1", inv={"VCPU": 8})
    env.rp("NUMA1_2", parent="CN1", inv={"VCPU": 8})
    env.rp("CN2", inv={"DISK_GB": 1000}, aggs=["aggA"])
    env.rp("NUMA2_1", parent="CN2", inv={"VCPU": 8})
    env.rp("NUMA2_2", parent="CN2", inv={"VCPU": 8})


def vcpu_disk(numa, disk, amount):
    return alloc(**{numa: {"VCPU": 1}, disk: {"DISK_GB": amount}})


@pytest.mark.parametrize("tree", ["CN1", "NUMA1_1"])
def test_in_tree_keeps_one_tree_and_drops_sharing(env, tree):
    trees_with_shared_disks(env)
    answer = env.ok(f"resources=VCPU:1,DISK_GB:50&in_tree={{{tree}}}")
    assert answer.allocs == {vcpu_disk("NUMA1_1", "CN1", 50), vcpu_disk("NUMA1_2", "CN1", 50)}
    assert answer.names == {"CN1", "NUMA1_1", "NUMA1_2"}


def test_unsuffixed_in_tree_does_not_bind_suffixed_groups(env):
    trees_with_shared_disks(env)
    answer = env.ok("resources=VCPU:1&in_tree={CN1}&resources1=DISK_GB:10")
    assert answer.allocs == {vcpu_disk(numa, disk, 10) for numa in ("NUMA1_1", "NUMA1_2")
                             for disk in ("CN1", "SS1", "SS2")}
    assert answer.names == {"CN1", "NUMA1_1", "NUMA1_2", "SS1", "SS2"}


def test_suffixed_in_tree_pins_the_sharing_provider(env):
    trees_with_shared_disks(env)
    answer = env.ok("resources=VCPU:1&resources1=DISK_GB:10&in_tree1={SS1}")
    assert answer.allocs == {vcpu_disk(numa, "SS1", 10)
                             for numa in ("NUMA1_1", "NUMA1_2", "NUMA2_1", "NUMA2_2")}


def test_in_tree_on_two_suffixed_groups(env):
    trees_with_shared_disks(env)
    answer = env.ok("resources1=VCPU:1&in_tree1={CN1}&resources2=DISK_GB:10&in_tree2={SS1}"
                    "&group_policy=isolate")
    assert answer.with_mappings == {
        (vcpu_disk(numa, "SS1", 10), mapping({"1": [numa], "2": ["SS1"]}))
        for numa in ("NUMA1_1", "NUMA1_2")}


# -- Filtering by root provider traits ---------------------------------------
# The NUMA nodes' inventories are cut from the diagram: VCPU 4 and MEMORY_MB
# on each, HW_CPU_X86_AVX2 on NUMA2 only (as the answers require).

def root_traits(env):
    env.rp("NON_NUMA_CN", inv=HOST, traits=[
        "HW_CPU_X86_AVX2", "STORAGE_DISK_SSD", "COMPUTE_VOLUME_MULTI_ATTACH",
        "CUSTOM_WINDOWS_LICENSE_POOL"])
    env.rp("NUMA_CN", inv={"DISK_GB": 1000},
           traits=["STORAGE_DISK_SSD", "COMPUTE_VOLUME_MULTI_ATTACH"])
    env.rp("NUMA1", parent="NUMA_CN", inv={"VCPU": 4, "MEMORY_MB": 1024})
    env.rp("NUMA2", parent="NUMA_CN", inv={"VCPU": 4, "MEMORY_MB": 1024},
           traits=["HW_CPU_X86_AVX2"])


def test_root_required(env):
    root_traits(env)
    answer = env.ok("resources1=VCPU:1,MEMORY_MB:512&required1=HW_CPU_X86_AVX2"
                    "&resources2=DISK_GB:100&group_policy=none"
                    "&root_required=COMPUTE_VOLUME_MULTI_ATTACH")
    assert answer.allocs == {
        alloc(NON_NUMA_CN={"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 100}),
        alloc(NUMA_CN={"DISK_GB": 100}, NUMA2={"VCPU": 1, "MEMORY_MB": 512}),
    }


def test_root_forbidden(env):
    root_traits(env)
    answer = env.ok("resources1=VCPU:1,MEMORY_MB:512&resources2=DISK_GB:100"
                    "&group_policy=none&root_required=!CUSTOM_WINDOWS_LICENSE_POOL")
    assert answer.allocs == {
        alloc(NUMA_CN={"DISK_GB": 100}, NUMA1={"VCPU": 1, "MEMORY_MB": 512}),
        alloc(NUMA_CN={"DISK_GB": 100}, NUMA2={"VCPU": 1, "MEMORY_MB": 512}),
    }
    assert answer.names == {"NUMA_CN", "NUMA1", "NUMA2"}


def test_root_required_looks_at_the_non_sharing_root_only(env):
    # "When sharing providers are involved, root_required applies only to the
    # root of the non-sharing provider tree."
    env.rp("SS", inv={"DISK_GB": 1000}, traits=[SHARING, "CUSTOM_GOLD"], aggs=["agg"])
    env.rp("CN", inv={"VCPU": 8}, aggs=["agg"])
    assert env.ok("resources=VCPU:1,DISK_GB:10&root_required=CUSTOM_GOLD").allocs == set()
    env.set_traits("CN", ["CUSTOM_GOLD"])
    env.set_traits("SS", [SHARING])
    assert env.ok("resources=VCPU:1,DISK_GB:10&root_required=CUSTOM_GOLD").allocs == {
        alloc(CN={"VCPU": 1}, SS={"DISK_GB": 10})}


# -- Filtering by same subtree -----------------------------------------------
# The diagram is missing; rebuilt from the answers: two NUMA nodes with the
# HW_NUMA_ROOT trait under one host, FPGA0_0 under NUMA0, FPGA1_0 and FPGA1_1
# under NUMA1. CUSTOM_TYPE1 on FPGA0_0 and FPGA1_0, CUSTOM_TYPE2 on FPGA1_1.

def numa_fpgas(env):
    env.rp("CN")
    env.rp("NUMA0", parent="CN", inv={"VCPU": 4, "MEMORY_MB": 2048}, traits=["HW_NUMA_ROOT"])
    env.rp("NUMA1", parent="CN", inv={"VCPU": 4, "MEMORY_MB": 2048}, traits=["HW_NUMA_ROOT"])
    env.rp("FPGA0_0", parent="NUMA0", inv={"FPGA": 1}, traits=["CUSTOM_TYPE1"])
    env.rp("FPGA1_0", parent="NUMA1", inv={"FPGA": 1}, traits=["CUSTOM_TYPE1"])
    env.rp("FPGA1_1", parent="NUMA1", inv={"FPGA": 1}, traits=["CUSTOM_TYPE2"])


def test_same_subtree_numa_affinity(env):
    numa_fpgas(env)
    answer = env.ok("resources_COMPUTE=VCPU:1,MEMORY_MB:256&resources_ACCEL=FPGA:1"
                    "&group_policy=none&same_subtree=_COMPUTE,_ACCEL")
    compute = {"VCPU": 1, "MEMORY_MB": 256}
    assert answer.with_mappings == {
        (alloc(**{numa: compute, fpga: {"FPGA": 1}}),
         mapping({"_COMPUTE": [numa], "_ACCEL": [fpga]}))
        for numa, fpga in [("NUMA0", "FPGA0_0"), ("NUMA1", "FPGA1_0"), ("NUMA1", "FPGA1_1")]}
    assert answer.names == {"CN", "NUMA0", "NUMA1", "FPGA0_0", "FPGA1_0", "FPGA1_1"}


def test_same_subtree_with_a_resourceless_group(env):
    numa_fpgas(env)
    answer = env.ok("required_NUMA=HW_NUMA_ROOT"
                    "&resources_ACCEL1=FPGA:1&required_ACCEL1=CUSTOM_TYPE1"
                    "&resources_ACCEL2=FPGA:1&required_ACCEL2=CUSTOM_TYPE2"
                    "&group_policy=none&same_subtree=_NUMA,_ACCEL1,_ACCEL2")
    # NUMA1 satisfies the resourceless group: in mappings, not in allocations
    assert answer.with_mappings == {(
        alloc(FPGA1_0={"FPGA": 1}, FPGA1_1={"FPGA": 1}),
        mapping({"_NUMA": ["NUMA1"], "_ACCEL1": ["FPGA1_0"], "_ACCEL2": ["FPGA1_1"]}))}


def test_same_subtree_may_be_repeated(env):
    numa_fpgas(env)
    # each same_subtree is its own constraint: the two FPGAs each share a
    # subtree with NUMA1 (as CN's descendants they always share CN's)
    answer = env.ok("resources_A=FPGA:1&resources_B=FPGA:1&required_N=HW_NUMA_ROOT"
                    "&group_policy=isolate&same_subtree=_A,_N&same_subtree=_B,_N")
    pairs = {("FPGA1_0", "FPGA1_1"), ("FPGA1_1", "FPGA1_0")}
    assert answer.with_mappings == {
        (alloc(**{a: {"FPGA": 1}, b: {"FPGA": 1}}),
         mapping({"_A": [a], "_B": [b], "_N": ["NUMA1"]})) for a, b in pairs}


# -- Spec: nested magic (resourceless groups, same_subtree and group_policy) --
# The diagrams are missing; rebuilt: a host with two NICs (CUSTOM_HW_NIC_ROOT), each
# with two PFs carrying VFs on networks NET1 and NET2.

def nics_and_pfs(env, second_nic_pfs=2):
    env.rp("CN")
    env.rp("NIC1", parent="CN", traits=["CUSTOM_HW_NIC_ROOT"])
    env.rp("PF1_1", parent="NIC1", inv={"SRIOV_NET_VF": 4}, traits=["CUSTOM_NET1"])
    env.rp("PF1_2", parent="NIC1", inv={"SRIOV_NET_VF": 4}, traits=["CUSTOM_NET2"])
    env.rp("NIC2", parent="CN", traits=["CUSTOM_HW_NIC_ROOT"])
    env.rp("PF2_1", parent="NIC2", inv={"SRIOV_NET_VF": 4}, traits=["CUSTOM_NET1"])
    if second_nic_pfs == 2:
        env.rp("PF2_2", parent="NIC2", inv={"SRIOV_NET_VF": 4}, traits=["CUSTOM_NET2"])


def vf(**by_name):
    return alloc(**{name: {"SRIOV_NET_VF": n} for name, n in by_name.items()})


def test_two_vfs_on_two_networks_from_one_nic(env):
    nics_and_pfs(env)
    answer = env.ok("resources_VIF_NET1=SRIOV_NET_VF:1&required_VIF_NET1=CUSTOM_NET1"
                    "&resources_VIF_NET2=SRIOV_NET_VF:1&required_VIF_NET2=CUSTOM_NET2"
                    "&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT&group_policy=none"
                    "&same_subtree=_VIF_NET1,_VIF_NET2,_NIC_AFFINITY")
    assert answer.with_mappings == {
        (vf(PF1_1=1, PF1_2=1),
         mapping({"_VIF_NET1": ["PF1_1"], "_VIF_NET2": ["PF1_2"], "_NIC_AFFINITY": ["NIC1"]})),
        (vf(PF2_1=1, PF2_2=1),
         mapping({"_VIF_NET1": ["PF2_1"], "_VIF_NET2": ["PF2_2"], "_NIC_AFFINITY": ["NIC2"]})),
    }


NIC_AFFINITY = ("resources_VIF1=SRIOV_NET_VF:1&resources_VIF2=SRIOV_NET_VF:1"
                "&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT&same_subtree=_VIF1,_VIF2,_NIC_AFFINITY")


def test_same_subtree_with_isolate_means_different_pfs(env):
    # rebuilt: NIC2 has a single PF, so only NIC1 can give two PFs
    nics_and_pfs(env, second_nic_pfs=1)
    answer = env.ok(NIC_AFFINITY + "&group_policy=isolate")
    assert answer.allocs == {vf(PF1_1=1, PF1_2=1)}
    assert {m for _, m in answer.with_mappings} == {
        mapping({"_VIF1": ["PF1_1"], "_VIF2": ["PF1_2"], "_NIC_AFFINITY": ["NIC1"]}),
        mapping({"_VIF1": ["PF1_2"], "_VIF2": ["PF1_1"], "_NIC_AFFINITY": ["NIC1"]})}


def test_same_subtree_with_none_may_degenerate_to_one_pf(env):
    nics_and_pfs(env, second_nic_pfs=1)
    answer = env.ok(NIC_AFFINITY + "&group_policy=none")
    assert answer.allocs == {vf(PF1_1=1, PF1_2=1), vf(PF1_1=2), vf(PF1_2=2), vf(PF2_1=2)}
    assert (vf(PF2_1=2), mapping({"_VIF1": ["PF2_1"], "_VIF2": ["PF2_1"],
                                  "_NIC_AFFINITY": ["NIC2"]})) in answer.with_mappings


def test_resourceless_suffixed_group_is_isolated_too(env):
    # "group_policy=isolate means the provider satisfying the resourceless
    # request group will not be able to satisfy any other suffixed group"
    env.rp("CN")
    env.rp("NIC", parent="CN", inv={"SRIOV_NET_VF": 4}, traits=["CUSTOM_HW_NIC_ROOT"])
    env.rp("PF", parent="NIC", inv={"SRIOV_NET_VF": 4})
    query = ("resources_VIF=SRIOV_NET_VF:1&required_NIC=CUSTOM_HW_NIC_ROOT"
             "&same_subtree=_VIF,_NIC&group_policy=")
    assert env.ok(query + "isolate").with_mappings == {
        (vf(PF=1), mapping({"_VIF": ["PF"], "_NIC": ["NIC"]}))}
    assert env.ok(query + "none").with_mappings == {
        (vf(PF=1), mapping({"_VIF": ["PF"], "_NIC": ["NIC"]})),
        (vf(NIC=1), mapping({"_VIF": ["NIC"], "_NIC": ["NIC"]}))}


# -- Spec: request group mappings --------------------------------------------

def test_mappings_tell_which_port_got_which_device(env):
    env.rp("compute", inv={"VCPU": 8, "MEMORY_MB": 4096, "DISK_GB": 100})
    bandwidth = {"NET_BW_EGR_KILOBIT_PER_SEC": 10000, "NET_BW_IGR_KILOBIT_PER_SEC": 10000}
    for eth in ("eth0", "eth1"):
        env.rp(eth, parent="compute", inv=bandwidth,
               traits=["CUSTOM_PHYSNET_1", "CUSTOM_VNIC_TYPE_DIRECT"])
    answer = env.ok(
        "resources=DISK_GB:1,MEMORY_MB:512,VCPU:1"
        "&required1=CUSTOM_PHYSNET_1,CUSTOM_VNIC_TYPE_DIRECT"
        "&resources1=NET_BW_EGR_KILOBIT_PER_SEC:1000,NET_BW_IGR_KILOBIT_PER_SEC:1000"
        "&required2=CUSTOM_PHYSNET_1,CUSTOM_VNIC_TYPE_DIRECT"
        "&resources2=NET_BW_EGR_KILOBIT_PER_SEC:1000,NET_BW_IGR_KILOBIT_PER_SEC:2000"
        "&group_policy=isolate")
    vm = {"DISK_GB": 1, "MEMORY_MB": 512, "VCPU": 1}
    port1 = {"NET_BW_EGR_KILOBIT_PER_SEC": 1000, "NET_BW_IGR_KILOBIT_PER_SEC": 1000}
    port2 = {"NET_BW_EGR_KILOBIT_PER_SEC": 1000, "NET_BW_IGR_KILOBIT_PER_SEC": 2000}
    assert answer.with_mappings == {
        (alloc(compute=vm, eth0=port1, eth1=port2),
         mapping({"": ["compute"], "1": ["eth0"], "2": ["eth1"]})),
        (alloc(compute=vm, eth1=port1, eth0=port2),
         mapping({"": ["compute"], "1": ["eth1"], "2": ["eth0"]})),
    }


def test_unsuffixed_group_may_map_to_several_providers(env):
    nested_sharing(env)
    answer = env.ok(TRIO + "&in_tree={CN2}")
    assert answer.with_mappings == {
        (local(numa, "CN2"), mapping({"": [numa, "CN2"]})) for numa in ("NUMA2_1", "NUMA2_2")}


# -- Spec: any-traits and mixing required forms (1.39) -----------------------

def physnet_hosts(env):
    for name, traits in [("A", ["CUSTOM_VNIC_TYPE_NORMAL", "CUSTOM_PHYSNET1"]),
                         ("B", ["CUSTOM_VNIC_TYPE_NORMAL", "CUSTOM_PHYSNET2"]),
                         ("C", ["CUSTOM_VNIC_TYPE_NORMAL"]),
                         ("D", ["CUSTOM_PHYSNET1"]),
                         ("E", ["CUSTOM_VNIC_TYPE_NORMAL", "CUSTOM_PHYSNET1",
                                "CUSTOM_PHYSNET2"])]:
        env.rp(name, inv={"SRIOV_NET_VF": 4}, traits=traits)


def providers(answer):
    return {name for candidate in answer.allocs for name, _, _ in candidate}


@pytest.mark.parametrize("suffix", ["", "1"])
def test_required_mixes_all_and_any_traits(env, suffix):
    physnet_hosts(env)
    answer = env.ok(f"resources{suffix}=SRIOV_NET_VF:1&required{suffix}=CUSTOM_VNIC_TYPE_NORMAL"
                    f"&required{suffix}=in:CUSTOM_PHYSNET1,CUSTOM_PHYSNET2")
    assert providers(answer) == {"A", "B", "E"}


def test_repeated_required_equals_one_comma_list(env):
    physnet_hosts(env)
    env.set_traits("C", ["CUSTOM_VNIC_TYPE_NORMAL", "CUSTOM_PHYSNET2", "CUSTOM_X"])
    one = env.ok("resources=SRIOV_NET_VF:1&required=in:CUSTOM_PHYSNET1,CUSTOM_PHYSNET2"
                 "&required=CUSTOM_VNIC_TYPE_NORMAL,CUSTOM_X")
    many = env.ok("resources=SRIOV_NET_VF:1&required=in:CUSTOM_PHYSNET1,CUSTOM_PHYSNET2"
                  "&required=CUSTOM_VNIC_TYPE_NORMAL&required=CUSTOM_X")
    assert providers(one) == providers(many) == {"C"}


def test_unsuffixed_any_traits_are_judged_on_the_whole_candidate(env):
    # "the union of all the traits across all the providers in every
    # allocation candidate must contain at least one"
    env.rp("CN", inv={"VCPU": 8})
    env.rp("NIC", parent="CN", inv={"SRIOV_NET_VF": 4}, traits=["CUSTOM_PHYSNET1"])
    env.traits("CUSTOM_PHYSNET2")
    any_physnet = "&required=in:CUSTOM_PHYSNET1,CUSTOM_PHYSNET2"
    assert env.ok("resources=VCPU:1,SRIOV_NET_VF:1" + any_physnet).allocs == {
        alloc(CN={"VCPU": 1}, NIC={"SRIOV_NET_VF": 1})}
    # a granular group needs the trait on its own provider
    assert env.ok("resources=SRIOV_NET_VF:1&resources1=VCPU:1&required1=in:CUSTOM_PHYSNET1,"
                  "CUSTOM_PHYSNET2").allocs == set()


# -- Spec: forbidden aggregates (1.32) ---------------------------------------

def forbidden_aggs_world(env):
    env.rp("ss1", inv={"DISK_GB": 1000}, traits=[SHARING], aggs=["aggB"])
    env.rp("cn1", inv={"MEMORY_MB": 1024, "DISK_GB": 1000}, aggs=["aggA"])
    env.rp("numa1_1", parent="cn1", inv={"VCPU": 8}, aggs=["aggC"])
    env.rp("numa1_2", parent="cn1", inv={"VCPU": 8})
    env.rp("cn2", inv={"MEMORY_MB": 1024, "DISK_GB": 1000}, aggs=["aggB"])
    env.rp("numa2_1", parent="cn2", inv={"VCPU": 8})
    env.rp("numa2_2", parent="cn2", inv={"VCPU": 8})
    env.rp("ss2", inv={"DISK_GB": 1000}, traits=[SHARING], aggs=["aggC"])


def candidates(numa, cn, disk=None):
    if disk is None:
        return alloc(**{numa: {"VCPU": 1}, cn: {"MEMORY_MB": 512, "DISK_GB": 100}})
    return alloc(**{numa: {"VCPU": 1}, cn: {"MEMORY_MB": 512}, disk: {"DISK_GB": 100}})


UNSUFFIXED = "resources=VCPU:1,MEMORY_MB:512,DISK_GB:100"
EVERY = {
    candidates("numa1_1", "cn1"), candidates("numa1_2", "cn1"),
    candidates("numa1_1", "cn1", "ss2"), candidates("numa1_2", "cn1", "ss2"),
    candidates("numa2_1", "cn2"), candidates("numa2_2", "cn2"),
    candidates("numa2_1", "cn2", "ss1"), candidates("numa2_2", "cn2", "ss1"),
}


@pytest.mark.parametrize("agg, excluded", [
    (None, set()),
    ("aggA", {"cn1", "numa1_1", "numa1_2"}),
    ("aggB", {"cn2", "numa2_1", "numa2_2", "ss1"}),
    ("aggC", {"numa1_1", "ss2"}),
])
def test_forbidden_aggregate_spans_the_tree_unsuffixed(env, agg, excluded):
    forbidden_aggs_world(env)
    query = UNSUFFIXED + (f"&member_of=!{{{agg}}}" if agg else "")
    assert env.ok(query).allocs == {
        c for c in EVERY if not {name for name, _, _ in c} & excluded}


@pytest.mark.parametrize("agg, resources, found", [
    ("aggA", "MEMORY_MB:1", {"cn2"}),
    ("aggA", "VCPU:1", {"numa1_1", "numa1_2", "numa2_1", "numa2_2"}),
    ("aggB", "MEMORY_MB:1", {"cn1"}),
    ("aggC", "VCPU:1", {"numa1_2", "numa2_1", "numa2_2"}),
])
def test_forbidden_aggregate_does_not_span_for_suffixed_groups(env, agg, resources, found):
    forbidden_aggs_world(env)
    answer = env.ok(f"resources1={resources}&member_of1=!{{{agg}}}")
    assert providers(answer) == found


def test_forbidden_aggregates_on_suffixed_disk(env):
    forbidden_aggs_world(env)
    # !aggB takes cn2 and ss1 away, !aggC takes ss2 away
    assert providers(env.ok("resources1=DISK_GB:100&member_of1=!{aggB}")) == {"cn1", "ss2"}
    assert providers(env.ok("resources1=DISK_GB:100&member_of1=!in:{aggB},{aggC}")) == {"cn1"}


def test_required_and_forbidden_aggregate_together(env):
    forbidden_aggs_world(env)
    # not a 400: in:aggA,aggB minus aggB leaves aggA; ss2 is in neither
    assert env.ok(UNSUFFIXED + "&member_of=in:{aggA},{aggB}&member_of=!{aggB}").allocs == {
        candidates("numa1_1", "cn1"), candidates("numa1_2", "cn1")}
    assert env.ok(UNSUFFIXED + "&member_of={aggA}&member_of=!{aggA}").allocs == set()


def test_member_of_any_all_and_none(env):
    # "must be at least one of agg1 or agg2, definitely in agg3 and
    # definitely not in agg4"
    for name, aggs in [("H13", ["agg1", "agg3"]), ("H23", ["agg2", "agg3"]),
                       ("H1", ["agg1"]), ("H3", ["agg3"]), ("H134", ["agg1", "agg3", "agg4"])]:
        env.rp(name, inv={"VCPU": 4}, aggs=aggs)
    query = "resources=VCPU:1&member_of=in:{agg1},{agg2}&member_of={agg3}"
    assert providers(env.ok(query)) == {"H13", "H23", "H134"}
    assert providers(env.ok(query + "&member_of=!{agg4}")) == {"H13", "H23"}
    # !in: is the same as one ! per aggregate
    assert providers(env.ok("resources=VCPU:1&member_of=!in:{agg2},{agg4}")) == {
        "H13", "H1", "H3"}
    assert providers(env.ok("resources=VCPU:1&member_of=!{agg2}&member_of=!{agg4}")) == {
        "H13", "H1", "H3"}
