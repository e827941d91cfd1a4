"""Serve the gpufleet policy pack to the Pulumi engine.

The Pulumi CLI runs a Python pack as `python -u -m pulumi.policy <engine-address> <pack dir>` with the pack
directory as the working directory: `runpy` executes this file with `policies/` (not the project root) on
sys.path. The project root is added here so that `gpufleet.policies` and `gpufleet.components.catalog`
resolve from a checkout (gpufleet/policies and gpufleet/components link to the top-level folders).

Only running this file builds the `PolicyPack` (which starts a gRPC server, prints its port and blocks);
importing the `policies` package never does. The project's `policy-config.json` (beside Pulumi.yaml), when
present, becomes the pack's initial config, so `pulumi preview --policy-pack policies` and
`gpufleet check` judge with the same enforcement levels and settings.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

PACK_NAME = "gpufleet"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
POLICY_CONFIG_FILE = PROJECT_ROOT / "policy-config.json"
# The offline engine's own check (gpufleet.policy_config.ENGINE_RULE_ID / ENGINE_POLICY; the pack may not
# import gpufleet). Under `pulumi preview` the provider plugin builds a component's children and the pack
# judges them, so there is no such policy to configure: its entry in policy-config.json is left out.
ENGINE_KEYS = frozenset({"GF-ENGINE-001", "component-not-inspected"})
# The platform's waiver settings (policies.waivers.SETTINGS_KEY): not a policy, read by `waiver_settings`.
SETTINGS_KEY = "waivers"


def _ensure_project_importable() -> None:
    root = str(PROJECT_ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)


def initial_config(path: Path, policies: list[Any]) -> dict[str, Any] | None:
    """The project's policy config in `PolicyPack(initial_config=...)` form (rule ids become names)."""
    from pulumi_policy import EnforcementLevel

    if not path.is_file():
        return None
    raw = json.loads(path.read_text() or "{}")
    names = {policy.rule.id: policy.name for policy in policies if hasattr(policy, "rule")}
    config: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ENGINE_KEYS or key == SETTINGS_KEY:
            continue
        name = names.get(key, key)
        if isinstance(value, dict):
            entry = dict(value)
            if "enforcementLevel" in entry:
                entry["enforcementLevel"] = EnforcementLevel(entry["enforcementLevel"])
            config[name] = entry
        else:
            config[name] = EnforcementLevel(value)
    return config


def waiver_settings(path: Path) -> Any:
    """The project's waiver settings (its policy config's `waivers` object); the defaults (tags off) when
    the file has none or they are invalid: a pack that cannot tell allows the least."""
    from gpufleet.policies import waivers

    if not path.is_file():
        return waivers.Settings()
    raw = json.loads(path.read_text() or "{}")
    found, problems = waivers.parse_settings(raw.get(SETTINGS_KEY), SETTINGS_KEY, path.name)
    if problems:
        print(
            f"gpufleet policy pack: {path.name}: {'; '.join(problems)}; waivers use the defaults",
            file=sys.stderr,
        )
    return found


def serve() -> None:
    from pulumi_policy import EnforcementLevel, Policy, PolicyPack

    from gpufleet.policies.registry import default_registry
    from gpufleet.policies.waivers import set_settings
    from gpufleet.policies.waiving import install

    install()
    set_settings(waiver_settings(POLICY_CONFIG_FILE))
    policies: list[Policy] = list(default_registry())
    if not policies:
        raise SystemExit("gpufleet policy pack: policies.registry.default_registry() holds no policies")
    PolicyPack(
        name=PACK_NAME,
        policies=policies,
        enforcement_level=EnforcementLevel.ADVISORY,
        initial_config=initial_config(POLICY_CONFIG_FILE, policies),
        description="gpufleet guardrails for hybrid GPU fleets",
    )


if __name__ == "__main__":
    _ensure_project_importable()
    serve()
