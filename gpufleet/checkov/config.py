"""checkov's own config file: checks to skip, each with its reason.

    checkov-config.json (beside Pulumi.yaml, or `gpufleet check --checkov-config FILE`; YAML by extension):
    {"skip": {"CKV_AWS_144": "checkpoints are replicated by GF-RES-001 where the spec asks"}}

It is not in policy-config.json: the Pulumi CLI (`applyConfig` in pkg/resource/analyzer/config.go) sends
every top-level key of `--policy-pack-config` to the pack as a policy, so that file holds policies only.
The file is read with the policy config's reader and limits; a bad one is exit 2 naming file and key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.policy_config import PolicyConfigError, read_policy_config_file

SKIP = "skip"
DEFAULT_FILE_NAMES = ("checkov-config.json", "checkov-config.yaml", "checkov-config.yml")
CHECK_ID = re.compile(r"^CKV2?_[A-Z0-9]+_[0-9]+$")
# The check ids a bad id's message shows: each cloud's EXAMPLE_CHECK_IDS (gpufleet/checkov/<cloud>.py),
# then one of ours.
_EXAMPLE_IDS = part_values(cloud_parts("gpufleet.checkov"), "EXAMPLE_CHECK_IDS")
_EXAMPLES = ", ".join([*(i for ids in _EXAMPLE_IDS.values() for i in ids), "CKV_GPUF_1"])


def parse_checkov_config(raw: Mapping[str, Any], source: str) -> dict[str, str]:
    """Check id -> reason; every problem raised together as one PolicyConfigError."""
    problems = [f"{source}: {key}: unknown key; expected `{SKIP}`" for key in raw if key != SKIP]
    skip = raw.get(SKIP, {})
    if not isinstance(skip, Mapping):
        raise PolicyConfigError([*problems, f"{source}: {SKIP}: expected an object of check id -> reason"])
    result: dict[str, str] = {}
    for check_id, reason in skip.items():
        if not isinstance(check_id, str) or not CHECK_ID.match(check_id):
            problems.append(
                f"{source}: {SKIP}.{check_id}: not a checkov check id; expected CKV_<PROVIDER>_<n> or "
                f"CKV2_<PROVIDER>_<n> ({_EXAMPLES})"
            )
        elif not isinstance(reason, str) or not reason.strip():
            problems.append(
                f"{source}: {SKIP}.{check_id}: give the reason for skipping it, a non-empty string"
            )
        else:
            result[check_id] = reason.strip()
    if problems:
        raise PolicyConfigError(problems)
    return result


def find_checkov_config(project_root: Path) -> Path | None:
    for name in DEFAULT_FILE_NAMES:
        candidate = project_root / name
        if candidate.is_file():
            return candidate
    return None


def load_checkov_skips(path: Path | None, project_root: Path) -> dict[str, str]:
    """The skips of the checkov config at `path`, or the project's default file; {} when there is none."""
    if path is None:
        path = find_checkov_config(project_root)
    if path is None:
        return {}
    raw = read_policy_config_file(
        path, kind="checkov config", shape='an object {"skip": {"<check id>": "<reason>"}}'
    )
    return parse_checkov_config(raw, str(path))
