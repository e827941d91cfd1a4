"""The project program (infra/ -> HybridGpuFleet) on the Alibaba-only and Tencent-only stacks of stacks/:
the fleet's outputs name what the sites built, and a BYOK first deploy lists every site's pending key."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.engine import run_program
from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.project_policy import project_policy_config

ROOT = Path(__file__).resolve().parents[2]


def stack_config(stack: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text("utf-8"))
    return loaded["config"]


@functools.cache
def graph(stack: str, material: str = "") -> ResourceGraph:
    if not material:
        return run_program(ROOT, stack)
    fleet = copy.deepcopy(stack_config(stack)["gpufleet:fleet"])
    fleet["storage"]["checkpoints"].update({"encryption": "byok", "byok_material": material})
    return run_program(ROOT, stack, config_overrides={"gpufleet:fleet": fleet})


def urn_of(g: ResourceGraph, typ: str) -> str:
    [resource] = g.of_type(typ)
    return resource.urn


def test_tc_dev_exports_the_tencent_budget_bucket_and_key() -> None:
    g = graph("tc-dev")
    [budget] = g.of_type("tencentcloud:Billing/budget:Budget")
    assert g.outputs["budget_name"] == budget.inputs["budgetName"] == "gpufleet-tc-dev"
    [bucket] = g.of_type("tencentcloud:Cos/bucket:Bucket")
    assert g.outputs["checkpoint_bucket"] == bucket.inputs["bucket"]
    [key] = g.of_type("tencentcloud:Kms/key:Key")
    assert g.outputs["fleet_key_arn"] == g.outputs["site_key_ids"]["tencentcloud:ap-guangzhou"]
    assert g.outputs["fleet_key_arn"] == key.outputs["id"]
    assert g.outputs["regional_key_arns"] == {}
    assert "byok_keys_pending_import" not in g.outputs


def test_cn_dev_has_no_budget_output_alibaba_having_no_budget_resource() -> None:
    g = graph("cn-dev")
    assert "budget_name" not in g.outputs
    assert not [r for r in g.resources if "budget" in r.type.lower()]
    [bucket] = g.of_type("alicloud:oss/bucket:Bucket")
    assert g.outputs["checkpoint_bucket"] == bucket.outputs["bucket"]
    assert g.outputs["site_key_ids"] == {"alicloud:cn-hangzhou": g.outputs["fleet_key_arn"]}


@pytest.mark.parametrize(
    ("stack", "site", "key_type"),
    [
        ("cn-dev", "alicloud:cn-hangzhou", "alicloud:kms/key:Key"),
        ("tc-dev", "tencentcloud:ap-guangzhou", "tencentcloud:Kms/externalKey:ExternalKey"),
    ],
)
def test_a_pending_byok_first_deploy_lists_the_sites_key_to_import(
    stack: str, site: str, key_type: str
) -> None:
    g = graph(stack, "pending")
    [key] = g.of_type(key_type)
    assert g.outputs["byok_keys_pending_import"] == {site: key.outputs["id"]}
    # Only the key (with its alias, and the site's provider) is built while its material is pending.
    assert {r.type.partition("/")[0] for r in g.custom_resources()} == {key_type.partition("/")[0]}


def test_a_staging_tencent_pool_at_70_percent_spot_is_one_pool_to_the_spot_rule() -> None:
    fleet = copy.deepcopy(stack_config("tc-dev")["gpufleet:fleet"])
    fleet["environment"] = "staging"
    fleet["pools"]["t4-dev"].update({"size": {"min": 0, "max": 10}, "spot_percent": 70})
    g = run_program(ROOT, "tc-dev", config_overrides={"gpufleet:fleet": fleet})
    groups = {
        r.name.rsplit("-", 1)[-1]: r.inputs["maxSize"]
        for r in g.of_type("tencentcloud:As/scalingGroup:ScalingGroup")
    }
    assert groups == {"spot": 7, "ondemand": 3}
    result = evaluate_stack(g, list(default_registry()), project_policy_config())
    assert [(v.rule_id, v.message) for v in result.violations if v.rule_id == "GF-COST-004"] == []
    # 70% is short of a stricter staging minimum of 75%: one finding, on the on-demand group.
    config = project_policy_config()
    config["non-prod-gpu-pools-on-spot"] = {"min_spot_percent": {"staging": 75}}
    [finding] = [
        v
        for v in evaluate_stack(g, list(default_registry()), config).violations
        if v.rule_id == "GF-COST-004"
    ]
    assert finding.urn.endswith("-pool-t4-dev-ondemand")
    assert "runs 70% of its capacity on spot; staging pools need at least 75%" in finding.message
