"""GPU pools written every way the AWS SDK allows (launch configuration with a spot price,
attribute-based mixed instances, spot fleet scaled by Application Auto Scaling, EC2 fleet, EKS node
group scheduled through its generated ASG), compliant and broken one cost rule at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.graph import UNKNOWN_STRING
from tests.realworld.aws.harness import as_preview, judge, outcome, run_variant, with_input

PROGRAM = Path(__file__).resolve().parent / "aws_pools"

# variant -> (mandatory rule ids, resource named, words of the message)
VARIANTS: dict[str, tuple[set[str], str, str]] = {
    "p5-in-dev": (
        {"GF-COST-003", "GF-COST-007"},
        "notebooks-asg",
        "uses p5.48xlarge (H100); dev allows only",
    ),
    "lc-on-demand": ({"GF-COST-004"}, "notebooks-asg", "runs 0% of its capacity on spot"),
    "batch-on-demand": ({"GF-COST-004"}, "batch", "runs 0% of its capacity on spot"),
    "h100-by-attribute": ({"GF-COST-003", "GF-COST-007"}, "batch", "uses p5.48xlarge (H100)"),
    "spot-fleet-on-demand": ({"GF-COST-004"}, "sweeps", "runs 0% of its capacity on spot"),
    "spot-fleet-no-schedule": ({"GF-COST-005"}, "sweeps", "cannot scale to zero off-hours"),
    "fleet-on-demand": ({"GF-COST-004", "GF-COST-005"}, "evals", "EC2 fleet 'evals' (dev)"),
    "nodegroup-on-demand": (
        {"GF-COST-004"},
        "gpu",
        "EKS node group 'gpu' (dev) runs 0% of its capacity on spot",
    ),
    "nodegroup-no-schedule": ({"GF-COST-005"}, "gpu", "has no off-hours schedule to zero and no scale-in"),
    "budget-absolute-late": ({"GF-COST-002"}, "research", "AWS budget 'research' alerts at 96.67%"),
    "untagged": ({"GF-COST-001"}, "scratch", "lacks the cost tags cost-center, env"),
}
# Variants that change a setting without breaking a rule.
STILL_COMPLIANT = ("no-weekend", "no-scale-in", "short-cooldown")


def mandatory_ids(variant: str, stack: str = "dev") -> set[str]:
    return {v.rule_id for v in outcome(PROGRAM, variant, stack).mandatory()}


def test_compliant_dev_program_has_no_mandatory_findings() -> None:
    assert outcome(PROGRAM).mandatory() == [], outcome(PROGRAM).summary()


def test_compliant_prod_program_with_on_demand_fleet_has_no_mandatory_findings() -> None:
    found = outcome(PROGRAM, "none", "prod")
    assert found.mandatory() == [], found.summary()
    assert len(found.graph.of_type("aws:ec2/fleet:Fleet")) == 1


@pytest.mark.parametrize("variant", STILL_COMPLIANT)
def test_settings_that_break_nothing_stay_compliant(variant: str) -> None:
    assert mandatory_ids(variant) == set(), outcome(PROGRAM, variant).summary()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_ids, resource, words = VARIANTS[variant]
    found = outcome(PROGRAM, variant)
    assert mandatory_ids(variant) == rule_ids, found.summary()
    matching = [v for v in found.mandatory() if words in v.message]
    assert any(v.urn.endswith(f"::{resource}") and f"'{resource}'" in v.message for v in matching), (
        found.summary()
    )


def test_gp2_in_launch_template_is_an_advisory_cost_009() -> None:
    found = outcome(PROGRAM, "gp2")
    assert found.mandatory() == []
    (finding,) = found.of("GF-COST-009")
    assert finding.urn.endswith("::batch")
    assert (
        "'batch' uses the legacy volume type gp2 at `blockDeviceMappings[0].ebs.volumeType`"
        in finding.message
    )


def test_preview_with_unknown_ids_stays_compliant() -> None:
    assert judge(as_preview(run_variant(PROGRAM))).mandatory() == []


def test_unknown_spot_share_is_not_judged_as_compliant() -> None:
    graph = with_input(
        run_variant(PROGRAM),
        "batch",
        "aws:autoscaling/group:Group",
        "mixedInstancesPolicy.instancesDistribution.onDemandPercentageAboveBaseCapacity",
        UNKNOWN_STRING,
    )
    findings = judge(graph).of("GF-COST-004")
    assert [f.urn.rsplit("::", 1)[-1] for f in findings] == ["batch"]
    assert "could not be judged" in findings[0].message
