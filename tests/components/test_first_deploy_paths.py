"""The AWS fleet on a fresh account, continued: deployed URNs survive, the agent's metric path (role,
endpoints, agent config) agrees, zones offer what the pools and endpoints need, one trail per account.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpufleet.graph import Resource
from tests.components.first_deploy_support import (
    fleet,
    one,
    run,
    shipped,
    statements,
)

# ---- URNs: nothing deployed is renamed -------------------------------------------------------------

# Deliberately gone: the fleets' own Session Manager preferences and session log groups, now the
# account baseline's (stacks/Pulumi.account.yaml). Moving them is in docs/first-deploy.md.
_SESSIONS = ("audit-session-logs", "audit-session-prefs")
# Deliberately gone: each region's one instance role (component, role, inline policy, SSM attachment,
# profile), which every pool of the region shared, so each pool's instances could read every other
# pool's queue. Each pool has its own now (`<fleet>-pool-<pool>-identity-*`); a deploy creates those,
# moves the launch templates to them, then deletes the shared one.
_SHARED_ROLE = ("identity", "identity-role", "identity-permissions", "identity-ssm-core", "identity-profile")
# Deliberately gone: the fleets' own multi-region trails and their buckets. With a separate baseline
# the account's trail is the baseline stack's; a trail per fleet was a paid copy of the same events
# and counted against CloudTrail's five trails per region. Moving them is in docs/first-deploy.md.
_TRAIL = tuple(
    f"audit-trail{part}"
    for part in (
        "",
        "-bucket",
        *(f"-bucket-{r}" for r in ("lifecycle", "policy", "public-access", "encryption", "versioning")),
    )
)
# Deliberately gone: each AWS pool's queue alarm, which fired +1 instance per cooldown (on one
# message at size.min 0). The pool's `-backlog` target-tracking policy scales on the backlog per
# instance instead, in proportion; deleting the alarm touches no instance.
_QUEUE_ALARMS = {
    "dev": ("pool-experiments-queue-deep",),
    "prod": tuple(f"pool-{p}-queue-deep" for p in ("train-a100", "inference-a10g", "burst-a10g-west")),
}
REMOVED = {
    "dev": {
        f"gpufleet-dev-{suffix}" for suffix in (*_SESSIONS, *_SHARED_ROLE, *_TRAIL, *_QUEUE_ALARMS["dev"])
    },
    "prod": {
        f"gpufleet-prod{site}-{suffix}"
        for site in ("", "-us-west-2")
        for suffix in (*_SESSIONS, *_SHARED_ROLE)
    }
    | {f"gpufleet-prod-{suffix}" for suffix in (*_TRAIL, *_QUEUE_ALARMS["prod"])},
    # The hybrid fleet's pools join the on-prem cluster: cluster-autoscaler alone sizes their groups, so
    # their scaling policies, rules and alarms are gone (one scaler per group, GF-COST-006).
    "hybrid": {
        f"gpufleet-hybrid-pool-burst-aws-{suffix}"
        for suffix in ("backlog", "scale-in", "scale-out", "gpu-high", "gpu-low")
    }
    | {
        f"gpufleet-hybrid-cn-hangzhou-pool-burst-alicloud-{suffix}"
        for suffix in (
            "queue-deep",
            "queue-deep-fallback",
            "contacts",
            "gpu-high",
            "gpu-low",
            "scale-in",
            "scale-out",
        )
    }
    | {
        f"gpufleet-hybrid-tencentcloud-ap-guangzhou-pool-burst-tencent-{suffix}"
        for suffix in (
            "spot-scale-in",
            "spot-scale-out",
            "gpu-high",
            "gpu-low",
            "queue-deep",
            "queue-deep-queue",
        )
    },
}


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_every_deployed_urn_survives(stack: str) -> None:
    pinned = set((Path(__file__).parent / "golden" / f"urns.{stack}.txt").read_text().split())
    now = {r.urn for r in shipped(stack) if not r.is_provider}
    gone = {urn.rsplit("::", 1)[1] for urn in pinned - now}
    assert gone == REMOVED[stack]


# ---- finding 4: the agent's metric path: role, endpoints and agent config agree ------------------


def _agent_config(template: Resource) -> dict[str, Any]:
    import base64

    script = base64.b64decode(template.inputs["userData"]).decode()
    body = script.split("<<'AGENT_CONFIG'\n", 1)[1].split("\nAGENT_CONFIG\n", 1)[0]
    return json.loads(body)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("stack", "pool", "site"),
    [("dev", "experiments", "gpufleet-dev"), ("prod", "burst-a10g-west", "gpufleet-prod-us-west-2")],
)
def test_role_endpoints_and_agent_config_agree(stack: str, pool: str, site: str) -> None:
    from gpufleet.components.pools.aws_userdata import agent_config

    graph = shipped(stack)
    template = one(graph, "aws:ec2/launchTemplate:LaunchTemplate", f"gpufleet-{stack}-pool-{pool}-lt")
    config = _agent_config(template)
    region = template.inputs["region"]
    assert config == agent_config(
        config["logs"]["logs_collected"]["files"]["collect_list"][0]["log_group_name"], f"gpufleet/{stack}"
    )
    role = statements(
        one(graph, "aws:iam/rolePolicy:RolePolicy", f"gpufleet-{stack}-pool-{pool}-permissions")
    )
    endpoints = {
        r.inputs["serviceName"].removeprefix(f"com.amazonaws.{region}.")
        for r in graph.of_type("aws:ec2/vpcEndpoint:VpcEndpoint")
        if r.name.startswith(f"{site}-network-") and r.inputs["vpcEndpointType"] == "Interface"
    }
    metrics = config["metrics"]
    # The agent looks up the instance's tags to fill ${aws:AutoScalingGroupName} and drops every
    # metric until ec2:DescribeTags succeeds; from a private subnet that call needs the ec2 endpoint.
    if "${aws:AutoScalingGroupName}" in json.dumps(metrics.get("append_dimensions", {})):
        assert role["ReadInstanceTags"]["Action"] == ["ec2:DescribeTags"]
        assert "ec2" in endpoints
    # PutMetricData is allowed for the agent's own namespace only, through the monitoring endpoint.
    assert role["PublishGpuMetrics"]["Condition"] == {
        "StringEquals": {"cloudwatch:namespace": metrics["namespace"]}
    }
    assert "monitoring" in endpoints
    # The log group the agent ships to is one the role may write and the logs endpoint reaches.
    group_name = config["logs"]["logs_collected"]["files"]["collect_list"][0]["log_group_name"]
    group = next(
        r
        for r in graph.of_type("aws:cloudwatch/logGroup:LogGroup")
        if (r.inputs["name"], r.inputs["region"]) == (group_name, region)
    )
    assert group.outputs["arn"] in role["WriteOwnLogs"]["Resource"]
    assert "logs" in endpoints
    # Session Manager's own channels.
    assert {"ssm", "ssmmessages", "ec2messages"} <= endpoints


def test_zones_are_those_that_offer_the_pools_instance_types(run_pulumi: Any) -> None:
    from gpufleet.components.fleet import HybridGpuFleet
    from gpufleet.components.network.zone_pick import ZoneError, pick_zones
    from gpufleet.components.spec import parse_fleet

    offered = [("p4d.24xlarge", "us-east-1b"), ("p4d.24xlarge", "us-east-1c"), ("g5.xlarge", "us-east-1a")]
    zones = ["us-east-1a", "us-east-1b", "us-east-1c"]
    assert pick_zones(zones, offered, [["p4d.24xlarge"]], 2, "us-east-1") == ["us-east-1b", "us-east-1c"]
    # Every pool of the region needs one of its types in the zone.
    assert pick_zones(zones, offered, [["p4d.24xlarge"], ["g5.xlarge", "p4d.24xlarge"]], 1, "us-east-1") == [
        "us-east-1b"
    ]
    with pytest.raises(ZoneError) as raised:
        pick_zones(zones, offered, [["p4d.24xlarge"], ["g5.xlarge"]], 2, "us-east-1")
    assert str(raised.value) == (
        "us-east-1: 2 availability zones asked for, but only 0 offer the pools' instance types "
        "(p4d.24xlarge; g5.xlarge): none. Lower the network's availability_zones or choose types offered in "
        "more zones"
    )
    mocks = run_pulumi(lambda: None)
    mocks.missing_offerings = {"us-east-1": {"us-east-1a": {"g4dn.xlarge", "g5.xlarge"}}}
    spec = parse_fleet(fleet("dev"), source="test")
    run_pulumi(lambda: HybridGpuFleet("gpufleet-dev", spec))
    subnets = sorted(r.inputs["availabilityZone"] for r in mocks.of_type("aws:ec2/subnet:Subnet"))
    assert subnets == ["us-east-1b", "us-east-1c"]
    asked = [a for t, a in mocks.calls if t == "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings"]
    assert asked[0]["locationType"] == "availability-zone"
    assert asked[0]["filters"] == [{"name": "instance-type", "values": ["g4dn.xlarge", "g5.xlarge"]}]


def test_interface_endpoints_are_priced_per_zone_and_gateways_are_free() -> None:
    from gpufleet.cost import estimate_stack

    report = estimate_stack(shipped("dev"))
    endpoints = {o.name: o for o in report.other if o.kind == "endpoint"}
    # Eight interface endpoints in two zones at 0.01 USD an hour each; the S3 gateway costs nothing.
    assert sorted(endpoints) == sorted(
        f"gpufleet-dev-network-{s}"
        for s in ("ssm", "ssmmessages", "ec2messages", "logs", "kms", "monitoring", "ec2", "sqs")
    )
    assert all(o.quantity == "2 x 730 h" for o in endpoints.values())
    assert sum(o.monthly_estimate for o in endpoints.values()) == pytest.approx(8 * 2 * 0.01 * 730)


# ---- one multi-region trail per account ------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_a_fleet_on_a_separate_baseline_creates_no_trail(stack: str) -> None:
    # The baseline stack's trail records every region of the account; a fleet's own would be a paid
    # copy counting against CloudTrail's five trails per region.
    assert shipped(stack).of_type("aws:cloudtrail/trail:Trail") == []
    (trail,) = shipped("account").of_type("aws:cloudtrail/trail:Trail")
    assert (trail.name, trail.inputs["isMultiRegionTrail"], trail.inputs["enableLogging"]) == (
        "gpufleet-account-audit-trail",
        True,
        True,
    )
    # A fleet that keeps the account's singletons itself keeps its trail.
    (own,) = run(stack, account={"baseline": "in-stack"}).of_type("aws:cloudtrail/trail:Trail")
    assert (own.name, own.inputs["name"], own.inputs["isMultiRegionTrail"]) == (
        f"gpufleet-{stack}-audit-trail",
        f"gpufleet-{stack}-trail",
        True,
    )
