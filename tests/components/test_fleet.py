from __future__ import annotations

import copy
import json
import runpy
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from gpufleet.components.fleet import FleetError, HybridGpuFleet
from gpufleet.components.sites import SITES
from gpufleet.components.spec import parse_fleet

from .conftest import Runner

ROOT = Path(__file__).resolve().parents[2]


def _stack_fleet(stack: str) -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return config["gpufleet:fleet"]  # type: ignore[no-any-return]


def _build(raw: dict[str, Any]):  # type: ignore[no-untyped-def]
    spec = parse_fleet(raw, source="test")
    return lambda: HybridGpuFleet("gpufleet-dev", spec)


def test_dev_fleet_composes_every_concern(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(_stack_fleet("dev")))
    components = sorted((r.type, r.name) for r in mocks.registrations if not r.custom)
    assert components == [
        ("gpufleet:audit:FleetAudit", "gpufleet-dev-audit"),
        ("gpufleet:cost:FleetBudget", "gpufleet-dev-budget"),
        ("gpufleet:fleet:HybridGpuFleet", "gpufleet-dev"),
        ("gpufleet:identity:InstanceIdentity", "gpufleet-dev-pool-experiments"),
        ("gpufleet:keys:FleetKey", "gpufleet-dev-key"),
        ("gpufleet:network:FleetNetwork", "gpufleet-dev-network"),
        ("gpufleet:pools:GpuPool", "gpufleet-dev-pool-experiments"),
        # The AWS site of the home region: every component above but the fleet is its child.
        ("gpufleet:sites:AwsSite", "gpufleet-dev-aws-us-east-1"),
        ("gpufleet:storage:CheckpointBucket", "gpufleet-dev-storage"),
    ]
    assert mocks.one("aws:kms/key:Key", "gpufleet-dev-key-key").inputs["enableKeyRotation"] is True
    subnets = sorted(
        (r.inputs["availabilityZone"], r.inputs["cidrBlock"]) for r in mocks.of_type("aws:ec2/subnet:Subnet")
    )
    assert subnets == [("us-east-1a", "10.40.0.0/18"), ("us-east-1b", "10.40.64.0/18")]
    group = mocks.one("aws:autoscaling/group:Group", "gpufleet-dev-pool-experiments-asg").inputs
    assert group["mixedInstancesPolicy"]["instancesDistribution"]["onDemandPercentageAboveBaseCapacity"] == 0
    stop = mocks.one("aws:autoscaling/schedule:Schedule", "gpufleet-dev-pool-experiments-stop").inputs
    assert (stop["recurrence"], stop["timeZone"]) == ("0 20 * * *", "America/New_York")
    budget = mocks.one("aws:budgets/budget:Budget", "gpufleet-dev-budget-budget").inputs
    assert (budget["limitAmount"], budget["costFilters"][0]["values"]) == (
        "3000.00",
        ["user:gpufleet:stack$gpufleet/test"],
    )
    rule = mocks.one(
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "gpufleet-dev-storage-lifecycle"
    ).inputs["rules"][0]
    # 7 then 30 days: no class pays off before the expiry, so checkpoints stay in STANDARD.
    assert "transitions" not in rule
    assert mocks.one("aws:s3/bucket:Bucket", "gpufleet-dev-storage-bucket").inputs["tags"] == {
        "project": "vision",
        "team": "ml-platform",
        "cost-center": "cc-042",
        "env": "dev",
        # Unique to the stack: what the budget filters on.
        "gpufleet:stack": "gpufleet/test",
        "purpose": "checkpoints",
        "data-classification": "internal",
    }


def test_prod_fleet_uses_byok_and_an_on_demand_base(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(_stack_fleet("prod")))
    assert mocks.of_type("aws:kms/key:Key") == []
    mocks.one("aws:kms/externalKey:ExternalKey", "gpufleet-dev-key-key")
    asgs = {r.name: r.inputs for r in mocks.of_type("aws:autoscaling/group:Group")}
    inference = asgs["gpufleet-dev-pool-inference-a10g-asg"]
    assert inference["mixedInstancesPolicy"]["instancesDistribution"]["onDemandBaseCapacity"] == 2
    assert (
        inference["mixedInstancesPolicy"]["instancesDistribution"]["onDemandPercentageAboveBaseCapacity"]
        == 70
    )
    train = asgs["gpufleet-dev-pool-train-a100-asg"]
    assert train["mixedInstancesPolicy"]["launchTemplate"]["overrides"] == [{"instanceType": "p4d.24xlarge"}]
    home_subnets = [r for r in mocks.of_type("aws:ec2/subnet:Subnet") if r.inputs["region"] == "us-east-1"]
    assert len(home_subnets) == 3
    assert mocks.of_type("aws:autoscaling/schedule:Schedule") == []


