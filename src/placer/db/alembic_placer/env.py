"""Alembic environment of Placer's own tables (db/tables.py placer_metadata),
versioned in placer_alembic_version: the reference's history in
alembic_version never names them."""

from alembic import context

from placer.db.scores import VERSION_TABLE
from placer.db.tables import placer_metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=placer_metadata,
                  version_table=VERSION_TABLE, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
