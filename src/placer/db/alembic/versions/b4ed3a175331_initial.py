"""Initial schema, as the reference's first revision left it.

Revision ids are the reference's, so that a database it created is served in
place and ``placement-manage db version`` answers the same.

Revision ID: b4ed3a175331
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "b4ed3a175331"
down_revision = None
branch_labels = None
depends_on = None


def _table(name: str, *cols: sa.schema.SchemaItem) -> None:
    op.create_table(
        name,
        sa.Column("created_at", sa.DateTime()),
        sa.Column("updated_at", sa.DateTime()),
        *cols,
    )


def _id() -> sa.Column[int]:
    return sa.Column("id", sa.Integer(), primary_key=True, nullable=False, autoincrement=True)


def upgrade() -> None:
    _table("allocations", _id(),
           sa.Column("resource_provider_id", sa.Integer(), nullable=False),
           sa.Column("consumer_id", sa.String(36), nullable=False),
           sa.Column("resource_class_id", sa.Integer(), nullable=False),
           sa.Column("used", sa.Integer(), nullable=False))
    op.create_index("allocations_resource_provider_class_used_idx", "allocations",
                    ["resource_provider_id", "resource_class_id", "used"])
    op.create_index("allocations_resource_class_id_idx", "allocations", ["resource_class_id"])
    op.create_index("allocations_consumer_id_idx", "allocations", ["consumer_id"])

    _table("consumers", _id(),
           sa.Column("uuid", sa.String(36), nullable=False),
           sa.Column("project_id", sa.Integer(), nullable=False),
           sa.Column("user_id", sa.Integer(), nullable=False),
           sa.Column("generation", sa.Integer(), server_default=sa.text("0"), nullable=False),
           sa.UniqueConstraint("uuid", name="uniq_consumers0uuid"))
    op.create_index("consumers_project_id_user_id_uuid_idx", "consumers",
                    ["project_id", "user_id", "uuid"])
    op.create_index("consumers_project_id_uuid_idx", "consumers", ["project_id", "uuid"])

    _table("inventories", _id(),
           sa.Column("resource_provider_id", sa.Integer(), nullable=False),
           sa.Column("resource_class_id", sa.Integer(), nullable=False),
           sa.Column("total", sa.Integer(), nullable=False),
           sa.Column("reserved", sa.Integer(), nullable=False),
           sa.Column("min_unit", sa.Integer(), nullable=False),
           sa.Column("max_unit", sa.Integer(), nullable=False),
           sa.Column("step_size", sa.Integer(), nullable=False),
           sa.Column("allocation_ratio", sa.Float(), nullable=False),
           sa.UniqueConstraint("resource_provider_id", "resource_class_id",
                               name="uniq_inventories0resource_provider_resource_class"))
    op.create_index("inventories_resource_class_id_idx", "inventories", ["resource_class_id"])
    op.create_index("inventories_resource_provider_id_idx", "inventories",
                    ["resource_provider_id"])
    op.create_index("inventories_resource_provider_resource_class_idx", "inventories",
                    ["resource_provider_id", "resource_class_id"])

    _table("placement_aggregates", _id(),
           sa.Column("uuid", sa.String(36), index=False),
           sa.UniqueConstraint("uuid", name="uniq_placement_aggregates0uuid"))
    op.create_index("ix_placement_aggregates_uuid", "placement_aggregates", ["uuid"])

    _table("projects", _id(),
           sa.Column("external_id", sa.String(255), nullable=False),
           sa.UniqueConstraint("external_id", name="uniq_projects0external_id"))

    _table("resource_classes", _id(),
           sa.Column("name", sa.String(255), nullable=False),
           sa.UniqueConstraint("name", name="uniq_resource_classes0name"))

    _table("resource_provider_aggregates",
           sa.Column("resource_provider_id", sa.Integer(), primary_key=True, nullable=False),
           sa.Column("aggregate_id", sa.Integer(), primary_key=True, nullable=False))
    op.create_index("resource_provider_aggregates_aggregate_id_idx",
                    "resource_provider_aggregates", ["aggregate_id"])

    _table("resource_providers", _id(),
           sa.Column("uuid", sa.String(36), nullable=False),
           sa.Column("name", sa.Unicode(200), nullable=True),
           sa.Column("generation", sa.Integer(), nullable=True),
           sa.Column("root_provider_id", sa.Integer(), nullable=True),
           sa.Column("parent_provider_id", sa.Integer(), nullable=True),
           sa.ForeignKeyConstraint(["parent_provider_id"], ["resource_providers.id"]),
           sa.ForeignKeyConstraint(["root_provider_id"], ["resource_providers.id"]),
           sa.UniqueConstraint("name", name="uniq_resource_providers0name"),
           sa.UniqueConstraint("uuid", name="uniq_resource_providers0uuid"))
    op.create_index("resource_providers_name_idx", "resource_providers", ["name"])
    op.create_index("resource_providers_parent_provider_id_idx", "resource_providers",
                    ["parent_provider_id"])
    op.create_index("resource_providers_root_provider_id_idx", "resource_providers",
                    ["root_provider_id"])
    op.create_index("resource_providers_uuid_idx", "resource_providers", ["uuid"])

    _table("traits", _id(),
           sa.Column("name", sa.Unicode(255), nullable=False),
           sa.UniqueConstraint("name", name="uniq_traits0name"))

    _table("users", _id(),
           sa.Column("external_id", sa.String(255), nullable=False),
           sa.UniqueConstraint("external_id", name="uniq_users0external_id"))

    _table("resource_provider_traits",
           sa.Column("trait_id", sa.Integer(), nullable=False),
           sa.Column("resource_provider_id", sa.Integer(), nullable=False),
           sa.ForeignKeyConstraint(["resource_provider_id"], ["resource_providers.id"]),
           sa.ForeignKeyConstraint(["trait_id"], ["traits.id"]),
           sa.PrimaryKeyConstraint("trait_id", "resource_provider_id"))
    op.create_index("resource_provider_traits_resource_provider_trait_idx",
                    "resource_provider_traits", ["resource_provider_id", "trait_id"])
