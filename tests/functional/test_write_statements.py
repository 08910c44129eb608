"""How many SQL statements each everyday write sends, per backend (issue
38): a claim of a fresh consumer on one provider, a claim replacing a
consumer's allocations, a claim of two consumers (POST /allocations), a
release, and a provider's whole-inventory PUT. Pinned so that they cannot
creep back up; BEGIN and COMMIT are not counted (the engine's, not the
write's). Counted with keep_scores off (the default order, id)."""

import contextlib
import uuid

from sqlalchemy import event

from tests.helpers import factories

PROJECT = {"project_id": "proj", "user_id": "user"}
HOST = {"VCPU": 64, "MEMORY_MB": 262144, "DISK_GB": 2000}
CLAIM = {"VCPU": 1, "MEMORY_MB": 2048, "DISK_GB": 20}

# operation -> statements (the same on every backend)
# (before issue 38: 16, 14, 25, 2 and 6)
EXPECTED = {"fresh claim": 5, "replacing claim": 6, "two consumers (POST)": 7,
            "release (DELETE)": 2, "inventory PUT": 3}


@contextlib.contextmanager
def counted(engine):
    seen: list[str] = []

    def before(conn, cursor, statement, parameters, context, executemany):
        if statement.split(None, 1)[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", before)


def operations(api, db):
    """(name, statements) of each operation, once the owner rows exist."""
    rp = factories.provider(db, "host", inventory=HOST)
    other = factories.provider(db, "other", inventory=HOST)
    warm = str(uuid.uuid4())  # the project, user and consumer type exist, as in a cloud
    assert api.put(f"/allocations/{warm}", version="1.38", json={
        "allocations": {other: {"resources": CLAIM}}, **PROJECT, "consumer_generation": None,
        "consumer_type": "INSTANCE"}).status_code == 204
    consumer = str(uuid.uuid4())
    results = {}

    def run(name, method, path, body, version="1.38"):
        with counted(db.engine) as seen:
            r = api.request(method, path, version=version, json=body)
        assert r.status_code in (200, 204), r.text
        results[name] = list(seen)

    run("fresh claim", "PUT", f"/allocations/{consumer}", {
        "allocations": {rp: {"resources": CLAIM}}, **PROJECT, "consumer_generation": None,
        "consumer_type": "INSTANCE"})
    run("replacing claim", "PUT", f"/allocations/{consumer}", {
        "allocations": {rp: {"resources": {**CLAIM, "VCPU": 2}}}, **PROJECT,
        "consumer_generation": 1, "consumer_type": "INSTANCE"})
    run("two consumers (POST)", "POST", "/allocations", {
        str(uuid.uuid4()): {"allocations": {rp: {"resources": CLAIM}}, **PROJECT,
                            "consumer_generation": None, "consumer_type": "INSTANCE"},
        str(uuid.uuid4()): {"allocations": {other: {"resources": CLAIM}}, **PROJECT,
                            "consumer_generation": None, "consumer_type": "INSTANCE"}})
    run("release (DELETE)", "DELETE", f"/allocations/{consumer}", None)
    generation = api.get(f"/resource_providers/{rp}", version="1.38").json["generation"]
    run("inventory PUT", "PUT", f"/resource_providers/{rp}/inventories", {
        "resource_provider_generation": generation,
        "inventories": {**{rc: {"total": total} for rc, total in HOST.items()},
                        "VCPU": {"total": 32}}})
    return results


def test_statements_per_write(api, db):
    results = operations(api, db)
    counts = {name: len(statements) for name, statements in results.items()}
    assert counts == EXPECTED, "\n\n".join(
        f"-- {name}: {len(s)}\n" + "\n".join(x.split("\n")[0][:100] for x in s)
        for name, s in results.items())
