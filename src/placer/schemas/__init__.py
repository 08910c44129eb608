"""JSON Schemas for request bodies, per resource and microversion."""
