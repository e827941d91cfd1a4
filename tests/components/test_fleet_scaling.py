"""The fleet's wiring of what makes pools scale: a queue per pool, in the pool's region, under its key,
consumed by the pool's own role; one stack tag on everything, which the budget filters on."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from gpufleet.components.fleet import HybridGpuFleet
from gpufleet.components.spec import parse_fleet

from .conftest import ACCOUNT, RecordingMocks, Runner, statements_by_sid

ROOT = Path(__file__).resolve().parents[2]
HOME, WEST = "us-east-1", "us-west-2"
STACK = "gpufleet/test"


def _fleet(stack: str) -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return copy.deepcopy(config["gpufleet:fleet"])  # type: ignore[no-any-return]


def _run(run_pulumi: Runner, name: str, raw: dict[str, Any]) -> RecordingMocks:
    spec = parse_fleet(raw, source="test")
    return run_pulumi(lambda: HybridGpuFleet(name, spec))


def test_every_tagged_resource_carries_the_stack_tag_the_budget_filters_on(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, "gpufleet-prod", _fleet("prod"))
    tagged = [r for r in mocks.custom() if isinstance(r.inputs.get("tags"), dict)]
    assert len(tagged) > 40
    assert {r.name: r.inputs["tags"].get("gpufleet:stack") for r in tagged} == {r.name: STACK for r in tagged}
    groups = mocks.of_type("aws:autoscaling/group:Group")
    assert groups and all(
        {"key": "gpufleet:stack", "value": STACK, "propagateAtLaunch": True} in g.inputs["tags"]
        for g in groups
    )
    (budget,) = mocks.of_type("aws:budgets/budget:Budget")
    assert budget.inputs["costFilters"] == [
        {"name": "TagKeyValue", "values": [f"user:gpufleet:stack${STACK}"]}
    ]


def test_each_pool_gets_a_queue_in_its_region_under_its_regions_key(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, "gpufleet-prod", _fleet("prod"))
    queues = {r.name: r.inputs for r in mocks.of_type("aws:sqs/queue:Queue")}
    pools = ("inference-a10g", "train-a100", "burst-a10g-west")
    assert sorted(queues) == sorted(
        f"gpufleet-prod-pool-{p}-{kind}" for p in pools for kind in ("queue", "dlq")
    )
    west_key = f"arn:aws:kms:{WEST}:{ACCOUNT}:key/gpufleet-prod-{WEST}-key-key-key-id"
    home_key = f"arn:aws:kms:{HOME}:{ACCOUNT}:key/gpufleet-prod-key-key-key-id"
    for name, inputs in queues.items():
        west = "-west-" in name
        assert (inputs["region"], inputs["kmsMasterKeyId"]) == (
            (WEST, west_key) if west else (HOME, home_key)
        )
    access = {
        r.name: r.inputs
        for r in mocks.of_type("aws:iam/rolePolicy:RolePolicy")
        if r.name.endswith("-queue-access")
    }
    for pool in pools:
        assert access[f"gpufleet-prod-pool-{pool}-queue-access"]["role"] == (
            f"gpufleet-prod-pool-{pool}-role-0a1b2c3"
        )
    west_queue = statements_by_sid(access["gpufleet-prod-pool-burst-a10g-west-queue-access"])
    assert west_queue["ConsumeOwnPoolQueue"]["Resource"] == [
        f"arn:aws:sqs:{WEST}:{ACCOUNT}:queue/gpufleet-prod-pool-burst-a10g-west-queue-0a1b2c3"
    ]
    assert west_queue["DecryptOwnPoolQueue"]["Resource"] == [west_key]
    assert west_queue["DecryptOwnPoolQueue"]["Condition"] == {
        "StringEquals": {"kms:ViaService": f"sqs.{WEST}.amazonaws.com"}
    }


def _sqs_grants(mocks: RecordingMocks, role_name: str) -> dict[str, list[str]]:
    """Every SQS action the role's inline policies allow, with the resources it is allowed on."""
    grants: dict[str, list[str]] = {}
    for policy in mocks.of_type("aws:iam/rolePolicy:RolePolicy"):
        if policy.inputs["role"] != role_name:
            continue
        for statement in statements_by_sid(policy.inputs).values():
            for action in statement["Action"]:
                if action.startswith("sqs:") and statement["Effect"] == "Allow":
                    grants.setdefault(action, []).extend(statement["Resource"])
    return grants


def test_each_pools_instances_receive_and_delete_only_from_their_own_queue(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, "gpufleet-prod", _fleet("prod"))
    profiles = {
        f"arn:aws:iam:{HOME}:{ACCOUNT}:instanceprofile/{r.name}-0a1b2c3": r.inputs["role"]
        for r in mocks.of_type("aws:iam/instanceProfile:InstanceProfile")
    }
    roles = {}
    for pool, region in (("inference-a10g", HOME), ("train-a100", HOME), ("burst-a10g-west", WEST)):
        template = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", f"gpufleet-prod-pool-{pool}-lt")
        role = profiles[template.inputs["iamInstanceProfile"]["arn"]]
        own_queue = f"arn:aws:sqs:{region}:{ACCOUNT}:queue/gpufleet-prod-pool-{pool}-queue-0a1b2c3"
        grants = _sqs_grants(mocks, role)
        assert grants == {
            action: [own_queue]
            for action in (
                "sqs:ReceiveMessage",
                "sqs:DeleteMessage",
                "sqs:ChangeMessageVisibility",
                "sqs:GetQueueAttributes",
                "sqs:GetQueueUrl",
            )
        }
        roles[pool] = role
    # Three pools, three roles: two pools of one region no longer share one.
    assert len(set(roles.values())) == 3
    # Session Manager through each role's own inline policy, not the managed core policy.
    assert mocks.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment") == []
    session = {
        r.inputs["role"]: [s["Action"] for s in json.loads(r.inputs["policy"])["Statement"]]
        for r in mocks.of_type("aws:iam/rolePolicy:RolePolicy")
        if r.name.endswith("-permissions")
    }
    for role in roles.values():
        assert session[role][0] == [
            "ssm:UpdateInstanceInformation",
            "ssmmessages:CreateControlChannel",
            "ssmmessages:CreateDataChannel",
            "ssmmessages:OpenControlChannel",
            "ssmmessages:OpenDataChannel",
        ]


def test_a_pool_may_scale_on_a_queue_made_elsewhere(run_pulumi: Runner) -> None:
    raw = _fleet("dev")
    raw["pools"]["experiments"]["queue"] = {"name": "vision-experiments"}
    mocks = _run(run_pulumi, "gpufleet-dev", raw)
    assert mocks.of_type("aws:sqs/queue:Queue") == []
    backlog = mocks.one("aws:autoscaling/policy:Policy", "gpufleet-dev-pool-experiments-backlog")
    m1 = backlog.inputs["targetTrackingConfiguration"]["customizedMetricSpecification"]["metrics"][0]
    assert (m1["metricStat"]["metric"]["namespace"], m1["metricStat"]["metric"]["dimensions"]) == (
        "AWS/SQS",
        [{"name": "QueueName", "value": "vision-experiments"}],
    )


def test_the_stack_tag_is_activated_only_when_the_spec_asks(run_pulumi: Runner) -> None:
    raw = _fleet("dev")
    raw["budget"]["activate_stack_tag"] = True
    mocks = _run(run_pulumi, "gpufleet-dev", raw)
    tag = mocks.one("aws:costexplorer/costAllocationTag:CostAllocationTag", "gpufleet-dev-budget-stack-tag")
    assert tag.inputs == {"tagKey": "gpufleet:stack", "status": "Active"}
