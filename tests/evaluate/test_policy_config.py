"""Loading, validating and overriding the policy pack config (Pulumi's --policy-pack-config shape)."""

# Expected messages are kept whole so a failing assertion shows the exact text.
# ruff: noqa: E501

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pulumi_policy import EnforcementLevel

from gpufleet.policy_config import (
    PolicyConfigError,
    ResolvedPolicyConfig,
    find_policy_config,
    load_policy_config,
    resolve_policy_config,
    to_initial_config,
)
from gpufleet.policy_overrides import apply_overrides
from tests.evaluate.sample_policies import sample_policies

POLICIES = sample_policies()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_json_file_with_names_and_rule_ids(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "policy-config.json",
        json.dumps(
            {"all": "mandatory", "GF-AUD-901": {"min_days": 365}, "sample-allowed-region": "advisory"}
        ),
    )
    assert find_policy_config(tmp_path) == path
    config = load_policy_config(None, POLICIES, project_dir=tmp_path)
    assert config == {
        "all": "mandatory",
        "sample-log-retention": {"min_days": 365},
        "sample-allowed-region": "advisory",
    }


def test_yaml_file(tmp_path: Path) -> None:
    path = write(
        tmp_path, "checks.yaml", "sample-log-retention:\n  enforcementLevel: advisory\n  min_days: 90\n"
    )
    assert load_policy_config(path, POLICIES) == {
        "sample-log-retention": {"enforcementLevel": "advisory", "min_days": 90}
    }


def test_no_file_means_no_config(tmp_path: Path) -> None:
    assert find_policy_config(tmp_path) is None
    assert load_policy_config(None, POLICIES, project_dir=tmp_path) == {}


def test_every_problem_is_one_line_naming_file_key_and_allowed(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "policy-config.json",
        json.dumps(
            {
                "sample-log-retenton": "advisory",
                "sample-bucket-kms": "blocking",
                "sample-log-retention": {"min_days": "long", "max_days": 3},
            }
        ),
    )
    with pytest.raises(PolicyConfigError) as error:
        load_policy_config(path, POLICIES)
    assert error.value.problems == [
        f"{path}: sample-log-retenton: no such policy or rule id; did you mean sample-log-retention, sample-allowed-region?",
        f'{path}: sample-bucket-kms: "blocking" is not an enforcement level; allowed: advisory, mandatory, remediate, disabled',
        f'{path}: sample-log-retention.min_days: "long" is not allowed; expected integer (>= 1)',
        f"{path}: sample-log-retention.max_days: unknown config key; allowed: enforcementLevel, min_days, waivable, waivers",
    ]


def test_invalid_json_and_wrong_top_level(tmp_path: Path) -> None:
    bad = write(tmp_path, "a.json", "{\n  'all': 1}")
    with pytest.raises(PolicyConfigError, match=rf"^{bad}:2: invalid JSON"):
        load_policy_config(bad, POLICIES)
    listed = write(tmp_path, "b.json", "[1]")
    with pytest.raises(PolicyConfigError, match="the top level is a list; expected an object"):
        load_policy_config(listed, POLICIES)


def test_overrides_by_rule_id_and_all() -> None:
    base = {
        "sample-log-retention": {"enforcementLevel": "mandatory", "min_days": 90},
        "sample-bucket-kms": "advisory",
    }
    result = apply_overrides(
        base, POLICIES, enforce=["GF-COST-908=mandatory"], set_values=["GF-AUD-901.min_days=365"]
    )
    assert result == {
        "sample-log-retention": {"enforcementLevel": "mandatory", "min_days": 365},
        "sample-bucket-kms": "advisory",
        "sample-allowed-region": "mandatory",
    }
    everything = apply_overrides(base, POLICIES, enforce=["all=advisory"])
    assert everything == {"sample-log-retention": {"min_days": 90}, "all": "advisory"}
    resolved = resolve_policy_config(POLICIES, everything)
    assert {r.enforcement for r in resolved.values()} == {EnforcementLevel.ADVISORY}
    listed = apply_overrides({}, POLICIES, set_values=['sample-allowed-region.allowed_regions=["eu-west-1"]'])
    assert listed == {"sample-allowed-region": {"allowed_regions": ["eu-west-1"]}}


def test_override_errors() -> None:
    with pytest.raises(PolicyConfigError) as error:
        apply_overrides(
            {},
            POLICIES,
            enforce=["GF-AUD-901", "GF-XX-1=advisory", "all=loud"],
            set_values=["GF-AUD-901.min_days=forever", "GF-STOR-901.level=3"],
        )
    assert error.value.problems == [
        "--enforce GF-AUD-901: expected POLICY=LEVEL (a rule id, a policy name or `all`)",
        "--enforce GF-XX-1=advisory: no such policy or rule id GF-XX-1; run `gpufleet rules` for the list",
        '--enforce all=loud: "loud" is not an enforcement level; allowed: advisory, mandatory, remediate, disabled',
        '--set GF-AUD-901.min_days=forever: sample-log-retention.min_days: "forever" is not allowed; expected integer (>= 1)',
        "--set GF-STOR-901.level=3: sample-bucket-kms has no config key level; allowed: none (this policy takes no config)",
    ]


def test_resolution_follows_the_cli_layering() -> None:
    initial = {"all": "advisory", "sample-log-retention": {"min_days": 30}}
    user = {"sample-log-retention": "mandatory"}
    resolved = resolve_policy_config(POLICIES, initial, user)
    assert resolved["sample-log-retention"] == ResolvedPolicyConfig(
        EnforcementLevel.MANDATORY, {"min_days": 30}
    )
    assert resolved["sample-bucket-kms"] == ResolvedPolicyConfig(EnforcementLevel.ADVISORY, {})
    assert resolve_policy_config(POLICIES)["sample-allowed-region"] == ResolvedPolicyConfig(
        EnforcementLevel.ADVISORY, {"allowed_regions": ["us-east-1"]}
    )
    # Keys for policies outside the evaluated selection are ignored, as the engine ignores them.
    assert resolve_policy_config(POLICIES[:1], {"sample-log-retention": "disabled"}).keys() == {
        "sample-bucket-kms"
    }


def test_initial_config_shape_for_the_pack() -> None:
    assert to_initial_config(
        {"all": "mandatory", "sample-log-retention": {"enforcementLevel": "advisory", "min_days": 3}}
    ) == {
        "all": EnforcementLevel.MANDATORY,
        "sample-log-retention": {"enforcementLevel": EnforcementLevel.ADVISORY, "min_days": 3},
    }
