"""The worked examples of the placement documentation and specs, exactly.

Where a diagram is missing from the documents, the model is rebuilt from the
listed answers; the comment says so.
"""

from tests.helpers.snapshots import World, agg, allocs

TRIO = [("resources", "VCPU:1,MEMORY_MB:512,DISK_GB:500")]
HOST = {"VCPU": 8, "MEMORY_MB": 1024, "DISK_GB": 1000}


def allocations(results):
    """The allocation sets only; fails on a duplicate."""
    found = [a for a, _ in results]
    assert len(found) == len(set(found)), found
    return set(found)


def test_sharing_providers_flat():
    w = World()
    w.add("SS1", inv={"DISK_GB": 1000}, aggs=["A"], sharing=True)
    w.add("SS2", inv={"DISK_GB": 1000}, sharing=True)
    w.add("CN1", inv=HOST, aggs=["A"])
    w.add("CN2", inv=HOST)
    assert allocations(w.query(TRIO)) == {
        allocs("CN1:VCPU=1,MEMORY_MB=512,DISK_GB=500"),
        allocs("CN2:VCPU=1,MEMORY_MB=512,DISK_GB=500"),
        allocs("CN1:VCPU=1,MEMORY_MB=512", "SS1:DISK_GB=500"),
    }


def nested_sharing_world():
    w = World()
    w.add("SS1", inv={"DISK_GB": 1000}, aggs=["A"], sharing=True)
    w.add("CN1", inv={"MEMORY_MB": 1024, "DISK_GB": 1000}, aggs=["A", "B"])
    w.add("NUMA1_1", parent="CN1", inv={"VCPU": 8})
    w.add("NUMA1_2", parent="CN1", inv={"VCPU": 8})
    w.add("CN2", inv={"MEMORY_MB": 1024, "DISK_GB": 1000}, aggs=["A"])
    w.add("NUMA2_1", parent="CN2", inv={"VCPU": 8}, aggs=["B"])
    w.add("NUMA2_2", parent="CN2", inv={"VCPU": 8})
    return w


EIGHT = {
    allocs(f"NUMA{n}:VCPU=1", f"CN{n[0]}:MEMORY_MB=512,DISK_GB=500")
    for n in ("1_1", "1_2", "2_1", "2_2")
} | {
    allocs(f"NUMA{n}:VCPU=1", f"CN{n[0]}:MEMORY_MB=512", "SS1:DISK_GB=500")
    for n in ("1_1", "1_2", "2_1", "2_2")
}


def test_sharing_providers_with_trees():
    assert allocations(nested_sharing_world().query(TRIO)) == EIGHT


def test_member_of_spans_the_tree_from_the_root_only():
    w = nested_sharing_world()
    assert allocations(w.query(TRIO + [("member_of", agg("A"))])) == EIGHT
    assert allocations(w.query(TRIO + [("member_of", agg("B"))])) == {
        allocs("NUMA1_1:VCPU=1", "CN1:MEMORY_MB=512,DISK_GB=500"),
        allocs("NUMA1_2:VCPU=1", "CN1:MEMORY_MB=512,DISK_GB=500"),
    }


def nic_world():
    w = World()
    w.add("CN1", inv=HOST)
    w.add("NIC1_1", parent="CN1", inv={"SRIOV_NET_VF": 8}, traits=["HW_NIC_ACCEL_SSL"])
    w.add("NIC1_2", parent="CN1", inv={"SRIOV_NET_VF": 8})
    return w


def test_required_and_forbidden_traits():
    w = nic_world()
    request = [("resources", "VCPU:1,MEMORY_MB:512,DISK_GB:500,SRIOV_NET_VF:2")]
    cn1 = "CN1:VCPU=1,MEMORY_MB=512,DISK_GB=500"
    assert allocations(w.query(request + [("required", "HW_NIC_ACCEL_SSL")])) == {
        allocs(cn1, "NIC1_1:SRIOV_NET_VF=2")
    }
    assert allocations(w.query(request + [("required", "!HW_NIC_ACCEL_SSL")])) == {
        allocs(cn1, "NIC1_2:SRIOV_NET_VF=2")
    }
    assert allocations(w.query(request)) == {
        allocs(cn1, "NIC1_1:SRIOV_NET_VF=2"),
        allocs(cn1, "NIC1_2:SRIOV_NET_VF=2"),
    }


