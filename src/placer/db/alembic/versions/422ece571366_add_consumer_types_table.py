"""Add consumer types (microversion 1.38).

Revision ID: 422ece571366
Revises: b5c396305c25
"""
import sqlalchemy as sa
from alembic import op

revision = "422ece571366"
down_revision = "b5c396305c25"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "consumer_types",
        sa.Column("created_at", sa.DateTime()),
        sa.Column("updated_at", sa.DateTime()),
        sa.Column("id", sa.Integer(), primary_key=True, nullable=False, autoincrement=True),
        sa.Column("name", sa.Unicode(255), nullable=False),
        sa.UniqueConstraint("name", name="uniq_consumer_types0name"),
    )
    with op.batch_alter_table("consumers") as batch:
        batch.add_column(sa.Column("consumer_type_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("consumers_consumer_type_id_fkey", "consumer_types",
                                 ["consumer_type_id"], ["id"])
    op.create_index("consumers_consumer_type_id_idx", "consumers", ["consumer_type_id"])
