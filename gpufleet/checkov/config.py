"""The `checkov` section of the policy config: checks to skip, each with its reason.

    {"checkov": {"skip": {"CKV_AWS_144": "checkpoints are replicated by GF-RES-001 where the spec asks"}}}

It sits in the same file as the pack's config (policy-config.json, or YAML by extension) and is read the
same way; the policy pack itself ignores it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpufleet.policy_config import PolicyConfigError, find_policy_config, read_policy_config_file

SECTION = "checkov"
CHECK_ID = re.compile(r"^CKV2?_[A-Z0-9]+_[0-9]+$")


def parse_checkov_section(raw: Mapping[str, Any], source: str) -> dict[str, str]:
    """Check id -> reason; every problem raised together as one PolicyConfigError."""
    section = raw.get(SECTION)
    if section is None:
        return {}
    where = f"{source}: {SECTION}"
    if not isinstance(section, Mapping):
        raise PolicyConfigError([f"{where}: expected an object with `skip` (check id -> reason)"])
    problems = [f"{where}.{key}: unknown key; expected `skip`" for key in section if key != "skip"]
    skip = section.get("skip", {})
    if not isinstance(skip, Mapping):
        raise PolicyConfigError([*problems, f"{where}.skip: expected an object of check id -> reason"])
    result: dict[str, str] = {}
    for check_id, reason in skip.items():
        if not isinstance(check_id, str) or not CHECK_ID.match(check_id):
            problems.append(
                f"{where}.skip.{check_id}: not a checkov check id; expected CKV_<PROVIDER>_<n> or "
                "CKV2_<PROVIDER>_<n> (CKV_AWS_144, CKV2_AWS_62, CKV_GPUF_1)"
            )
        elif not isinstance(reason, str) or not reason.strip():
            problems.append(f"{where}.skip.{check_id}: give the reason for skipping it, a non-empty string")
        else:
            result[check_id] = reason.strip()
    if problems:
        raise PolicyConfigError(problems)
    return result


def load_checkov_skips(path: Path | None, project_root: Path) -> dict[str, str]:
    """The skips of the policy config at `path`, or the project's default file; {} when there is none."""
    if path is None:
        path = find_policy_config(project_root)
    if path is None:
        return {}
    raw = read_policy_config_file(path)
    return parse_checkov_section(raw, str(path)) if isinstance(raw, Mapping) else {}