def test_granular_groups_and_group_policy():
    w = nic_world()
    request = TRIO + [
        ("resources1", "SRIOV_NET_VF:1"),
        ("required1", "HW_NIC_ACCEL_SSL"),
        ("resources2", "SRIOV_NET_VF:1"),
    ]
    cn1 = "CN1:VCPU=1,MEMORY_MB=512,DISK_GB=500"
    isolated = w.query(request + [("group_policy", "isolate")])
    assert isolated == [
        (
            allocs(cn1, "NIC1_1:SRIOV_NET_VF=1", "NIC1_2:SRIOV_NET_VF=1"),
            frozenset(
                {
                    ("", frozenset({"CN1"})),
                    ("1", frozenset({"NIC1_1"})),
                    ("2", frozenset({"NIC1_2"})),
                }
            ),
        )
    ]
    assert allocations(w.query(request + [("group_policy", "none")])) == {
        allocs(cn1, "NIC1_1:SRIOV_NET_VF=1", "NIC1_2:SRIOV_NET_VF=1"),
        allocs(cn1, "NIC1_1:SRIOV_NET_VF=2"),
    }


def in_tree_world():
    # The diagram is missing; rebuilt from the answers: two hosts with two
    # NUMA children each, local disk on the hosts, two sharing disks serving both.
    w = World()
    for cn in ("1", "2"):
        w.add(f"CN{cn}", inv={"DISK_GB": 1000}, aggs=["A"])
        w.add(f"NUMA{cn}_1", parent=f"CN{cn}", inv={"VCPU": 8})
        w.add(f"NUMA{cn}_2", parent=f"CN{cn}", inv={"VCPU": 8})
    w.add("SS1", inv={"DISK_GB": 1000}, aggs=["A"], sharing=True)
    w.add("SS2", inv={"DISK_GB": 1000}, aggs=["A"], sharing=True)
    return w


def test_in_tree():
    w = in_tree_world()
    local = {
        allocs("NUMA1_1:VCPU=1", "CN1:DISK_GB=50"),
        allocs("NUMA1_2:VCPU=1", "CN1:DISK_GB=50"),
    }
    for tree in ("CN1", "NUMA1_1"):  # a non-root provider names its whole tree
        request = [("resources", "VCPU:1,DISK_GB:50"), ("in_tree", w.uuid(tree))]
        assert allocations(w.query(request)) == local


def test_in_tree_applies_to_its_own_group_only():
    w = in_tree_world()
    request = [("resources", "VCPU:1"), ("in_tree", w.uuid("CN1")), ("resources1", "DISK_GB:10")]
    assert allocations(w.query(request)) == {
        allocs(f"NUMA1_{n}:VCPU=1", f"{disk}:DISK_GB=10")
        for n in "12"
        for disk in ("CN1", "SS1", "SS2")
    }
    request = [("resources", "VCPU:1"), ("resources1", "DISK_GB:10"), ("in_tree1", w.uuid("SS1"))]
    assert allocations(w.query(request)) == {
        allocs(f"NUMA{n}:VCPU=1", "SS1:DISK_GB=10") for n in ("1_1", "1_2", "2_1", "2_2")
    }
    request = [
        ("resources1", "VCPU:1"),
        ("in_tree1", w.uuid("CN1")),
        ("resources2", "DISK_GB:10"),
        ("in_tree2", w.uuid("SS1")),
        ("group_policy", "isolate"),
    ]
    assert allocations(w.query(request)) == {
        allocs("NUMA1_1:VCPU=1", "SS1:DISK_GB=10"),
        allocs("NUMA1_2:VCPU=1", "SS1:DISK_GB=10"),
    }


