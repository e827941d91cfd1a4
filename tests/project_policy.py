"""The repository's own policy config (policy-config.json), as `gpufleet check` reads it for this project.

Tests that judge the shipped stacks use it, so they see what a platform team sees in a pull request:
for example GF-OPS-002's `existing_principals`, which names the Auto Scaling service-linked role that
the account-baseline stack (stacks/Pulumi.account.yaml) creates for the fleet stacks.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from gpufleet.policies.registry import default_registry
from gpufleet.policy_config import load_policy_config

ROOT = Path(__file__).resolve().parents[1]
_T = TypeVar("_T")


@functools.cache
def _loaded() -> dict[str, Any]:
    return load_policy_config(None, list(default_registry()), project_dir=ROOT)


def project_policy_config() -> dict[str, Any]:
    """A fresh copy of the project's policy config, keyed by policy name."""
    return {name: dict(value) if isinstance(value, dict) else value for name, value in _loaded().items()}


# GF-STOR-008 cannot judge a Tencent Cloud system disk: the SDK has no encryption input for it on CVM
# instances, launch templates, AS launch configurations or TKE node pools, and Tencent has no account
# default. Every such resource carries this advisory, which no program can clear.
TENCENT_SYSTEM_DISK = "could not be judged: the encryption of its system disk"


def unjudgeable_system_disk(finding: Any) -> bool:
    """GF-STOR-008's advisory on a Tencent system disk (a finding object, or its JSON form)."""
    rule_id, message = (
        (finding.get("rule_id"), finding.get("message"))
        if isinstance(finding, dict)
        else (finding.rule_id, finding.message)
    )
    return rule_id == "GF-STOR-008" and TENCENT_SYSTEM_DISK in (message or "")


def opaque_kueue_release(finding: Any) -> bool:
    """GF-ENGINE-001's advisory on the Kueue controller's Helm release (onprem.scheduler): the chart's
    objects are installed by the provider and are not judged offline, by design (docs/hybrid.md)."""
    rule_id, message = (
        (finding.get("rule_id"), finding.get("message"))
        if isinstance(finding, dict)
        else (finding.rule_id, finding.message)
    )
    return (
        rule_id == "GF-ENGINE-001"
        and "kubernetes:helm.sh/v3:Release" in (message or "")
        and ("-scheduling-kueue'" in (message or ""))
    )


def judged(findings: Iterable[_T]) -> list[_T]:
    """The findings but the Tencent system-disk advisories (`unjudgeable_system_disk`) and the Kueue
    release's opacity (`opaque_kueue_release`)."""
    return [
        finding
        for finding in findings
        if not unjudgeable_system_disk(finding) and not opaque_kueue_release(finding)
    ]
