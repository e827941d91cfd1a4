"""Helpers for the clouds' IAM tables (`policies/iam/aws.py`, ...): action lists by name, and the probe
resources more than one cloud's table uses (see `gpufleet.policies.iam.resource_scope`).

A probe is a resource part that nobody would name, written `service|resource` when its service is not
the action's own.
"""

from __future__ import annotations

OBJECT = ("zq9bucket/zq9key", "zq9bucket/zq9dir/zq9key")
BUCKET = ("zq9bucket",)
KEY = ("key/0zq9probe-0000",)


def names(actions: str, probes: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each of the space-separated `actions` (lower-cased) with `probes`."""
    return {name.lower(): probes for name in actions.split()}
