"""The worked GET /allocation_candidates examples of the placement
documentation (usage guide: sharing providers, provider trees, aggregates,
traits, granular groups, in_tree, root_required, same_subtree) and of the
specs (nested magic, request group mappings, any-traits, forbidden
aggregates), exactly.

Where a document's diagram is missing, the world is rebuilt from the answers
it lists and the comment says so; such trees were also built on the
reference server, which gives exactly the answers asserted here.
"""

from tests.helpers.candidate_cases.model import Q, Rp, case

TRIO = "resources=VCPU:1,MEMORY_MB:512,DISK_GB:500"
HOST = {"VCPU": 8, "MEMORY_MB": 1024, "DISK_GB": 1000}
DISK = {"DISK_GB": 1000}
HOST_MEMORY_DISK = {"MEMORY_MB": 1024, "DISK_GB": 1000}
CPUS = {"VCPU": 8}
VFS = {"SRIOV_NET_VF": 4}


def names(text: str) -> set[str]:
    return set(text.split())


def without(candidates: list[str], gone: set[str]) -> list[str]:
    """The candidates using none of the providers ``gone``."""
    return [c for c in candidates if not {part.split(":")[0] for part in c.split()} & gone]


# -- Sharing resource providers ----------------------------------------------

NESTED_SHARING = [
    Rp("SS1", inv=DISK, aggs="aggA", sharing=True),
    Rp("CN1", inv=HOST_MEMORY_DISK, aggs="aggA aggB"),
    Rp("NUMA1_1", "CN1", inv=CPUS),
    Rp("NUMA1_2", "CN1", inv=CPUS),
    Rp("CN2", inv=HOST_MEMORY_DISK, aggs="aggA"),
    Rp("NUMA2_1", "CN2", inv=CPUS, aggs="aggB"),
    Rp("NUMA2_2", "CN2", inv=CPUS),
]
NUMAS = ("NUMA1_1", "NUMA1_2", "NUMA2_1", "NUMA2_2")


def local(numa: str) -> str:
    return f"{numa}:VCPU=1 CN{numa[4]}:MEMORY_MB=512,DISK_GB=500"


def shared(numa: str) -> str:
    return f"{numa}:VCPU=1 CN{numa[4]}:MEMORY_MB=512 SS1:DISK_GB=500"


EIGHT = [local(n) for n in NUMAS] + [shared(n) for n in NUMAS]
ALL_SEVEN = "SS1 CN1 NUMA1_1 NUMA1_2 CN2 NUMA2_1 NUMA2_2"

# -- Filtering by traits, granular resource requests -------------------------

NICS = [
    Rp("CN1", inv=HOST),
    Rp("NIC1_1", "CN1", inv={"SRIOV_NET_VF": 8}, traits="HW_NIC_ACCEL_SSL"),
    Rp("NIC1_2", "CN1", inv={"SRIOV_NET_VF": 8}),
]
CN1_TRIO = "CN1:VCPU=1,MEMORY_MB=512,DISK_GB=500"
TRIO_VF = TRIO + ",SRIOV_NET_VF:2"
TWO_NICS = f"{CN1_TRIO} NIC1_1:SRIOV_NET_VF=1 NIC1_2:SRIOV_NET_VF=1"
GRANULAR = (TRIO + "&resources1=SRIOV_NET_VF:1&required1=HW_NIC_ACCEL_SSL"
            "&resources2=SRIOV_NET_VF:1")

# -- Filtering by tree -------------------------------------------------------
# The diagram is missing; rebuilt from the answers: SS1 (aggA) serves both
# compute nodes, SS2 (aggB) only CN1.

TREES_WITH_SHARED_DISKS = [
    Rp("SS1", inv=DISK, aggs="aggA", sharing=True),
    Rp("SS2", inv=DISK, aggs="aggB", sharing=True),
    Rp("CN1", inv=DISK, aggs="aggA aggB"),
    Rp("NUMA1_1", "CN1", inv=CPUS),
    Rp("NUMA1_2", "CN1", inv=CPUS),
    Rp("CN2", inv=DISK, aggs="aggA"),
    Rp("NUMA2_1", "CN2", inv=CPUS),
    Rp("NUMA2_2", "CN2", inv=CPUS),
]

# -- Filtering by root provider traits ---------------------------------------
# The NUMA nodes' inventories are cut from the diagram: VCPU 4 and MEMORY_MB
# on each, HW_CPU_X86_AVX2 on NUMA2 only (as the answers require).

