"""The AWS fleet on a fresh account, continued: every spec variant passes the pack, pool roles fit IAM's
inline policy quota, clean errors, and what the runbook and the stacks claim matches what is built.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gpufleet.engine import EngineError, run_program
from gpufleet.graph import ResourceGraph
from tests.components.first_deploy_support import (
    ACCOUNT,
    ROOT,
    fleet,
    one,
    prod_with,
    shipped,
)
from tests.project_policy import project_policy_config

# ---- every way the spec can deploy passes the policy pack -----------------------------------------


@pytest.mark.parametrize("stack", ["dev", "prod"])
@pytest.mark.parametrize(
    ("variant", "change"),
    [
        ("in-stack", {"account": {"baseline": "in-stack"}}),
        ("endpoints", {"network": "endpoints"}),
        ("nat", {"network": "nat"}),
    ],
)
def test_spec_variants_pass_every_rule(stack: str, variant: str, change: dict[str, Any]) -> None:
    from gpufleet.evaluate import evaluate_stack
    from gpufleet.policies.registry import default_registry

    raw = fleet(stack)
    overrides: dict[str, Any] = {"gpufleet:fleet": raw}
    if "account" in change:
        raw["account"] = change["account"]
        overrides["pulumi:tags"] = {}  # the fleet owns its preferences: no baseline stack to name
    else:
        raw["network"]["egress"] = change["network"]
    result = evaluate_stack(
        run_program(ROOT, stack, config_overrides=overrides),
        list(default_registry()),
        project_policy_config(),
    )
    assert [(v.rule_id, v.message) for v in result.violations] == [], variant


def test_byok_pending_phase_raises_only_the_pending_alert_topic() -> None:
    from gpufleet.evaluate import evaluate_stack
    from gpufleet.policies.registry import default_registry

    graph = run_program(ROOT, "prod", config_overrides={"gpufleet:fleet": prod_with("pending")})
    result = evaluate_stack(graph, list(default_registry()), project_policy_config())
    # Nothing mandatory fails meanwhile (the account's trail is the baseline stack's). The budget's
    # alert topic exists from the first deploy, but its alerts fail until the import (see
    # docs/first-deploy.md), and the operability rule says so.
    assert [(v.rule_id, v.enforcement) for v in result.violations] == [("GF-OPS-005", "advisory")]
    [topic] = [v for v in result.violations if v.rule_id == "GF-OPS-005"]
    assert topic.urn.endswith("aws:sns/topic:Topic::gpufleet-prod-budget-alerts")
    assert "is created but every message sent to it fails until the material is imported" in topic.message


def test_zones_skip_those_an_endpoint_service_does_not_support(run_pulumi: Any) -> None:
    from gpufleet.components.fleet import HybridGpuFleet
    from gpufleet.components.network.zone_pick import ZoneError, pick_zones
    from gpufleet.components.spec import parse_fleet

    zones = ["us-east-1a", "us-east-1b", "us-east-1c"]
    offered = [("g5.xlarge", z) for z in zones]
    endpoints = {"ssm": ["us-east-1b", "us-east-1c"], "kms": zones}
    assert pick_zones(zones, offered, [["g5.xlarge"]], 2, "us-east-1", endpoint_zones=endpoints) == [
        "us-east-1b",
        "us-east-1c",
    ]
    with pytest.raises(ZoneError) as raised:
        pick_zones(zones, offered, [["g5.xlarge"]], 3, "us-east-1", endpoint_zones=endpoints)
    assert str(raised.value) == (
        "us-east-1: 3 availability zones asked for, but only 2 offer the pools' instance types (g5.xlarge) "
        "and the endpoint services (kms, ssm): us-east-1b, us-east-1c; ssm not in every zone. Lower the "
        "network's availability_zones or choose types offered in more zones"
    )
    mocks = run_pulumi(lambda: None)
    mocks.missing_endpoints = {"us-east-1a": {"com.amazonaws.us-east-1.ec2messages"}}
    spec = parse_fleet(fleet("dev"), source="test")
    run_pulumi(lambda: HybridGpuFleet("gpufleet-dev", spec))
    subnets = sorted(r.inputs["availabilityZone"] for r in mocks.of_type("aws:ec2/subnet:Subnet"))
    assert subnets == ["us-east-1b", "us-east-1c"]
    asked = sorted(
        a["serviceName"] for t, a in mocks.calls if t == "aws:ec2/getVpcEndpointService:getVpcEndpointService"
    )
    assert asked == sorted(
        f"com.amazonaws.us-east-1.{s}"
        for s in ("ssm", "ssmmessages", "ec2messages", "logs", "kms", "monitoring", "ec2", "sqs")
    )


# ---- each pool's own role fits IAM's inline policy quota --------------------------------------------

# IAM: the inline policies of one role total at most 10,240 characters, whitespace not counted.
INLINE_POLICY_QUOTA = 10_240


def _inline_sizes(graph: ResourceGraph) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for policy in graph.of_type("aws:iam/rolePolicy:RolePolicy"):
        body = json.loads(policy.inputs["policy"])
        role = policy.inputs["role"]
        sizes[role] = sizes.get(role, 0) + len(json.dumps(body, separators=(",", ":")))
    return sizes


def test_each_pool_role_stays_well_inside_the_inline_policy_quota() -> None:
    raw = fleet("prod")
    # The largest a pool's role gets: the longest pool name the spec takes, a container from ECR.
    long_name = "p" * 32  # gpufleet-prod-pool-<32>-role: 56 characters, the most a role's logical name takes
    raw["pools"][long_name] = copy.deepcopy(raw["pools"]["burst-a10g-west"])
    raw["network"]["egress"] = "endpoints"
    image = f"{ACCOUNT}.dkr.ecr.us-west-2.amazonaws.com/team/a-long-repository-name:2024.06.01"
    raw["pools"][long_name]["workload"] = {"container": {"image": image}}
    graph = run_program(ROOT, "prod", config_overrides={"gpufleet:fleet": raw})
    sizes = _inline_sizes(graph)
    pool_roles = {role: size for role, size in sizes.items() if "-pool-" in role}
    assert len(pool_roles) == 4
    # Real ARNs are a little longer than the mocks' (key ids, random suffixes): keep half as margin.
    assert max(pool_roles.values()) < INLINE_POLICY_QUOTA // 2, pool_roles


def test_a_pool_name_too_long_for_its_role_is_a_clean_error() -> None:
    raw = fleet("dev")
    raw["pools"]["e" * 40] = raw["pools"].pop("experiments")
    with pytest.raises(EngineError) as raised:
        run_program(ROOT, "dev", config_overrides={"gpufleet:fleet": raw})
    assert (
        f"pools.{'e' * 40}: the pool's IAM role would be named gpufleet-dev-pool-{'e' * 40}-role "
        "plus 8 random characters, longer than IAM's 64: shorten the pool's name (or the stack's)"
    ) in str(raised.value)


# ---- an existing queue of another account: its metrics never reach this account's alarm -----------


def test_an_existing_queue_in_another_account_is_a_clean_error() -> None:
    raw = fleet("dev")
    raw["pools"]["experiments"]["queue"] = {"arn": "arn:aws:sqs:us-east-1:999999999999:jobs"}
    with pytest.raises(EngineError) as raised:
        run_program(ROOT, "dev", config_overrides={"gpufleet:fleet": raw})
    assert (
        f"pools.experiments.queue.arn: the queue is in account 999999999999 but the stack deploys to "
        f"account {ACCOUNT}; AWS/SQS metrics stay in the queue's account, so the pool's alarm could never "
        f"see them: name a queue of account {ACCOUNT}, or leave queue out and the fleet creates one"
    ) in str(raised.value)
    raw["pools"]["experiments"]["queue"] = {"arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:jobs"}
    graph = run_program(ROOT, "dev", config_overrides={"gpufleet:fleet": raw})
    access = one(graph, "aws:iam/rolePolicy:RolePolicy", "gpufleet-dev-pool-experiments-queue-access")
    assert json.loads(access.inputs["policy"])["Statement"][0]["Resource"] == [
        f"arn:aws:sqs:us-east-1:{ACCOUNT}:jobs"
    ]


# ---- the runbook reads the stack outputs the program exports ---------------------------------------


def test_every_stack_output_the_runbook_reads_is_exported() -> None:
    import re

    runbook = (ROOT / "docs" / "first-deploy.md").read_text()
    read = set(re.findall(r"pulumi stack output (\w+)", runbook))
    assert {"pool_queue_names", "pool_asg_names"} <= read
    assert read <= set(shipped("dev").outputs)
    # The scale-out walk-through names the alarm, the dead-letter queue and the budget's tag switch.
    for phrase in ("-queue-deep", "-dlq", "activate_stack_tag", "pool_role_arns"):
        assert phrase in runbook


# ---- what the runbook and the stacks claim ---------------------------------------------------------


def test_single_type_spot_pools_are_warned_about_in_the_plan() -> None:
    warned = sorted(note for note in shipped("prod").notes if "spot on one instance type" in str(note))
    assert warned == [
        "program warning: pools.burst-a10g-west: 70% spot on one instance type (g5.12xlarge): list at "
        "least 2 types of the same GPU so Auto Scaling can find spot capacity",
        "program warning: pools.inference-a10g: 30% spot on one instance type (g5.12xlarge): list at "
        "least 2 types of the same GPU so Auto Scaling can find spot capacity",
        "program warning: pools.train-a100: 50% spot on one instance type (p4d.24xlarge): list at least "
        "2 types of the same GPU so Auto Scaling can find spot capacity",
    ]
    # dev's spot pool lists two types: no warning.
    assert not [note for note in shipped("dev").notes if "spot on one instance type" in str(note)]


def test_p4d_pool_claims_no_efa_it_does_not_have() -> None:
    template = one(
        shipped("prod"), "aws:ec2/launchTemplate:LaunchTemplate", "gpufleet-prod-pool-train-a100-lt"
    )
    # One plain (ENA) interface and no placement group: EFA is not configured, and nothing says it is.
    assert [i.get("interfaceType") for i in template.inputs["networkInterfaces"]] == [None]
    assert shipped("prod").of_type("aws:ec2/placementGroup:PlacementGroup") == []
    for path in (ROOT / "stacks" / "Pulumi.prod.yaml", ROOT / "gpufleet" / "templates" / "training.yaml"):
        line = next(line for line in path.read_text().splitlines() if "p4d.24xlarge]" in line)
        assert "no EFA" in line and ", EFA" not in line, path


def test_the_runbook_finds_the_dead_letter_queue_through_the_redrive_policy() -> None:
    text = (ROOT / "docs" / "first-deploy.md").read_text()
    # Both queues are auto-named (<pool>-queue-<random>, <pool>-dlq-<random>): no name arithmetic
    # on the queue's name finds the DLQ; its ARN is in the queue's redrive policy.
    assert '"${QUEUE%-*}-dlq"' not in text
    assert "--attribute-names RedrivePolicy" in text and ".deadLetterTargetArn" in text
    graph = shipped("dev")
    queue = one(graph, "aws:sqs/queue:Queue", "gpufleet-dev-pool-experiments-queue")
    dlq = one(graph, "aws:sqs/queue:Queue", "gpufleet-dev-pool-experiments-dlq")
    assert "name" not in queue.inputs and "name" not in dlq.inputs
    assert json.loads(queue.inputs["redrivePolicy"])["deadLetterTargetArn"] == dlq.outputs["arn"]


def test_p4d_efa_claims_agree_with_aws_the_catalogue_and_what_is_built() -> None:
    from gpufleet.components.catalog import load_catalog

    # AWS: p4d.24xlarge takes EFA (four network cards, 400 Gbps); the catalogue says so too.
    p4d = load_catalog().get("aws", "p4d.24xlarge")
    assert (p4d.efa, p4d.network_gbps, p4d.network_burst) == (True, 400, False)
    # The runbook says the type supports EFA and that the fleet configures neither EFA nor placement.
    runbook = " ".join((ROOT / "docs" / "first-deploy.md").read_text().split())
    assert "A p4d.24xlarge supports EFA, on four network cards (400 Gbps in all;" in runbook
    assert (
        "the fleet configures neither, so multi-node jobs communicate over TCP on that one interface"
        in runbook
    )
    # prod's comment: EFA-capable, built with one ENA interface (the launch template test above).
    line = next(
        x for x in (ROOT / "stacks" / "Pulumi.prod.yaml").read_text().splitlines() if "p4d.24xlarge]" in x
    )
    assert (
        line.split("#", 1)[1].strip() == "8x A100 40 GiB; EFA-capable, built with one ENA interface: no EFA"
    )


def test_prod_comments_name_its_single_type_spot_pools() -> None:
    # Each prod spot pool lists one type, and the plan warns about each (test above): the comments say so.
    spec = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text().splitlines()
    spot = [x.split("#", 1)[1].strip() for x in spec if x.strip().startswith("spot_percent:")]
    assert spot == [
        "of capacity above the base; one type: plan warns",
        "of capacity above the base; one type: plan warns",
        "of capacity: burst work tolerates reclaims; one type: plan warns",
    ]


def test_the_runbook_says_sqs_metrics_of_an_idle_queue_arrive_late() -> None:
    # CloudWatch gets SQS metrics only for active queues (active up to six hours after the last call);
    # a woken idle queue's first datapoints can take about 15 minutes.
    runbook = " ".join((ROOT / "docs" / "first-deploy.md").read_text().split())
    assert "AWS counts a queue as active for up to six hours after its last API call" in runbook
    assert "allow up to about 15 minutes from the send to the alarm" in runbook
