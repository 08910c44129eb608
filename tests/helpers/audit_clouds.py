"""The audit's rules read literally, over every row of the database
(``brute_force``), to compare GET /audit's findings (placer.db.audit) with;
and random clouds written as rows (``clouds``, ``store``), faults and all, for
the property tests. Shares no code with placer.db.audit but the capacity
rule (model.inventory.capacity, as the API applies it)."""

import datetime
import itertools
from collections import defaultdict

import sqlalchemy as sa
from hypothesis import strategies as st

from placer.db import tables as t
from placer.model.audit import KINDS
from placer.model.inventory import capacity

SHARING = "MISC_SHARES_VIA_AGGREGATE"
CLASSES = ("VCPU", "MEMORY_MB", "DISK_GB")
NOW = datetime.datetime(2026, 6, 1, 12, 0, 0)
DAY = datetime.timedelta(days=1)


def _stamp(updated, created):
    when = updated or created
    return None if when is None else when.strftime("%Y-%m-%dT%H:%M:%SZ")


# -- the rows -------------------------------------------------------------------------


def read_rows(conn) -> dict:
    """Every row the audit reads, as plain tuples."""
    def rows(*columns):
        return [tuple(r) for r in conn.execute(sa.select(*columns))]
    rp, inv, a, c = t.resource_providers, t.inventories, t.allocations, t.consumers
    return {
        "providers": {r[0]: r for r in rows(rp.c.id, rp.c.uuid, rp.c.name, rp.c.generation,
                                            rp.c.root_provider_id, rp.c.parent_provider_id,
                                            rp.c.created_at, rp.c.updated_at)},
        "classes": dict(rows(t.resource_classes.c.id, t.resource_classes.c.name)),
        "inventories": {(r[0], r[1]): r[2:] for r in rows(
            inv.c.resource_provider_id, inv.c.resource_class_id, inv.c.total, inv.c.reserved,
            inv.c.min_unit, inv.c.max_unit, inv.c.step_size, inv.c.allocation_ratio)},
        "allocations": rows(a.c.id, a.c.resource_provider_id, a.c.consumer_id,
                            a.c.resource_class_id, a.c.used),
        "sharing": {r[0] for r in conn.execute(
            sa.select(t.resource_provider_traits.c.resource_provider_id)
            .join(t.traits, t.traits.c.id == t.resource_provider_traits.c.trait_id)
            .where(t.traits.c.name == SHARING))},
        "aggregates": rows(t.resource_provider_aggregates.c.resource_provider_id,
                           t.resource_provider_aggregates.c.aggregate_id),
        "consumers": rows(c.c.uuid, c.c.project_id, c.c.user_id, c.c.consumer_type_id,
                          c.c.generation, c.c.updated_at, c.c.created_at),
        "projects": dict(rows(t.projects.c.id, t.projects.c.external_id)),
        "users": dict(rows(t.users.c.id, t.users.c.external_id)),
        "types": dict(rows(t.consumer_types.c.id, t.consumer_types.c.name)),
    }


# -- the rules, literally -----------------------------------------------------------------


