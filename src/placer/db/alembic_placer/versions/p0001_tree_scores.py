"""Trees' scores for the spread and pack candidate orders, filled from the
current inventories and allocations.

Revision ID: p0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

from placer.db import scores

revision = "p0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "placer_tree_scores",
        sa.Column("root_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("resource_class_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("free", sa.SmallInteger, nullable=False),
        sa.Column("largest", sa.BigInteger, nullable=False),
        sa.Column("pack_key", sa.BigInteger, nullable=False),
        sa.Column("spread_key", sa.BigInteger, nullable=False))
    op.create_index("placer_tree_scores_pack_idx", "placer_tree_scores",
                    ["resource_class_id", "pack_key", "largest"])
    op.create_index("placer_tree_scores_spread_idx", "placer_tree_scores",
                    ["resource_class_id", "spread_key", "largest"])
    op.create_table(
        "placer_tree_versions",
        sa.Column("root_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("providers", sa.Integer, nullable=False),
        sa.Column("generations", sa.BigInteger, nullable=False),
        sa.Column("ids", sa.BigInteger, nullable=False),
        sa.Column("used", sa.BigInteger, nullable=False),
        sa.Column("classes", sa.Text, nullable=False))
    scores.rebuild(op.get_bind())
