"""The schema, mirroring the reference's tables, columns, indexes and constraints.

Kept identical so that an existing Placement database can be served in place.
"""

import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    Unicode,
    UniqueConstraint,
)

metadata = MetaData()


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def _timestamps() -> list[Column[Any]]:
    return [
        Column("created_at", DateTime, default=_utcnow),
        Column("updated_at", DateTime, onupdate=_utcnow),
    ]


resource_classes = Table(
    "resource_classes", metadata,
    *_timestamps(),
    Column("id", Integer, primary_key=True, nullable=False),
    Column("name", String(255), nullable=False),
    UniqueConstraint("name", name="uniq_resource_classes0name"),
)

resource_providers = Table(
    "resource_providers", metadata,
    *_timestamps(),
    Column("id", Integer, primary_key=True, nullable=False),
    Column("uuid", String(36), nullable=False),
    Column("name", Unicode(200), nullable=True),
    Column("generation", Integer, default=0),
    Column("root_provider_id", Integer, ForeignKey("resource_providers.id"), nullable=True),
    Column("parent_provider_id", Integer, ForeignKey("resource_providers.id"), nullable=True),
    UniqueConstraint("uuid", name="uniq_resource_providers0uuid"),
    UniqueConstraint("name", name="uniq_resource_providers0name"),
    Index("resource_providers_root_provider_id_idx", "root_provider_id"),
    Index("resource_providers_parent_provider_id_idx", "parent_provider_id"),
)

inventories = Table(
    "inventories", metadata,
    *_timestamps(),
    Column("id", Integer, primary_key=True, nullable=False),
    Column("resource_provider_id", Integer, nullable=False),
    Column("resource_class_id", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("reserved", Integer, nullable=False),
    Column("min_unit", Integer, nullable=False),
    Column("max_unit", Integer, nullable=False),
    Column("step_size", Integer, nullable=False),
    Column("allocation_ratio", Float, nullable=False),
    UniqueConstraint("resource_provider_id", "resource_class_id",
                     name="uniq_inventories0resource_provider_resource_class"),
    Index("inventories_resource_class_id_idx", "resource_class_id"),
)

allocations = Table(
    "allocations", metadata,
    *_timestamps(),
    Column("id", Integer, primary_key=True, nullable=False),
    Column("resource_provider_id", Integer, nullable=False),
    Column("consumer_id", String(36), nullable=False),
    Column("resource_class_id", Integer, nullable=False),
    Column("used", Integer, nullable=False),
    Index("allocations_resource_provider_class_used_idx",
          "resource_provider_id", "resource_class_id", "used"),
    Index("allocations_resource_class_id_idx", "resource_class_id"),
    Index("allocations_consumer_id_idx", "consumer_id"),
)

resource_provider_aggregates = Table(
    "resource_provider_aggregates", metadata,
    *_timestamps(),
    Column("resource_provider_id", Integer, primary_key=True, nullable=False),
    Column("aggregate_id", Integer, primary_key=True, nullable=False),
    Index("resource_provider_aggregates_aggregate_id_idx", "aggregate_id"),
)

placement_aggregates = Table(
    "placement_aggregates", metadata,
    *_timestamps(),
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("uuid", String(36)),
    UniqueConstraint("uuid", name="uniq_placement_aggregates0uuid"),
)



def _unique_names(table: str, column: str, kind: String) -> Table:
    """A table of ids for unique names held in ``column``."""
    return Table(
        table, metadata,
        *_timestamps(),
        Column("id", Integer, primary_key=True, nullable=False, autoincrement=True),
        Column(column, kind, nullable=False),
        UniqueConstraint(column, name=f"uniq_{table}0{column}"),
    )


traits = _unique_names("traits", "name", Unicode(255))

resource_provider_traits = Table(
    "resource_provider_traits", metadata,
    *_timestamps(),
    Column("trait_id", Integer, ForeignKey("traits.id"), primary_key=True, nullable=False),
    Column("resource_provider_id", Integer, ForeignKey("resource_providers.id"),
           primary_key=True, nullable=False),
    Index("resource_provider_traits_resource_provider_trait_idx",
          "resource_provider_id", "trait_id"),
)

projects = _unique_names("projects", "external_id", String(255))  # Keystone's ids
users = _unique_names("users", "external_id", String(255))
consumer_types = _unique_names("consumer_types", "name", Unicode(255))

consumers = Table(
    "consumers", metadata,
    *_timestamps(),
    Column("id", Integer, primary_key=True, nullable=False, autoincrement=True),
    Column("uuid", String(36), nullable=False),
    Column("project_id", Integer, nullable=False),
    Column("user_id", Integer, nullable=False),
    Column("generation", Integer, nullable=False, server_default="0", default=0),
    Column("consumer_type_id", Integer, ForeignKey("consumer_types.id"), nullable=True),
    UniqueConstraint("uuid", name="uniq_consumers0uuid"),
    Index("consumers_project_id_uuid_idx", "project_id", "uuid"),
    Index("consumers_project_id_user_id_uuid_idx", "project_id", "user_id", "uuid"),
    Index("consumers_consumer_type_id_idx", "consumer_type_id"),
)


# Placer's own tables, which the reference's schema does not have: kept under
# their own migration history (db/alembic_placer/, version table
# placer_alembic_version) so that the reference's ``db sync`` never meets
# them, and without foreign keys so that the reference's writes never fail
# on them. See db/scores.py.
placer_metadata = MetaData()

# Per tree and class held by the tree's own providers: free per mille of the
# capacity; the most free on one provider (a tree where a request cannot fit
# is skipped inside the index); and the walk keys of pack and spread, a
# tree's term (candidates/order.py) times 2**31 plus its root id, so that
# each order walks one index upwards, ties by root id, page after page.
tree_scores = Table(
    "placer_tree_scores", placer_metadata,
    Column("root_id", Integer, primary_key=True, autoincrement=False),
    Column("resource_class_id", Integer, primary_key=True, autoincrement=False),
    Column("free", SmallInteger, nullable=False),
    Column("largest", BigInteger, nullable=False),
    Column("pack_key", BigInteger, nullable=False),
    Column("spread_key", BigInteger, nullable=False),
    Index("placer_tree_scores_pack_idx", "resource_class_id", "pack_key", "largest"),
    Index("placer_tree_scores_spread_idx", "resource_class_id", "spread_key", "largest"),
)

# Per tree, what its providers looked like when its scores were computed
# (count, sums of generations and ids, sum of allocations), and the ids of
# its classes with score rows (a refresh deletes only when a class went): a write that
# does not maintain the scores (the reference's) moves a generation, the
# tree's membership or, deleting a consumer's allocations, what is used;
# placement-status sees it.
tree_versions = Table(
    "placer_tree_versions", placer_metadata,
    Column("root_id", Integer, primary_key=True, autoincrement=False),
    Column("providers", Integer, nullable=False),
    Column("generations", BigInteger, nullable=False),
    Column("ids", BigInteger, nullable=False),
    Column("used", BigInteger, nullable=False),
    Column("classes", Text, nullable=False),
)
