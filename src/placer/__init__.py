"""Placer: a fast, drop-in replacement for the OpenStack Placement service."""

import importlib.metadata

DISTRIBUTION = "openstack-placement"  # the reference's name: deployment tools install it


def version() -> str:
    """The installed version, as pip reports it (its epoch included: see
    docs/operator/upgrade.md); "unknown" when Placer runs uninstalled."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
