"""Persistence: tables, engine and transactions, migrations, one query module per noun."""