def root_traits_world():
    # NUMA1/NUMA2 memory is not in the (cut) diagram; the answers need some.
    w = World()
    w.add(
        "NON_NUMA_CN",
        inv=HOST,
        traits=[
            "HW_CPU_X86_AVX2",
            "STORAGE_DISK_SSD",
            "COMPUTE_VOLUME_MULTI_ATTACH",
            "CUSTOM_WINDOWS_LICENSE_POOL",
        ],
    )
    w.add(
        "NUMA_CN", inv={"DISK_GB": 1000}, traits=["STORAGE_DISK_SSD", "COMPUTE_VOLUME_MULTI_ATTACH"]
    )
    w.add("NUMA1", parent="NUMA_CN", inv={"VCPU": 4, "MEMORY_MB": 1024})
    w.add("NUMA2", parent="NUMA_CN", inv={"VCPU": 4, "MEMORY_MB": 1024}, traits=["HW_CPU_X86_AVX2"])
    return w


def test_root_required():
    w = root_traits_world()
    groups = [
        ("resources1", "VCPU:1,MEMORY_MB:512"),
        ("resources2", "DISK_GB:100"),
        ("group_policy", "none"),
    ]
    request = groups + [
        ("required1", "HW_CPU_X86_AVX2"),
        ("root_required", "COMPUTE_VOLUME_MULTI_ATTACH"),
    ]
    assert allocations(w.query(request)) == {
        allocs("NON_NUMA_CN:VCPU=1,MEMORY_MB=512,DISK_GB=100"),
        allocs("NUMA_CN:DISK_GB=100", "NUMA2:VCPU=1,MEMORY_MB=512"),
    }
    request = groups + [("root_required", "!CUSTOM_WINDOWS_LICENSE_POOL")]
    assert allocations(w.query(request)) == {
        allocs("NUMA_CN:DISK_GB=100", "NUMA1:VCPU=1,MEMORY_MB=512"),
        allocs("NUMA_CN:DISK_GB=100", "NUMA2:VCPU=1,MEMORY_MB=512"),
    }


def fpga_world():
    # Rebuilt from the answers: NUMA0 holds FPGA0_0, NUMA1 holds FPGA1_0 and FPGA1_1.
    # The docs' ACCELERATOR_FPGA goes by its standard class name, FPGA.
    w = World()
    w.add("CN")
    w.add("NUMA0", parent="CN", inv={"VCPU": 4, "MEMORY_MB": 2048}, traits=["HW_NUMA_ROOT"])
    w.add("NUMA1", parent="CN", inv={"VCPU": 4, "MEMORY_MB": 2048}, traits=["HW_NUMA_ROOT"])
    w.add("FPGA0_0", parent="NUMA0", inv={"FPGA": 1}, traits=["CUSTOM_TYPE1"])
    w.add("FPGA1_0", parent="NUMA1", inv={"FPGA": 1}, traits=["CUSTOM_TYPE1"])
    w.add("FPGA1_1", parent="NUMA1", inv={"FPGA": 1}, traits=["CUSTOM_TYPE2"])
    return w


def test_same_subtree():
    request = [
        ("resources_COMPUTE", "VCPU:1,MEMORY_MB:256"),
        ("resources_ACCEL", "FPGA:1"),
        ("group_policy", "none"),
        ("same_subtree", "_COMPUTE,_ACCEL"),
    ]
    assert allocations(fpga_world().query(request)) == {
        allocs("NUMA0:VCPU=1,MEMORY_MB=256", "FPGA0_0:FPGA=1"),
        allocs("NUMA1:VCPU=1,MEMORY_MB=256", "FPGA1_0:FPGA=1"),
        allocs("NUMA1:VCPU=1,MEMORY_MB=256", "FPGA1_1:FPGA=1"),
    }


