"""The audit's kinds of finding (GET /audit, placement-manage audit) and its
defaults: plain names, shared by the query schema (schemas/audit.py) and the
reads (db/audit.py)."""

# In the answer's order.
KINDS = ("over_capacity", "unit_violations", "without_inventory", "split_consumers",
         "empty_consumers", "idle_providers", "unused_projects", "unused_users")
# The kinds placement-manage audit --fix deletes (db/audit_fixes.py): nothing
# else is safe to remove without asking Nova.
FIXABLE = ("empty_consumers", "unused_projects", "unused_users")
# Items per kind when the request does not say (the count is always whole).
DEFAULT_LIMIT = 1000
# idle_providers: unchanged for at least this many days.
DEFAULT_IDLE_DAYS = 30