def brute_force(rows: dict, idle_days: int = 30, now: datetime.datetime = NOW) -> dict:
    """Kind -> {"count", "items"} with every item, for every kind."""
    providers, classes, inventories = rows["providers"], rows["classes"], rows["inventories"]
    # allocations whose provider and class exist (the others name nothing)
    allocations = [a for a in rows["allocations"] if a[1] in providers and a[3] in classes]
    uuid = {p: row[1] for p, row in providers.items()}
    found = {}

    used = defaultdict(int)
    holders = defaultdict(lambda: defaultdict(int))
    for _, rp, consumer, rc, amount in allocations:
        used[rp, rc] += amount
        holders[rp, rc][consumer] += amount
    over = []
    for (rp, rc), held in used.items():
        if (rp, rc) not in inventories:
            continue
        total, reserved, _, _, _, ratio = inventories[rp, rc]
        cap = capacity(total, reserved, ratio)
        if held > cap:
            over.append({
                "resource_provider": uuid[rp], "name": providers[rp][2],
                "resource_class": classes[rc], "total": total, "reserved": reserved,
                "allocation_ratio": ratio, "capacity": cap, "used": held,
                "excess": held - cap, "consumers": [
                    {"consumer": c, "used": n} for c, n in sorted(
                        holders[rp, rc].items(), key=lambda item: (-item[1], item[0]))]})
    over.sort(key=lambda i: (-i["excess"], i["resource_provider"], i["resource_class"]))
    found["over_capacity"] = over

    by_row = sorted(allocations, key=lambda a: (a[2], uuid[a[1]], classes[a[3]], a[0]))
    units, missing = [], []
    for _, rp, consumer, rc, amount in by_row:
        if (rp, rc) not in inventories:
            missing.append({"consumer": consumer, "resource_provider": uuid[rp],
                            "resource_class": classes[rc], "used": amount})
            continue
        _, _, min_unit, max_unit, step, _ = inventories[rp, rc]
        broken = [name for name, ok in (("min_unit", amount >= min_unit),
                                        ("max_unit", amount <= max_unit),
                                        ("step_size", step >= 1 and amount % step == 0))
                  if not ok]
        if broken:
            units.append({"consumer": consumer, "resource_provider": uuid[rp],
                          "resource_class": classes[rc], "used": amount,
                          "min_unit": min_unit, "max_unit": max_unit, "step_size": step,
                          "violates": broken})
    found["unit_violations"], found["without_inventory"] = units, missing

    consumers = {c[0]: c for c in rows["consumers"]}

    def consumer_item(c):
        row = consumers.get(c)
        if row is None:
            return {"consumer": c, "project_id": None, "user_id": None, "consumer_type": None,
                    "generation": None, "updated_at": None}
        _, project, user, kind, generation, updated, created = row
        return {"consumer": c, "project_id": rows["projects"].get(project),
                "user_id": rows["users"].get(user), "consumer_type": rows["types"].get(kind),
                "generation": generation, "updated_at": _stamp(updated, created)}

    root = {p: row[4] for p, row in providers.items()}
    aggregates = defaultdict(set)
    for rp, agg in rows["aggregates"]:
        aggregates[rp].add(agg)
    tree = defaultdict(set)
    for p in providers:
        tree[root[p]].add(p)
    split = []
    for consumer, mine in itertools.groupby(sorted(allocations, key=lambda a: a[2]),
                                            key=lambda a: a[2]):
        mine = list(mine)
        roots = {root[a[1]] for a in mine}

        def shared_by_another(p, roots=roots):
            return p in rows["sharing"] and any(
                aggregates[p] & aggregates[x]
                for r in roots if r != root[p] for x in tree[r])
        counted = [a for a in mine if not shared_by_another(a[1])]
        if len({root[a[1]] for a in counted}) > 1:
            per_root = defaultdict(lambda: defaultdict(int))
            for _, rp, _, rc, amount in counted:
                per_root[root[rp]][classes[rc]] += amount
            item = consumer_item(consumer)
            item["roots"] = sorted(
                ({"uuid": uuid[r], "name": providers[r][2], "resources": dict(sorted(res.items()))}
                 for r, res in per_root.items()), key=lambda r: r["uuid"])
            split.append(item)
    found["split_consumers"] = split

    allocated = {a[2] for a in rows["allocations"]}
    found["empty_consumers"] = [consumer_item(c) for c in sorted(consumers)
                                if c not in allocated]

    cutoff = now - datetime.timedelta(days=idle_days)
    busy = ({rp for rp, _ in inventories} | {a[1] for a in rows["allocations"]}
            | {row[5] for row in providers.values()})
    found["idle_providers"] = sorted((
        {"resource_provider": row[1], "name": row[2], "generation": row[3],
         "updated_at": _stamp(row[7], row[6])}
        for p, row in providers.items()
        if p not in busy and (row[7] or row[6]) is not None and (row[7] or row[6]) <= cutoff),
        key=lambda i: i["resource_provider"])
    for kind, column in (("unused_projects", 1), ("unused_users", 2)):
        referred = {c[column] for c in rows["consumers"]}
        table = rows["projects" if kind == "unused_projects" else "users"]
        found[kind] = [{"external_id": e} for i, e in sorted(table.items(), key=lambda x: x[1])
                       if i not in referred]
    return {kind: {"count": len(found[kind]), "items": found[kind]} for kind in KINDS}


def limited(expected: dict, kinds, limit: int) -> dict:
    """``expected`` for ``kinds`` (in KINDS' order), items cut to ``limit``."""
    return {kind: {"count": expected[kind]["count"], "items": expected[kind]["items"][:limit]}
            for kind in KINDS if kind in kinds}


# -- random clouds ----------------------------------------------------------------------


def _uuid(prefix: str, n: int) -> str:
    return f"{prefix}{n:07x}-0000-4000-8000-000000000000"