ROOT_TRAITS = [
    Rp("NON_NUMA_CN", inv=HOST, traits="HW_CPU_X86_AVX2 STORAGE_DISK_SSD "
       "COMPUTE_VOLUME_MULTI_ATTACH CUSTOM_WINDOWS_LICENSE_POOL"),
    Rp("NUMA_CN", inv=DISK, traits="STORAGE_DISK_SSD COMPUTE_VOLUME_MULTI_ATTACH"),
    Rp("NUMA1", "NUMA_CN", inv={"VCPU": 4, "MEMORY_MB": 1024}),
    Rp("NUMA2", "NUMA_CN", inv={"VCPU": 4, "MEMORY_MB": 1024}, traits="HW_CPU_X86_AVX2"),
]

# -- Filtering by same subtree -----------------------------------------------
# The diagram is missing; rebuilt from the answers: two NUMA nodes with the
# HW_NUMA_ROOT trait under one host, FPGA0_0 under NUMA0, FPGA1_0 and FPGA1_1
# under NUMA1; CUSTOM_TYPE1 on FPGA0_0 and FPGA1_0, CUSTOM_TYPE2 on FPGA1_1.
# The docs' ACCELERATOR_FPGA goes by its standard class name, FPGA.

NUMA_FPGAS = [
    Rp("CN"),
    Rp("NUMA0", "CN", inv={"VCPU": 4, "MEMORY_MB": 2048}, traits="HW_NUMA_ROOT"),
    Rp("NUMA1", "CN", inv={"VCPU": 4, "MEMORY_MB": 2048}, traits="HW_NUMA_ROOT"),
    Rp("FPGA0_0", "NUMA0", inv={"FPGA": 1}, traits="CUSTOM_TYPE1"),
    Rp("FPGA1_0", "NUMA1", inv={"FPGA": 1}, traits="CUSTOM_TYPE1"),
    Rp("FPGA1_1", "NUMA1", inv={"FPGA": 1}, traits="CUSTOM_TYPE2"),
]

# -- Spec: nested magic (resourceless groups, same_subtree and group_policy) --
# The diagrams are missing; rebuilt: a host with two NICs, each with two PFs
# carrying VFs on networks NET1 and NET2. The spec's HW_NIC_ROOT is not a
# standard trait (yet): CUSTOM_HW_NIC_ROOT stands in.

NICS_AND_PFS = [
    Rp("CN"),
    Rp("NIC1", "CN", traits="CUSTOM_HW_NIC_ROOT"),
    Rp("PF1_1", "NIC1", inv=VFS, traits="CUSTOM_NET1"),
    Rp("PF1_2", "NIC1", inv=VFS, traits="CUSTOM_NET2"),
    Rp("NIC2", "CN", traits="CUSTOM_HW_NIC_ROOT"),
    Rp("PF2_1", "NIC2", inv=VFS, traits="CUSTOM_NET1"),
    Rp("PF2_2", "NIC2", inv=VFS, traits="CUSTOM_NET2"),
]
NIC_AFFINITY = ("resources_VIF1=SRIOV_NET_VF:1&resources_VIF2=SRIOV_NET_VF:1"
                "&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT&same_subtree=_VIF1,_VIF2,_NIC_AFFINITY")
DIFFERENT_PFS = "PF1_1:SRIOV_NET_VF=1 PF1_2:SRIOV_NET_VF=1"

# -- Spec: request group mappings --------------------------------------------

BANDWIDTH = {"NET_BW_EGR_KILOBIT_PER_SEC": 2000, "NET_BW_IGR_KILOBIT_PER_SEC": 2000}
PORT1 = "NET_BW_EGR_KILOBIT_PER_SEC=1000,NET_BW_IGR_KILOBIT_PER_SEC=1000"
PORT2 = "NET_BW_EGR_KILOBIT_PER_SEC=1000,NET_BW_IGR_KILOBIT_PER_SEC=2000"
PORTS = ("resources=DISK_GB:1,MEMORY_MB:512,VCPU:1"
         "&required1=CUSTOM_PHYSNET_1,CUSTOM_VNIC_TYPE_DIRECT"
         "&resources1=NET_BW_EGR_KILOBIT_PER_SEC:1000,NET_BW_IGR_KILOBIT_PER_SEC:1000"
         "&required2=CUSTOM_PHYSNET_1,CUSTOM_VNIC_TYPE_DIRECT"
         "&resources2=NET_BW_EGR_KILOBIT_PER_SEC:1000,NET_BW_IGR_KILOBIT_PER_SEC:2000"
         "&group_policy=isolate")

