"""Plain data and pure rules, no SQL and no HTTP."""
