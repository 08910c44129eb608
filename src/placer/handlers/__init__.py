"""One module per API resource: parse and validate, authorize, call the core, render."""