# -- Spec: any-traits and mixing required forms (1.39) -----------------------

PHYSNETS = {"A": "CUSTOM_VNIC_TYPE_NORMAL CUSTOM_PHYSNET1",
            "B": "CUSTOM_VNIC_TYPE_NORMAL CUSTOM_PHYSNET2",
            "C": "CUSTOM_VNIC_TYPE_NORMAL",
            "D": "CUSTOM_PHYSNET1",
            "E": "CUSTOM_VNIC_TYPE_NORMAL CUSTOM_PHYSNET1 CUSTOM_PHYSNET2"}


def physnet_hosts(**traits: str) -> list[Rp]:
    return [Rp(name, inv=VFS, traits=traits.get(name, t)) for name, t in PHYSNETS.items()]


ANY_PHYSNET = "in:CUSTOM_PHYSNET1,CUSTOM_PHYSNET2"

# -- Spec: forbidden aggregates (1.32) ---------------------------------------
# The spec's trees; inventories made up. The NUMA nodes' DISK_GB serves the
# one-GB requests only, not the unsuffixed group's 100.

NUMA = {"VCPU": 8, "DISK_GB": 10}
FORBIDDEN_AGGS = [
    Rp("ss1", inv=DISK, aggs="aggB", sharing=True),
    Rp("cn1", inv=HOST_MEMORY_DISK, aggs="aggA"),
    Rp("numa1_1", "cn1", inv=NUMA, aggs="aggC"),
    Rp("numa1_2", "cn1", inv=NUMA),
    Rp("cn2", inv=HOST_MEMORY_DISK, aggs="aggB"),
    Rp("numa2_1", "cn2", inv=NUMA),
    Rp("numa2_2", "cn2", inv=NUMA),
    Rp("ss2", inv=DISK, aggs="aggC", sharing=True),
]
EVERY_PROVIDER = names("ss1 cn1 numa1_1 numa1_2 cn2 numa2_1 numa2_2 ss2")
UNSUFFIXED = "resources=VCPU:1,MEMORY_MB:512,DISK_GB:100"


def vm(numa: str, disk: str | None = None) -> str:
    cn = "cn" + numa[4]
    if disk is None:
        return f"{numa}:VCPU=1 {cn}:MEMORY_MB=512,DISK_GB=100"
    return f"{numa}:VCPU=1 {cn}:MEMORY_MB=512 {disk}:DISK_GB=100"


EVERY_VM = [vm("numa1_1"), vm("numa1_2"), vm("numa1_1", "ss2"), vm("numa1_2", "ss2"),
            vm("numa2_1"), vm("numa2_2"), vm("numa2_1", "ss1"), vm("numa2_2", "ss1")]
# a forbidden aggregate spans the tree for the unsuffixed group
SPANNING = {"aggA": names("cn1 numa1_1 numa1_2"), "aggB": names("cn2 numa2_1 numa2_2 ss1"),
            "aggC": names("numa1_1 ss2")}
# and not for a suffixed one
OWN = {"aggA": {"cn1"}, "aggB": {"cn2", "ss1"}, "aggC": {"numa1_1", "ss2"}}


