"""Framework glue: routing with microversion windows, errors, auth, negotiation."""
