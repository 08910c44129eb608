"""The hand-made snapshot builder (tests/helpers/snapshots.py) itself."""

from tests.helpers.snapshots import World


def test_builder_links_trees():
    world = World()
    root = world.add("root")
    child = world.add("child", parent="root", inv={"VCPU": 4})
    assert (child.parent_id, child.root_id) == (root.id, root.id)
    snap = world.snapshot()
    assert snap.lineage(child.id) == [child.id, root.id]
    assert [p.name for p in snap.tree(root.id)] == ["root", "child"]