def test_same_subtree_with_a_resourceless_group():
    request = [
        ("required_NUMA", "HW_NUMA_ROOT"),
        ("resources_ACCEL1", "FPGA:1"),
        ("required_ACCEL1", "CUSTOM_TYPE1"),
        ("resources_ACCEL2", "FPGA:1"),
        ("required_ACCEL2", "CUSTOM_TYPE2"),
        ("group_policy", "none"),
        ("same_subtree", "_NUMA,_ACCEL1,_ACCEL2"),
    ]
    # The resourceless group's provider shows in the mappings only.
    assert fpga_world().query(request) == [
        (
            allocs("FPGA1_0:FPGA=1", "FPGA1_1:FPGA=1"),
            frozenset(
                {
                    ("_NUMA", frozenset({"NUMA1"})),
                    ("_ACCEL1", frozenset({"FPGA1_0"})),
                    ("_ACCEL2", frozenset({"FPGA1_1"})),
                }
            ),
        )
    ]


def nic_affinity_world():
    # The spec's HW_NIC_ROOT is not a standard trait (yet): a custom one stands in.
    w = World()
    w.add("CN")
    for nic in ("1", "2"):
        w.add(f"NIC{nic}", parent="CN", traits=["CUSTOM_NIC_ROOT"])
        w.add(f"PF{nic}_1", parent=f"NIC{nic}", inv={"SRIOV_NET_VF": 4}, traits=["CUSTOM_NET1"])
        w.add(f"PF{nic}_2", parent=f"NIC{nic}", inv={"SRIOV_NET_VF": 4}, traits=["CUSTOM_NET2"])
    return w


def test_two_vfs_from_the_same_nic_on_two_networks():
    request = [
        ("resources_VIF_NET1", "SRIOV_NET_VF:1"),
        ("required_VIF_NET1", "CUSTOM_NET1"),
        ("resources_VIF_NET2", "SRIOV_NET_VF:1"),
        ("required_VIF_NET2", "CUSTOM_NET2"),
        ("required_NIC_AFFINITY", "CUSTOM_NIC_ROOT"),
        ("group_policy", "none"),
        ("same_subtree", "_VIF_NET1,_VIF_NET2,_NIC_AFFINITY"),
    ]
    assert allocations(nic_affinity_world().query(request)) == {
        allocs("PF1_1:SRIOV_NET_VF=1", "PF1_2:SRIOV_NET_VF=1"),
        allocs("PF2_1:SRIOV_NET_VF=1", "PF2_2:SRIOV_NET_VF=1"),
    }


def test_same_subtree_and_group_policy():
    # Rebuilt: NIC1 has two PFs, NIC2 a single PF with a single VF.
    w = World()
    w.add("CN")
    w.add("NIC1", parent="CN", traits=["CUSTOM_NIC_ROOT"])
    w.add("PF1_1", parent="NIC1", inv={"SRIOV_NET_VF": 4})
    w.add("PF1_2", parent="NIC1", inv={"SRIOV_NET_VF": 4})
    w.add("NIC2", parent="CN", traits=["CUSTOM_NIC_ROOT"])
    w.add("PF2_1", parent="NIC2", inv={"SRIOV_NET_VF": 1})
    request = [
        ("resources_VIF1", "SRIOV_NET_VF:1"),
        ("resources_VIF2", "SRIOV_NET_VF:1"),
        ("required_NIC_AFFINITY", "CUSTOM_NIC_ROOT"),
        ("same_subtree", "_VIF1,_VIF2,_NIC_AFFINITY"),
    ]
    different_pfs = allocs("PF1_1:SRIOV_NET_VF=1", "PF1_2:SRIOV_NET_VF=1")
    isolated = w.query(request + [("group_policy", "isolate")])
    # one allocation, twice: VIF1/VIF2 on PF1_1/PF1_2 or the other way round
    assert [a for a, _ in isolated] == [different_pfs, different_pfs]
    # (the mixed allocation also comes twice, with swapped mappings)
    assert {a for a, _ in w.query(request + [("group_policy", "none")])} == {
        different_pfs,
        allocs("PF1_1:SRIOV_NET_VF=2"),
        allocs("PF1_2:SRIOV_NET_VF=2"),
    }