@st.composite
def clouds(draw) -> dict:
    """A cloud as rows: providers (trees, sharing providers in aggregates,
    some without inventory, of various ages), inventories of every kind of
    limits, consumers with allocations drawn without regard for room, units
    or inventory (so that every fault arises), empty consumers, consumers
    without a row, projects and users no one uses."""
    count = draw(st.integers(1, 6))
    order = draw(st.permutations(range(count)))
    stamps = [NOW - 40 * DAY, NOW - 30 * DAY, NOW - 2 * DAY, NOW, None]
    providers = []
    for i in range(count):
        parent = draw(st.sampled_from([None, *range(i)])) if i else None
        if parent is not None and draw(st.booleans()):
            parent = None
        inventory = {}
        for rc in CLASSES:
            if draw(st.integers(0, 2)):
                total = draw(st.integers(1, 8))
                inventory[rc] = {
                    "total": total,
                    "reserved": draw(st.sampled_from([0, 0, 1, total])),
                    "min_unit": draw(st.sampled_from([1, 1, 2])),
                    "max_unit": draw(st.sampled_from([total, total, 2, 100])),
                    "step_size": draw(st.sampled_from([1, 1, 2, 3])),
                    "allocation_ratio": draw(st.sampled_from([1.0, 1.0, 0.9, 1.5, 16.0])),
                }
        if draw(st.integers(0, 2)) == 0:
            inventory = {}
        providers.append({
            "uuid": _uuid("a", order[i]), "name": f"p{i}", "parent": parent,
            "sharing": draw(st.integers(0, 2)) == 0,
            "aggregates": draw(st.sets(st.sampled_from(["a", "b"]))),
            "inventory": inventory,
            "created_at": draw(st.sampled_from(stamps)),
            "updated_at": draw(st.sampled_from([None, None, *stamps])),
        })
    consumers = []
    for j in range(draw(st.integers(0, 6))):
        picks = draw(st.lists(st.tuples(st.integers(0, count - 1), st.sampled_from(CLASSES)),
                              max_size=4, unique=True))
        consumers.append({
            "uuid": _uuid("c", draw(st.integers(0, 99)) * 8 + j),
            "row": draw(st.integers(0, 5)) != 0,
            "project": draw(st.integers(0, 2)), "user": draw(st.integers(0, 2)),
            "type": draw(st.sampled_from([None, "INSTANCE", "MIGRATION"])),
            "generation": draw(st.integers(0, 3)),
            "updated_at": draw(st.sampled_from([None, NOW - DAY])),
            "allocations": [(p, rc, draw(st.integers(1, 7))) for p, rc in picks],
        })
    return {"providers": providers, "consumers": consumers,
            "idle_days": draw(st.sampled_from([0, 1, 30])),
            "projects": draw(st.integers(0, 3)), "users": draw(st.integers(0, 3))}


def clear(conn) -> None:
    """Every row a cloud writes (the standard classes and traits stay)."""
    for table in (t.allocations, t.inventories, t.resource_provider_traits,
                  t.resource_provider_aggregates, t.placement_aggregates, t.consumers,
                  t.projects, t.users, t.consumer_types):
        conn.execute(table.delete())
    rp = t.resource_providers
    conn.execute(rp.update().values(parent_provider_id=None, root_provider_id=None))
    conn.execute(rp.delete())


def store(conn, cloud: dict) -> None:
    """Write ``cloud`` (of ``clouds``), after clearing what was there."""
    clear(conn)
    rp, rc_t = t.resource_providers, t.resource_classes
    rc_ids = dict(conn.execute(sa.select(rc_t.c.name, rc_t.c.id)).all())
    sharing = conn.execute(sa.select(t.traits.c.id).where(t.traits.c.name == SHARING)
                           ).scalar_one()
    agg_ids = {name: conn.execute(t.placement_aggregates.insert().values(
        uuid=_uuid("f", n))).inserted_primary_key[0] for n, name in enumerate("ab")}
    ids: list[int] = []
    for p in cloud["providers"]:
        parent = ids[p["parent"]] if p["parent"] is not None else None
        root = None if parent is None else conn.execute(
            sa.select(rp.c.root_provider_id).where(rp.c.id == parent)).scalar_one()
        new = conn.execute(rp.insert().values(
            uuid=p["uuid"], name=p["name"], generation=1, parent_provider_id=parent,
            root_provider_id=root, created_at=p["created_at"], updated_at=p["updated_at"])
        ).inserted_primary_key[0]
        if root is None:  # its own root; the timestamps as drawn
            conn.execute(rp.update().where(rp.c.id == new).values(
                root_provider_id=new, updated_at=p["updated_at"]))
        ids.append(new)
        if p["inventory"]:
            conn.execute(t.inventories.insert(), [
                {"resource_provider_id": new, "resource_class_id": rc_ids[rc], **fields}
                for rc, fields in p["inventory"].items()])
        if p["sharing"]:
            conn.execute(t.resource_provider_traits.insert().values(
                resource_provider_id=new, trait_id=sharing))
        for agg in sorted(p["aggregates"]):
            conn.execute(t.resource_provider_aggregates.insert().values(
                resource_provider_id=new, aggregate_id=agg_ids[agg]))
    projects = {n: conn.execute(t.projects.insert().values(external_id=f"project-{n}"))
                .inserted_primary_key[0] for n in range(max(
                    cloud["projects"], *(c["project"] + 1 for c in cloud["consumers"]), 0))}
    users = {n: conn.execute(t.users.insert().values(external_id=f"user-{n}"))
             .inserted_primary_key[0] for n in range(max(
                 cloud["users"], *(c["user"] + 1 for c in cloud["consumers"]), 0))}
    types = {name: conn.execute(t.consumer_types.insert().values(name=name))
             .inserted_primary_key[0] for name in ("INSTANCE", "MIGRATION")}
    for c in cloud["consumers"]:
        if c["row"]:
            conn.execute(t.consumers.insert().values(
                uuid=c["uuid"], project_id=projects[c["project"]], user_id=users[c["user"]],
                consumer_type_id=types.get(c["type"]), generation=c["generation"],
                created_at=NOW - 3 * DAY, updated_at=c["updated_at"]))
        if c["allocations"]:
            conn.execute(t.allocations.insert(), [
                {"resource_provider_id": ids[p], "resource_class_id": rc_ids[rc],
                 "consumer_id": c["uuid"], "used": used} for p, rc, used in c["allocations"]])
