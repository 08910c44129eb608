"""Refuse to upgrade while allocations lack a consumer record.

Revision ID: b5c396305c25
Revises: 611cd6dffd7b
"""
import sqlalchemy as sa
from alembic import op

revision = "b5c396305c25"
down_revision = "611cd6dffd7b"
branch_labels = None
depends_on = None


def upgrade() -> None:
    allocs = sa.table("allocations", sa.column("consumer_id"))
    consumers = sa.table("consumers", sa.column("uuid"))
    missing = (
        sa.select(sa.func.count())
        .select_from(allocs.outerjoin(consumers, allocs.c.consumer_id == consumers.c.uuid))
        .where(consumers.c.uuid.is_(None))
    )
    if op.get_bind().execute(missing).scalar():
        raise Exception("There is at least one allocation record which is missing a "
                        "consumer record. Run the \"placement-manage db "
                        "online_data_migrations\" command.")
