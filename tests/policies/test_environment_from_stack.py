"""The stack's environment decides which rules apply: an env tag on a resource cannot take it out of
its stack's environment, and a tag naming another environment is a GF-COST-001 finding."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pulumi_policy import ResourceValidationArgs

from gpufleet.analyzer_inputs import default_stack_tags
from gpufleet.policies.context import environment
from gpufleet.policies.cost.cost_tags import POLICY as COST_TAGS
from gpufleet.policies.cost.nonprod_spot_share import POLICY as SPOT_SHARE
from gpufleet.policies.rule import validate_collecting
from tests.policies.cost.helpers import aws_pool
from tests.policies.support import NotApplicable, opts, run_stack, urn_of

ASG = "aws:autoscaling/group:Group"
BUCKET = "aws:s3/bucket:Bucket"
DEV = {"gpufleet:environment": "dev"}
COST = {"project": "vision", "team": "ml", "cost-center": "cc-042"}


def _cost_tags(
    tags: dict[str, str], *, stack: str = "main", stack_tags: dict[str, str] | None = None
) -> list[str]:
    args = ResourceValidationArgs(
        BUCKET, {"tags": tags}, urn_of(BUCKET, "ckpt", stack), "ckpt", opts(), None, {}, stack_tags or {}
    )
    found: list[str] = []
    validate_collecting(COST_TAGS, args, lambda message, _urn: found.append(message))
    return found


def test_the_configured_stack_environment_beats_a_resource_tag() -> None:
    prod_tag = {"tags": [{"key": "env", "value": "prod", "propagateAtLaunch": True}]}
    assert environment(ASG, prod_tag, urn_of(ASG, "gpu", "main"), DEV) == "dev"
    assert environment(ASG, prod_tag, urn_of(ASG, "gpu", "main"), {"env": "staging"}) == "staging"
    # A stack whose configuration names no environment leaves it to the tag, then to its name.
    assert environment(ASG, prod_tag, urn_of(ASG, "gpu", "main"), {}) == "prod"
    assert environment(ASG, {}, urn_of(ASG, "gpu", "dev"), {}) == "dev"


def _prod_tagged_on_demand_pool() -> list[Any]:
    return aws_pool(
        spot=False, stack="main", group={"tags": [{"key": "env", "value": "prod", "propagateAtLaunch": True}]}
    )


def test_a_prod_tag_does_not_exempt_a_dev_stack_pool_from_the_dev_rules() -> None:
    stack = _prod_tagged_on_demand_pool()
    found = run_stack(SPOT_SHARE, stack, stack_tags=DEV)
    assert found == [
        (
            "Auto Scaling group 'gpu' (dev) runs 0% of its capacity on spot; dev pools need at least 100%",
            stack[1].urn,
        )
    ]
    assert SPOT_SHARE.enforcement_level.value == "mandatory"


def test_without_a_configured_environment_the_tag_still_speaks() -> None:
    try:
        found = run_stack(SPOT_SHARE, _prod_tagged_on_demand_pool())
    except NotApplicable:
        found = []
    assert found == []


def test_an_env_tag_naming_another_environment_is_a_cost_tag_finding() -> None:
    assert COST_TAGS.enforcement_level.value == "mandatory"
    expected = (
        "aws:s3/bucket:Bucket 'ckpt' is tagged env=prod in a dev stack; the stack's environment decides "
        "which rules apply, so set env=dev (or drop the tag)"
    )
    assert _cost_tags({**COST, "env": "prod"}, stack_tags=DEV) == [expected]
    assert _cost_tags({**COST, "env": "production"}, stack_tags={"env": "dev"}) == [expected]
    assert _cost_tags({**COST, "env": "dev", "Environment": "prod"}, stack_tags=DEV) == [
        "aws:s3/bucket:Bucket 'ckpt' is tagged Environment=prod in a dev stack; the stack's environment "
        "decides which rules apply, so set Environment=dev (or drop the tag)"
    ]


def test_an_env_tag_that_agrees_with_the_stack_passes() -> None:
    assert _cost_tags({**COST, "env": "dev"}, stack_tags=DEV) == []
    assert _cost_tags({**COST, "env": "development"}, stack_tags=DEV) == []
    # No configured environment to contradict: a stack's name is a weaker word than the tag.
    assert _cost_tags({**COST, "env": "prod"}, stack="main") == []
    assert _cost_tags({**COST, "env": "prod"}, stack="dev") == []


def test_the_fleet_spec_environment_is_sent_as_a_stack_tag() -> None:
    graph = SimpleNamespace(project="vision", config={"gpufleet:fleet": {"environment": "dev"}})
    assert default_stack_tags(graph)["gpufleet:environment"] == "dev"  # type: ignore[arg-type]
    plain = SimpleNamespace(project="vision", config={})
    assert "gpufleet:environment" not in default_stack_tags(plain)  # type: ignore[arg-type]
