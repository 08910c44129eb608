"""The migrations build exactly the schema declared in placer.db.tables.

An existing Placement database must be served in place, so the migrated
schema (what operators have) and the declared one (what queries assume) must
not drift: types, nullability, server defaults, indexes, unique constraints
and foreign keys are all compared, on every backend.
"""

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from placer.db import schema_migrations, tables

HEAD = "a082b8bb98d0"


def _differences(engine, metadata=tables.metadata) -> list:
    """What differs between the database and ``metadata``, on ``metadata``'s
    tables (the reference's, or Placer's own)."""
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True,
                        "include_name": lambda name, kind, _parents: (
                            kind != "table" or name in metadata.tables)})
        return compare_metadata(context, metadata)


def test_migrated_schema_matches_tables(empty_engine):
    schema_migrations.upgrade(empty_engine)
    assert _differences(empty_engine) == []
    assert _differences(empty_engine, tables.placer_metadata) == []


def test_every_declared_table_is_created(empty_engine):
    schema_migrations.upgrade(empty_engine)
    names = set(sa.inspect(empty_engine).get_table_names())
    assert names == (set(tables.metadata.tables) | set(tables.placer_metadata.tables)
                     | {"alembic_version", "placer_alembic_version"})


def test_reference_history_holds_only_reference_revisions(empty_engine):
    """After a roll-back, the reference's own db sync reads alembic_version:
    it must find its head there, and Placer's tables under their own table."""
    schema_migrations.upgrade(empty_engine)
    with empty_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).all() == [
            (HEAD,)]
        assert conn.execute(sa.text("SELECT version_num FROM placer_alembic_version")
                            ).all() == [(schema_migrations.placer_head(),)]
    assert schema_migrations.placer_version(empty_engine) == schema_migrations.placer_head()


def test_placer_tables_wait_for_the_references_head(empty_engine):
    """Upgrading to an older reference revision leaves Placer's tables out:
    their filling reads the current schema."""
    schema_migrations.upgrade(empty_engine, "b4ed3a175331")
    assert "placer_tree_scores" not in sa.inspect(empty_engine).get_table_names()
    assert schema_migrations.placer_version(empty_engine) is None


def test_reference_index_names_survive(empty_engine):
    """Operators' SQL (and the reference's later migrations) use these names."""
    schema_migrations.upgrade(empty_engine)
    inspector = sa.inspect(empty_engine)
    rp_indexes = {i["name"] for i in inspector.get_indexes("resource_providers")}
    assert {"resource_providers_root_provider_id_idx",
            "resource_providers_parent_provider_id_idx"} <= rp_indexes
    # the redundant ones were dropped at a082b8bb98d0
    assert "resource_providers_uuid_idx" not in rp_indexes
    uniques = {u["name"] for u in inspector.get_unique_constraints("consumers")}
    if empty_engine.dialect.name == "mysql":  # MySQL reports unique keys as indexes
        uniques |= {i["name"] for i in inspector.get_indexes("consumers") if i["unique"]}
    assert "uniq_consumers0uuid" in uniques


def test_comparison_detects_a_missing_index(empty_engine):
    """Guard for the test above: a real drift is reported."""
    schema_migrations.upgrade(empty_engine)
    with empty_engine.begin() as conn:
        conn.execute(sa.text("DROP INDEX allocations_consumer_id_idx"
                             + (" ON allocations" if conn.dialect.name == "mysql" else "")))
    diffs = _differences(empty_engine)
    assert [(d[0], d[1].name) for d in diffs] == [("add_index", "allocations_consumer_id_idx")]


def test_head_is_the_references_head(empty_engine):
    assert schema_migrations.head() == HEAD
    assert schema_migrations.version(empty_engine) is None
    schema_migrations.upgrade(empty_engine)
    assert schema_migrations.version(empty_engine) == HEAD
