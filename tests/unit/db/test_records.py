"""db/trees.py's Records: a record answers only under the key it was
kept at, equal values are kept once, and a full cache starts again."""

from placer.candidates.snapshot import Inventory
from placer.db.trees import Records

VCPU = {0: Inventory(8)}


def _entry(rp: int, generation: int, total: int = 8, traits=("CUSTOM_A",)):
    return ((rp, f"uuid-{rp}", generation), {0: Inventory(total)}, frozenset(traits))


def test_a_record_answers_only_under_its_key():
    records = Records(10)
    records.put([_entry(1, 3)])
    assert records.get((1, "uuid-1", 3))[1] == VCPU
    assert records.get((1, "uuid-1", 4)) is None  # written since
    assert records.get((1, "uuid-9", 3)) is None  # another provider, the same id
    assert records.get((2, "uuid-2", 3)) is None
    records.put([_entry(1, 4, total=2)])
    assert records.get((1, "uuid-1", 3)) is None
    assert records.get((1, "uuid-1", 4))[1] == {0: Inventory(2)}


def test_equal_values_are_kept_once():
    records = Records(10)
    records.put([_entry(1, 1), _entry(2, 5), _entry(3, 1, total=4)])
    one, two, three = (records.get((rp, f"uuid-{rp}", g)) for rp, g in ((1, 1), (2, 5), (3, 1)))
    assert one[1] is two[1] and one[2] is two[2]
    assert three[1] is not one[1] and three[2] is one[2]


def test_past_its_size_it_starts_again():
    records = Records(3)
    records.put([_entry(1, 1), _entry(2, 1)])
    records.put([_entry(3, 1), _entry(4, 1)])  # 4 > 3: emptied first
    assert records.get((1, "uuid-1", 1)) is None
    assert records.get((4, "uuid-4", 1)) is not None
    records.put([_entry(rp, 1) for rp in range(10, 20)])  # more than it holds at all
    assert sum(records.get((rp, f"uuid-{rp}", 1)) is not None for rp in range(10, 20)) == 3
