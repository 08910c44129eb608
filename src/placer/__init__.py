"""Placer: a fast, drop-in replacement for the OpenStack Placement service."""
