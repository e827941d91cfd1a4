"""AlicloudNetwork: a VPC with vSwitches in zones that sell the pools' types (or existing vSwitches),
a security group with no way in from outside it, and a NAT gateway only when egress asks for one."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpufleet.components.network.alicloud import (
    AlicloudNetwork,
    AlicloudNetworkArgs,
    vswitch_cidrs,
    zones_for_pools,
)
from tests.components.alicloud_builders import A10, T4, TAGS
from tests.components.conftest import RecordingMocks, Runner, close_loop, fresh_loop


def test_new_vpc_one_vswitch_per_zone(run_pulumi: Runner) -> None:
    args = AlicloudNetworkArgs(
        tags=TAGS, vpc_cidr="10.60.0.0/16", zones=["cn-hangzhou-h", "cn-hangzhou-i"], name_prefix="gf"
    )
    mocks = run_pulumi(lambda: AlicloudNetwork("net", args))
    assert mocks.names_by_type() == [
        ("alicloud:ecs/securityGroup:SecurityGroup", "net-sg"),
        ("alicloud:vpc/network:Network", "net-vpc"),
        ("alicloud:vpc/switch:Switch", "net-vswitch-0"),
        ("alicloud:vpc/switch:Switch", "net-vswitch-1"),
        ("gpufleet:network:AlicloudNetwork", "net"),
    ]
    assert mocks.one("alicloud:vpc/network:Network", "net-vpc").inputs["cidrBlock"] == "10.60.0.0/16"
    switches = [mocks.one("alicloud:vpc/switch:Switch", f"net-vswitch-{i}").inputs for i in (0, 1)]
    assert [(s["zoneId"], s["cidrBlock"], s["vpcId"]) for s in switches] == [
        ("cn-hangzhou-h", "10.60.0.0/20", "net-vpc-id"),
        ("cn-hangzhou-i", "10.60.16.0/20", "net-vpc-id"),
    ]
    group = mocks.one("alicloud:ecs/securityGroup:SecurityGroup", "net-sg").inputs
    assert group["vpcId"] == "net-vpc-id"
    assert group["innerAccessPolicy"] == "Accept"
    # No rule at all: nothing is let in from outside the group, SSH and RDP included.
    assert mocks.of_type("alicloud:ecs/securityGroupRule:SecurityGroupRule") == []
    assert mocks.of_type("alicloud:vpc/natGateway:NatGateway") == []


def test_nat_egress_adds_the_gateway_its_eip_and_one_snat_entry_per_vswitch(run_pulumi: Runner) -> None:
    args = AlicloudNetworkArgs(
        tags=TAGS, vpc_cidr="10.60.0.0/16", zones=["cn-hangzhou-h", "cn-hangzhou-i"], egress="nat"
    )
    mocks = run_pulumi(lambda: AlicloudNetwork("net", args))
    nat = mocks.one("alicloud:vpc/natGateway:NatGateway", "net-nat").inputs
    assert nat["natType"] == "Enhanced"
    assert nat["vswitchId"] == "net-vswitch-0-id"
    association = mocks.one("alicloud:ecs/eipAssociation:EipAssociation", "net-nat-eip-association").inputs
    assert association == {
        "allocationId": "net-nat-eip-id",
        "instanceId": "net-nat-id",
        "instanceType": "Nat",
    }
    entries = sorted(r.inputs["sourceVswitchId"] for r in mocks.of_type("alicloud:vpc/snatEntry:SnatEntry"))
    assert entries == ["net-vswitch-0-id", "net-vswitch-1-id"]


def test_existing_vswitches_build_only_the_security_group_in_their_vpc(run_pulumi: Runner) -> None:
    args = AlicloudNetworkArgs(tags=TAGS, vswitch_ids=["vsw-a", "vsw-b"])
    holder: dict[str, Any] = {}
    mocks = run_pulumi(lambda: holder.setdefault("net", AlicloudNetwork("net", args)))
    assert mocks.names_by_type() == [
        ("alicloud:ecs/securityGroup:SecurityGroup", "net-sg"),
        ("gpufleet:network:AlicloudNetwork", "net"),
    ]
    assert mocks.one("alicloud:ecs/securityGroup:SecurityGroup", "net-sg").inputs["vpcId"] == "vpc-existing"
    assert ("alicloud:vpc/getSwitches:getSwitches", {"ids": ["vsw-a", "vsw-b"]}) in mocks.calls


def zones_chosen(unsold: dict[str, set[str]], pools: list[list[str]], count: int) -> list[str]:
    """Run the zone choice under fresh recording mocks whose region does not sell ``unsold``."""
    loop = fresh_loop()
    mocks = RecordingMocks()
    mocks.alicloud_unsold = unsold
    pulumi.runtime.set_mocks(mocks, project="gpufleet", stack="test", preview=False)
    found: list[str] = []
    try:
        parent = pulumi.ComponentResource("test:zones:Holder", "holder")
        outputs = zones_for_pools(pulumi.InvokeOutputOptions(parent=parent), "cn-hangzhou", count, pools)
        pulumi.Output.all(*outputs).apply(found.extend)
        loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
    finally:
        loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
        close_loop(loop)
    asked = sorted(a.get("availableInstanceType", "") for t, a in mocks.calls if t.endswith("getZones"))
    assert asked == sorted(["", *{t for pool in pools for t in pool}])
    return found


@pytest.mark.parametrize(
    ("unsold", "zones"),
    [
        ({}, ["cn-hangzhou-h", "cn-hangzhou-i"]),
        # Neither type is sold in h: the first two zones that sell one are i and j.
        ({T4: {"cn-hangzhou-h"}, A10: {"cn-hangzhou-h"}}, ["cn-hangzhou-i", "cn-hangzhou-j"]),
        # One of the pool's types is enough.
        ({A10: {"cn-hangzhou-h", "cn-hangzhou-i"}}, ["cn-hangzhou-h", "cn-hangzhou-i"]),
    ],
)
def test_zones_are_those_that_sell_a_type_of_each_pool(unsold: dict[str, set[str]], zones: list[str]) -> None:
    assert zones_chosen(unsold, [[A10, T4]], 2) == zones


def test_a_second_pool_narrows_the_zones() -> None:
    assert zones_chosen({T4: {"cn-hangzhou-i"}}, [[A10], [T4]], 2) == ["cn-hangzhou-h", "cn-hangzhou-j"]


def test_too_few_zones_stop_the_deploy_naming_the_types() -> None:
    unsold = {A10: {"cn-hangzhou-h", "cn-hangzhou-i", "cn-hangzhou-j"}}
    with pytest.raises(Exception, match=r"cn-hangzhou: 2 availability zones asked for, but only 1 offer"):
        zones_chosen(unsold, [[A10]], 2)


def test_vswitch_ranges_are_sixteenths_of_the_vpc() -> None:
    assert vswitch_cidrs("10.60.0.0/16", 3) == ["10.60.0.0/20", "10.60.16.0/20", "10.60.32.0/20"]
    assert vswitch_cidrs("192.168.0.0/27", 2) == ["192.168.0.0/29", "192.168.0.8/29"]


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({}, "give either vpc_cidr"),
        ({"vpc_cidr": "10.0.0.0/16", "vswitch_ids": ["vsw-a"]}, "give either vpc_cidr"),
        ({"vpc_cidr": "10.0.0.0/16"}, "zones: a new VPC needs at least one zone"),
        ({"vswitch_ids": ["vsw-a"], "egress": "nat"}, "egress: nat is for a new VPC"),
    ],
)
def test_bad_arguments_are_refused(changes: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        AlicloudNetworkArgs(tags=TAGS, **changes)  # type: ignore[arg-type]
