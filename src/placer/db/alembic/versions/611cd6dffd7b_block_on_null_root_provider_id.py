"""Refuse to upgrade while providers lack a root (an online migration is due).

Revision ID: 611cd6dffd7b
Revises: b4ed3a175331
"""
import sqlalchemy as sa
from alembic import op

revision = "611cd6dffd7b"
down_revision = "b4ed3a175331"
branch_labels = None
depends_on = None


def upgrade() -> None:
    rps = sa.table("resource_providers", sa.column("root_provider_id"))
    count = op.get_bind().execute(
        sa.select(sa.func.count()).select_from(rps).where(rps.c.root_provider_id.is_(None))
    ).scalar()
    if count:
        raise Exception("There is at least one resource provider table record which is "
                        "missing its root provider id. Run the \"placement-manage db "
                        "online_data_migrations\" command.")