def test_prod_ignores_off_hours(run_pulumi: Runner, caplog: pytest.LogCaptureFixture) -> None:
    raw = copy.deepcopy(_stack_fleet("prod"))
    raw["pools"]["train-a100"]["off_hours"] = {"timezone": "UTC", "scale_to_zero": "20:00-08:00"}
    mocks = run_pulumi(_build(raw))
    # The pool itself is still built: no schedule must mean "ignored", not "pool dropped".
    assert sorted(r.name for r in mocks.of_type("aws:autoscaling/group:Group")) == sorted(
        f"gpufleet-dev-pool-{name}-asg" for name in raw["pools"]
    )
    assert mocks.of_type("aws:autoscaling/schedule:Schedule") == []
    # Ignoring a setting the stack file asks for is said out loud, once, naming the pool.
    warnings = [r.getMessage() for r in caplog.records if "off_hours" in r.getMessage()]
    assert warnings == ["pools.train-a100.off_hours is ignored in prod"]


def test_existing_subnets_skip_the_vpc(run_pulumi: Runner) -> None:
    raw = copy.deepcopy(_stack_fleet("dev"))
    raw["network"] = {"subnet_ids": ["subnet-0a1b2c3d", "subnet-0123456789abcdef0"]}
    mocks = run_pulumi(_build(raw))
    assert mocks.of_type("aws:ec2/vpc:Vpc") == []
    group = mocks.one("aws:autoscaling/group:Group", "gpufleet-dev-pool-experiments-asg").inputs
    assert group["vpcZoneIdentifiers"] == ["subnet-0a1b2c3d", "subnet-0123456789abcdef0"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"cloud": "alicloud", "region": "cn-hangzhou", "instance_types": ["ecs.gn6i-c4g1.xlarge"]},
            "pools.experiments: pools on alicloud are not supported yet",
        ),
        (
            {"region": "eu-west-1"},
            "pools.experiments.region: eu-west-1 differs from the stack's aws:region us-east-1 and needs "
            "its own network: add network.regions.eu-west-1.vpc_cidr",
        ),
    ],
)
def test_unsupported_pools_are_refused_clearly(
    run_pulumi: Runner, change: dict[str, Any], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A build without a cloud's site module (here: Alibaba's, as if not shipped) names the pools.
    absent = "gpufleet.components.sites.absent:Site"
    monkeypatch.setattr("gpufleet.components.sites.SITES", {**SITES, "alicloud": absent})
    raw = copy.deepcopy(_stack_fleet("dev"))
    raw["pools"]["experiments"].update(change)
    if change.get("cloud") == "alicloud":
        raw["network"] = {"regions": {"alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"}}}
    with pytest.raises(FleetError, match=message):
        run_pulumi(_build(raw))
    assert run_pulumi(lambda: None).custom() == []  # refused before anything is built


def _run_program(run_pulumi: Runner, fleet: Any) -> dict[str, Any]:
    exports: dict[str, Any] = {}

    def program() -> None:
        pulumi.runtime.set_config("gpufleet:fleet", json.dumps(fleet))
        original = pulumi.export
        pulumi.export = exports.__setitem__  # type: ignore[assignment]
        try:
            runpy.run_path(str(ROOT / "infra" / "__main__.py"), run_name="__main__")
        finally:
            pulumi.export = original

    run_pulumi(program)
    return exports


def test_program_builds_the_stack_and_exports_its_outputs(run_pulumi: Runner) -> None:
    exports = _run_program(run_pulumi, _stack_fleet("dev"))
    assert sorted(exports) == [
        "budget_name",
        "checkpoint_bucket",
        "checkpoint_replica_bucket",
        "environment",
        "fleet_key_arn",
        "pool_asg_names",
        "pool_groups",
        "pool_queue_names",
        "pool_queues",
        "pool_role_arns",
        "pool_roles",
        "regional_key_arns",
        "site_key_ids",
    ]
    assert exports["environment"] == "dev"
    assert exports["checkpoint_replica_bucket"] is None


def test_program_turns_spec_errors_into_a_clean_run_error(run_pulumi: Runner) -> None:
    raw = copy.deepcopy(_stack_fleet("dev"))
    raw["budget"]["monthly"] = -1
    del raw["tags"]["team"]
    with pytest.raises(pulumi.RunError) as raised:
        _run_program(run_pulumi, raw)
    message = str(raised.value)
    assert message.startswith("invalid gpufleet:fleet\nstacks/Pulumi.test.yaml: ")
    assert "budget.monthly" in message and "team" in message
