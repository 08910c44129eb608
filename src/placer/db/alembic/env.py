"""Alembic environment: runs on the connection handed in by placer.db.schema_migrations."""

from alembic import context

from placer.db.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata,
                  render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