CASES = [
    # -- Sharing resource providers
    case("sharing_providers_flat",
         [Rp("SS1", inv=DISK, aggs="aggA", sharing=True),
          Rp("SS2", inv=DISK, sharing=True),
          Rp("CN1", inv=HOST, aggs="aggA"),
          Rp("CN2", inv=HOST)],
         # SS2 shares with nobody: it is in no candidate and no summary
         Q(TRIO, allocs=["CN1:VCPU=1,MEMORY_MB=512,DISK_GB=500",
                         "CN2:VCPU=1,MEMORY_MB=512,DISK_GB=500",
                         "CN1:VCPU=1,MEMORY_MB=512 SS1:DISK_GB=500"],
           summaries="CN1 CN2 SS1")),
    case("sharing_providers_with_trees", NESTED_SHARING,
         Q(TRIO, allocs=EIGHT, summaries=ALL_SEVEN)),

    # -- Filtering aggregates
    case("member_of_spans_the_tree_from_the_root_only", NESTED_SHARING,
         Q(TRIO + "&member_of={aggA}", allocs=EIGHT, summaries=ALL_SEVEN),
         # aggB on a child (NUMA2_1) does not make its tree a member
         Q(TRIO + "&member_of={aggB}", allocs=[local("NUMA1_1"), local("NUMA1_2")],
           summaries="CN1 NUMA1_1 NUMA1_2")),
    # "if member_of<N> is specified ... it just sees whether the specified
    # aggregate is directly associated with the resource provider"
    case("granular_member_of_does_not_span_the_tree", NESTED_SHARING,
         Q("resources1=VCPU:1&member_of1={aggA}", allocs=[]),
         Q("resources1=VCPU:1&member_of1={aggB}", allocs=["NUMA2_1:VCPU=1"]),
         Q("resources1=MEMORY_MB:1&member_of1={aggB}", allocs=["CN1:MEMORY_MB=1"])),

    # -- Filtering by traits
    case("required_and_forbidden_traits", NICS,
         Q(TRIO_VF + "&required=HW_NIC_ACCEL_SSL", allocs=[CN1_TRIO + " NIC1_1:SRIOV_NET_VF=2"],
           summary_traits={"NIC1_1": "HW_NIC_ACCEL_SSL"}),
         Q(TRIO_VF + "&required=!HW_NIC_ACCEL_SSL", allocs=[CN1_TRIO + " NIC1_2:SRIOV_NET_VF=2"]),
         # a trait not asked for is ignored
         Q(TRIO_VF, allocs=[CN1_TRIO + " NIC1_1:SRIOV_NET_VF=2",
                            CN1_TRIO + " NIC1_2:SRIOV_NET_VF=2"],
           summaries="CN1 NIC1_1 NIC1_2")),

    # -- Granular resource requests: isolate uses two NICs, none may use one twice
    case("granular_groups_and_group_policy", NICS,
         Q(GRANULAR + "&group_policy=isolate", mappings=[
             (TWO_NICS, "=CN1 1=NIC1_1 2=NIC1_2")]),
         Q(GRANULAR + "&group_policy=none", mappings=[
             (TWO_NICS, "=CN1 1=NIC1_1 2=NIC1_2"),
             (f"{CN1_TRIO} NIC1_1:SRIOV_NET_VF=2", "=CN1 1=NIC1_1 2=NIC1_1")])),

    # -- Filtering by tree: in_tree keeps one tree and drops sharing providers;
    # a non-root provider names its whole tree
    case("in_tree", TREES_WITH_SHARED_DISKS, *(
        Q(f"resources=VCPU:1,DISK_GB:50&in_tree={{{tree}}}",
          allocs=["NUMA1_1:VCPU=1 CN1:DISK_GB=50", "NUMA1_2:VCPU=1 CN1:DISK_GB=50"],
          summaries="CN1 NUMA1_1 NUMA1_2")
        for tree in ("CN1", "NUMA1_1"))),
    case("in_tree_applies_to_its_own_group_only", TREES_WITH_SHARED_DISKS,
         # the unsuffixed in_tree does not bind the suffixed group
         Q("resources=VCPU:1&in_tree={CN1}&resources1=DISK_GB:10",
           allocs=[f"{numa}:VCPU=1 {disk}:DISK_GB=10" for numa in ("NUMA1_1", "NUMA1_2")
                   for disk in ("CN1", "SS1", "SS2")],
           summaries="CN1 NUMA1_1 NUMA1_2 SS1 SS2"),
         # a suffixed in_tree pins the sharing provider
         Q("resources=VCPU:1&resources1=DISK_GB:10&in_tree1={SS1}",
           allocs=[f"{numa}:VCPU=1 SS1:DISK_GB=10" for numa in NUMAS]),
         Q("resources1=VCPU:1&in_tree1={CN1}&resources2=DISK_GB:10&in_tree2={SS1}"
           "&group_policy=isolate",
           mappings=[(f"{numa}:VCPU=1 SS1:DISK_GB=10", f"1={numa} 2=SS1")
                     for numa in ("NUMA1_1", "NUMA1_2")])),

    # -- Filtering by root provider traits
    case("root_required", ROOT_TRAITS,
         Q("resources1=VCPU:1,MEMORY_MB:512&required1=HW_CPU_X86_AVX2"
           "&resources2=DISK_GB:100&group_policy=none"
           "&root_required=COMPUTE_VOLUME_MULTI_ATTACH",
           allocs=["NON_NUMA_CN:VCPU=1,MEMORY_MB=512,DISK_GB=100",
                   "NUMA_CN:DISK_GB=100 NUMA2:VCPU=1,MEMORY_MB=512"]),
         Q("resources1=VCPU:1,MEMORY_MB:512&resources2=DISK_GB:100"
           "&group_policy=none&root_required=!CUSTOM_WINDOWS_LICENSE_POOL",
           allocs=["NUMA_CN:DISK_GB=100 NUMA1:VCPU=1,MEMORY_MB=512",
                   "NUMA_CN:DISK_GB=100 NUMA2:VCPU=1,MEMORY_MB=512"],
           summaries="NUMA_CN NUMA1 NUMA2")),
    # "When sharing providers are involved, root_required applies only to the
    # root of the non-sharing provider tree."
    case("root_required_looks_at_the_non_sharing_root_only",
         [Rp("GOLD_SS", inv=DISK, traits="CUSTOM_GOLD", aggs="agg1", sharing=True),
          Rp("CN", inv=CPUS, aggs="agg1"),
          Rp("SS", inv=DISK, aggs="agg2", sharing=True),
          Rp("GOLD_CN", inv=CPUS, traits="CUSTOM_GOLD", aggs="agg2")],
         Q("resources=VCPU:1,DISK_GB:10",
           allocs=["CN:VCPU=1 GOLD_SS:DISK_GB=10", "GOLD_CN:VCPU=1 SS:DISK_GB=10"]),
         Q("resources=VCPU:1,DISK_GB:10&root_required=CUSTOM_GOLD",
           allocs=["GOLD_CN:VCPU=1 SS:DISK_GB=10"])),

    # -- Filtering by same subtree
    case("same_subtree", NUMA_FPGAS,
         Q("resources_COMPUTE=VCPU:1,MEMORY_MB:256&resources_ACCEL=FPGA:1"
           "&group_policy=none&same_subtree=_COMPUTE,_ACCEL",
           mappings=[(f"{numa}:VCPU=1,MEMORY_MB=256 {fpga}:FPGA=1",
                      f"_COMPUTE={numa} _ACCEL={fpga}")
                     for numa, fpga in [("NUMA0", "FPGA0_0"), ("NUMA1", "FPGA1_0"),
                                        ("NUMA1", "FPGA1_1")]],
           summaries="CN NUMA0 NUMA1 FPGA0_0 FPGA1_0 FPGA1_1")),
    # NUMA1 satisfies the resourceless group: in mappings, not in allocations
    case("same_subtree_with_a_resourceless_group", NUMA_FPGAS,
         Q("required_NUMA=HW_NUMA_ROOT"
           "&resources_ACCEL1=FPGA:1&required_ACCEL1=CUSTOM_TYPE1"
           "&resources_ACCEL2=FPGA:1&required_ACCEL2=CUSTOM_TYPE2"
           "&group_policy=none&same_subtree=_NUMA,_ACCEL1,_ACCEL2",
           mappings=[("FPGA1_0:FPGA=1 FPGA1_1:FPGA=1",
                      "_NUMA=NUMA1 _ACCEL1=FPGA1_0 _ACCEL2=FPGA1_1")])),
    # each same_subtree is its own constraint: the two FPGAs each share a
    # subtree with NUMA1 (as CN's descendants they always share CN's)
    case("same_subtree_may_be_repeated", NUMA_FPGAS,
         Q("resources_A=FPGA:1&resources_B=FPGA:1&required_N=HW_NUMA_ROOT"
           "&group_policy=isolate&same_subtree=_A,_N&same_subtree=_B,_N",
           mappings=[(f"{a}:FPGA=1 {b}:FPGA=1", f"_A={a} _B={b} _N=NUMA1")
                     for a, b in [("FPGA1_0", "FPGA1_1"), ("FPGA1_1", "FPGA1_0")]])),

    # -- Spec: nested magic
    case("two_vfs_from_the_same_nic_on_two_networks", NICS_AND_PFS,
         Q("resources_VIF_NET1=SRIOV_NET_VF:1&required_VIF_NET1=CUSTOM_NET1"
           "&resources_VIF_NET2=SRIOV_NET_VF:1&required_VIF_NET2=CUSTOM_NET2"
           "&required_NIC_AFFINITY=CUSTOM_HW_NIC_ROOT&group_policy=none"
           "&same_subtree=_VIF_NET1,_VIF_NET2,_NIC_AFFINITY",
           mappings=[(f"PF{n}_1:SRIOV_NET_VF=1 PF{n}_2:SRIOV_NET_VF=1",
                      f"_VIF_NET1=PF{n}_1 _VIF_NET2=PF{n}_2 _NIC_AFFINITY=NIC{n}")
                     for n in "12"])),
    # rebuilt: NIC2 has a single PF, so only NIC1 gives two different PFs
    # (with isolate, twice: VIF1/VIF2 on PF1_1/PF1_2 or the other way round);
    # with none, the two VFs may also come from one PF
    case("same_subtree_and_group_policy", NICS_AND_PFS[:-1],
         Q(NIC_AFFINITY + "&group_policy=isolate", mappings=[
             (DIFFERENT_PFS, "_VIF1=PF1_1 _VIF2=PF1_2 _NIC_AFFINITY=NIC1"),
             (DIFFERENT_PFS, "_VIF1=PF1_2 _VIF2=PF1_1 _NIC_AFFINITY=NIC1")]),
         Q(NIC_AFFINITY + "&group_policy=none", mappings=[
             (DIFFERENT_PFS, "_VIF1=PF1_1 _VIF2=PF1_2 _NIC_AFFINITY=NIC1"),
             (DIFFERENT_PFS, "_VIF1=PF1_2 _VIF2=PF1_1 _NIC_AFFINITY=NIC1"),
             *((f"{pf}:SRIOV_NET_VF=2", f"_VIF1={pf} _VIF2={pf} _NIC_AFFINITY={nic}")
               for pf, nic in [("PF1_1", "NIC1"), ("PF1_2", "NIC1"), ("PF2_1", "NIC2")])])),
    # "group_policy=isolate means the provider satisfying the resourceless
    # request group will not be able to satisfy any other suffixed group"
    case("resourceless_suffixed_group_is_isolated_too",
         [Rp("CN"),
          Rp("NIC", "CN", inv=VFS, traits="CUSTOM_HW_NIC_ROOT"),
          Rp("PF", "NIC", inv=VFS)],
         Q("resources_VIF=SRIOV_NET_VF:1&required_NIC=CUSTOM_HW_NIC_ROOT"
           "&same_subtree=_VIF,_NIC&group_policy=isolate",
           mappings=[("PF:SRIOV_NET_VF=1", "_VIF=PF _NIC=NIC")]),
         Q("resources_VIF=SRIOV_NET_VF:1&required_NIC=CUSTOM_HW_NIC_ROOT"
           "&same_subtree=_VIF,_NIC&group_policy=none",
           mappings=[("PF:SRIOV_NET_VF=1", "_VIF=PF _NIC=NIC"),
                     ("NIC:SRIOV_NET_VF=1", "_VIF=NIC _NIC=NIC")])),

    # -- Spec: request group mappings tell which port got which device
    case("request_group_mappings",
         [Rp("compute1", inv={"VCPU": 1, "MEMORY_MB": 1024, "DISK_GB": 10}),
          Rp("agent", "compute1"),
          *(Rp(eth, "agent", inv=BANDWIDTH, traits="CUSTOM_PHYSNET_1 CUSTOM_VNIC_TYPE_DIRECT")
            for eth in ("eth0", "eth1"))],
         Q(PORTS, mappings=[
             (f"compute1:DISK_GB=1,MEMORY_MB=512,VCPU=1 {a}:{PORT1} {b}:{PORT2}",
              f"=compute1 1={a} 2={b}") for a, b in [("eth0", "eth1"), ("eth1", "eth0")]])),
    case("unsuffixed_group_may_map_to_several_providers", NESTED_SHARING,
         Q(TRIO + "&in_tree={CN2}",
           mappings=[(local(numa), f"={numa},CN2") for numa in ("NUMA2_1", "NUMA2_2")])),

    # -- Spec: any-traits and mixing required forms
    case("required_mixes_all_and_any_traits", physnet_hosts(), *(
        Q(f"resources{suffix}=SRIOV_NET_VF:1&required{suffix}=CUSTOM_VNIC_TYPE_NORMAL"
          f"&required{suffix}={ANY_PHYSNET}", providers="A B E")
        for suffix in ("", "1"))),
    case("repeated_required_equals_one_comma_list",
         physnet_hosts(C="CUSTOM_VNIC_TYPE_NORMAL CUSTOM_PHYSNET2 CUSTOM_X"),
         Q(f"resources=SRIOV_NET_VF:1&required={ANY_PHYSNET}"
           "&required=CUSTOM_VNIC_TYPE_NORMAL,CUSTOM_X", providers="C"),
         Q(f"resources=SRIOV_NET_VF:1&required={ANY_PHYSNET}"
           "&required=CUSTOM_VNIC_TYPE_NORMAL&required=CUSTOM_X", providers="C")),
    # "the union of all the traits across all the providers in every
    # allocation candidate must contain at least one"
    case("unsuffixed_any_traits_are_judged_on_the_whole_candidate",
         [Rp("CN", inv=CPUS),
          Rp("NIC", "CN", inv=VFS, traits="CUSTOM_PHYSNET1")],
         Q(f"resources=VCPU:1,SRIOV_NET_VF:1&required={ANY_PHYSNET}",
           allocs=["CN:VCPU=1 NIC:SRIOV_NET_VF=1"]),
         # a granular group needs the trait on its own provider
         Q(f"resources=SRIOV_NET_VF:1&resources1=VCPU:1&required1={ANY_PHYSNET}", allocs=[]),
         known_traits="CUSTOM_PHYSNET2"),

    # -- Spec: forbidden aggregates
    case("forbidden_aggregates_span_the_tree_unsuffixed", FORBIDDEN_AGGS,
         Q(UNSUFFIXED, allocs=EVERY_VM),
         *(Q(UNSUFFIXED + f"&member_of=!{{{agg}}}", allocs=without(EVERY_VM, gone))
           for agg, gone in SPANNING.items()),
         Q("resources=DISK_GB:1", providers=EVERY_PROVIDER),
         *(Q(f"resources=DISK_GB:1&member_of=!{{{agg}}}", providers=EVERY_PROVIDER - gone)
           for agg, gone in SPANNING.items())),
    case("forbidden_aggregates_do_not_span_for_suffixed_groups", FORBIDDEN_AGGS,
         Q("resources1=MEMORY_MB:1&member_of1=!{aggA}", providers="cn2"),
         Q("resources1=VCPU:1&member_of1=!{aggA}", providers="numa1_1 numa1_2 numa2_1 numa2_2"),
         Q("resources1=MEMORY_MB:1&member_of1=!{aggB}", providers="cn1"),
         Q("resources1=VCPU:1&member_of1=!{aggC}", providers="numa1_2 numa2_1 numa2_2"),
         *(Q(f"resources1=DISK_GB:1&member_of1=!{{{agg}}}", providers=EVERY_PROVIDER - gone)
           for agg, gone in OWN.items()),
         # !aggB takes cn2 and ss1 away, !aggC takes ss2 away
         Q("resources1=DISK_GB:100&member_of1=!{aggB}", providers="cn1 ss2"),
         Q("resources1=DISK_GB:100&member_of1=!in:{aggB},{aggC}", providers="cn1")),
    # not a 400: in:aggA,aggB minus aggB leaves aggA; ss2 is in neither
    case("required_and_forbidden_aggregate_together", FORBIDDEN_AGGS,
         Q(UNSUFFIXED + "&member_of=in:{aggA},{aggB}&member_of=!{aggB}",
           allocs=[vm("numa1_1"), vm("numa1_2")]),
         Q(UNSUFFIXED + "&member_of={aggA}&member_of=!{aggA}", allocs=[])),
    # "must be at least one of agg1 or agg2, definitely in agg3 and
    # definitely not in agg4"
    case("member_of_any_all_and_none",
         [Rp(name, inv={"VCPU": 4}, aggs=aggs)
          for name, aggs in [("H13", "agg1 agg3"), ("H23", "agg2 agg3"), ("H1", "agg1"),
                             ("H3", "agg3"), ("H134", "agg1 agg3 agg4")]],
         Q("resources=VCPU:1&member_of=in:{agg1},{agg2}&member_of={agg3}",
           providers="H13 H23 H134"),
         Q("resources=VCPU:1&member_of=in:{agg1},{agg2}&member_of={agg3}&member_of=!{agg4}",
           providers="H13 H23"),
         # !in: is the same as one ! per aggregate
         Q("resources=VCPU:1&member_of=!in:{agg2},{agg4}", providers="H13 H1 H3"),
         Q("resources=VCPU:1&member_of=!{agg2}&member_of=!{agg4}", providers="H13 H1 H3")),
]
