"""GF-NET-002 on a raw-SDK hybrid program: an AWS VPC joined by VPN to a data centre whose cluster's
Calico and Cilium address pools the same program applies. A pool inside the VPC's range fires; the
compliant pools, and a disabled pool that still names the cloud range, do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.aws.harness import as_preview, judge, outcome, run_variant

PROGRAM = Path(__file__).resolve().parent / "hybrid_pools"
OVERLAP = (
    "VPC 'burst' range 10.80.0.0/16 overlaps {} range {}; give each network of the fleet a disjoint range"
)

VARIANTS = {
    "calico-overlap": ("Calico IPPool 'default-ipv4-ippool' spec.cidr", "10.80.64.0/18"),
    "cilium-pods-overlap": ("CiliumPodIPPool 'gpu-pods'", "10.80.128.0/20"),
    "cilium-lb-overlap": ("CiliumLoadBalancerIPPool 'inference-lb'", "10.80.1.0/24"),
}


def test_compliant_program_has_no_findings() -> None:
    assert outcome(PROGRAM).summary() == []


def test_pools_are_custom_resources_on_the_on_prem_provider() -> None:
    graph = run_variant(PROGRAM)
    (default, retired) = sorted(
        graph.of_type("kubernetes:crd.projectcalico.org/v1:IPPool"), key=lambda r: r.name
    )
    assert (default.name, retired.name) == ("default-ipv4-ippool", "retired-ippool")
    assert retired.inputs["spec"]["disabled"] is True
    assert retired.inputs["spec"]["cidr"] == "10.80.0.0/18"
    assert default.provider is not None and "onprem" in default.provider


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_pool_inside_the_vpc_range_is_reported(variant: str) -> None:
    source, cidr = VARIANTS[variant]
    found = outcome(PROGRAM, variant)
    assert found.ids() == {"GF-NET-002"}, found.summary()
    (violation,) = found.of("GF-NET-002")
    assert violation.message == OVERLAP.format(source, cidr)
    assert violation.urn.endswith("::burst")


def test_preview_stays_compliant() -> None:
    assert judge(as_preview(run_variant(PROGRAM))).summary() == []
