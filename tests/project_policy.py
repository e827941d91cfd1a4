"""The repository's own policy config (policy-config.json), as `gpufleet check` reads it for this project.

Tests that judge the shipped stacks use it, so they see what a platform team sees in a pull request:
for example GF-OPS-002's `existing_principals`, which names the Auto Scaling service-linked role that
the account-baseline stack (stacks/Pulumi.account.yaml) creates for the fleet stacks.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from gpufleet.policy_config import load_policy_config
from policies.registry import default_registry

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def _loaded() -> dict[str, Any]:
    return load_policy_config(None, list(default_registry()), project_dir=ROOT)


def project_policy_config() -> dict[str, Any]:
    """A fresh copy of the project's policy config, keyed by policy name."""
    return {name: dict(value) if isinstance(value, dict) else value for name, value in _loaded().items()}
