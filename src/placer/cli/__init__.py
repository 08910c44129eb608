"""Command-line tools: placement-api, placement-manage, placement-status."""