def test_request_group_mappings():
    w = World()
    w.add("compute1", inv={"VCPU": 1, "MEMORY_MB": 1024, "DISK_GB": 10})
    w.add("agent", parent="compute1")
    bandwidth = {"NET_BW_EGR_KILOBIT_PER_SEC": 2000, "NET_BW_IGR_KILOBIT_PER_SEC": 2000}
    for eth in ("eth0", "eth1"):
        w.add(eth, parent="agent", inv=bandwidth, traits=["CUSTOM_PHYSNET_1", "CUSTOM_VNIC_DIRECT"])
    request = [
        ("resources", "DISK_GB:1,MEMORY_MB:512,VCPU:1"),
        ("required1", "CUSTOM_PHYSNET_1,CUSTOM_VNIC_DIRECT"),
        ("resources1", "NET_BW_EGR_KILOBIT_PER_SEC:1000,NET_BW_IGR_KILOBIT_PER_SEC:1000"),
        ("required2", "CUSTOM_PHYSNET_1,CUSTOM_VNIC_DIRECT"),
        ("resources2", "NET_BW_EGR_KILOBIT_PER_SEC:1000,NET_BW_IGR_KILOBIT_PER_SEC:2000"),
        ("group_policy", "isolate"),
    ]
    compute = "compute1:DISK_GB=1,MEMORY_MB=512,VCPU=1"
    found = set(w.query(request))
    assert found == {
        (
            allocs(
                compute,
                f"{a}:NET_BW_EGR_KILOBIT_PER_SEC=1000,NET_BW_IGR_KILOBIT_PER_SEC=1000",
                f"{b}:NET_BW_EGR_KILOBIT_PER_SEC=1000,NET_BW_IGR_KILOBIT_PER_SEC=2000",
            ),
            frozenset(
                {("", frozenset({"compute1"})), ("1", frozenset({a})), ("2", frozenset({b}))}
            ),
        )
        for a, b in (("eth0", "eth1"), ("eth1", "eth0"))
    }


def forbidden_aggregates_world():
    w = World()
    w.add("ss1", inv={"DISK_GB": 10}, aggs=["B"], sharing=True)
    w.add("cn1", inv={"DISK_GB": 10}, aggs=["A"])
    w.add("numa1_1", parent="cn1", inv={"DISK_GB": 10}, aggs=["C"])
    w.add("numa1_2", parent="cn1", inv={"DISK_GB": 10})
    w.add("cn2", inv={"DISK_GB": 10}, aggs=["B"])
    w.add("numa2_1", parent="cn2", inv={"DISK_GB": 10})
    w.add("numa2_2", parent="cn2", inv={"DISK_GB": 10})
    w.add("ss2", inv={"DISK_GB": 10}, aggs=["C"], sharing=True)
    return w


def _serving(results):
    return {name for a, _ in results for name, _, _ in a}


ALL = {"ss1", "ss2", "cn1", "numa1_1", "numa1_2", "cn2", "numa2_1", "numa2_2"}


def test_forbidden_aggregates_span_the_tree_unsuffixed():
    w = forbidden_aggregates_world()
    disk = [("resources", "DISK_GB:1")]
    assert _serving(w.query(disk)) == ALL
    excluded = {
        "A": {"cn1", "numa1_1", "numa1_2"},
        "B": {"cn2", "numa2_1", "numa2_2", "ss1"},
        "C": {"numa1_1", "ss2"},
    }
    for name, gone in excluded.items():
        assert _serving(w.query(disk + [("member_of", "!" + agg(name))])) == ALL - gone


def test_forbidden_aggregates_do_not_span_for_suffixed_groups():
    w = forbidden_aggregates_world()
    disk = [("resources1", "DISK_GB:1")]
    excluded = {"A": {"cn1"}, "B": {"cn2", "ss1"}, "C": {"numa1_1", "ss2"}}
    for name, gone in excluded.items():
        assert _serving(w.query(disk + [("member_of1", "!" + agg(name))])) == ALL - gone
