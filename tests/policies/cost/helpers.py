"""Builders for cost-policy tests: the shared builders, resources with explicit providers and
property dependencies, a small fixed catalogue and compliant GPU pools per cloud."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import PolicyProviderResource, PolicyResource

from gpufleet.policies.gpu import cloud_of
from gpufleet.policies.rule import GfResourcePolicy
from tests.policies import support
from tests.policies.support import UNKNOWN_NUMBER_VALUE, UNKNOWN_STRING_VALUE, unknown_checking_proxy
from tests.policies.support import run_stack as check_stack

UNKNOWN_STR = UNKNOWN_STRING_VALUE
UNKNOWN_NUM = UNKNOWN_NUMBER_VALUE

__all__ = [
    "UNKNOWN_NUM",
    "UNKNOWN_STR",
    "FakeCatalog",
    "check_resource",
    "check_stack",
    "provider",
    "res",
    "unknown_checking_proxy",
]


def provider(cloud: str, props: Mapping[str, Any]) -> PolicyProviderResource:
    return support.provider(cloud, props, name=cloud)


def _provider_of(resource_type: str, props: Mapping[str, Any] | None) -> PolicyProviderResource | None:
    return None if props is None else provider(cloud_of(resource_type), props)


def res(
    resource_type: str,
    name: str,
    props: Mapping[str, Any] | None = None,
    *,
    deps: Mapping[str, Sequence[PolicyResource]] | None = None,
    stack: str = "dev",
    provider_props: Mapping[str, Any] | None = None,
    proxy: bool = False,
) -> PolicyResource:
    """A resource whose `deps` (input -> referenced resources) are also its dependencies, as the engine
    sends them; `provider_props` gives it an explicit provider of its cloud."""
    referenced = [r for value in (deps or {}).values() for r in value]
    return support.res(
        resource_type,
        name,
        props,
        stack=stack,
        deps=referenced,
        prop_deps=deps,
        prov=_provider_of(resource_type, provider_props),
        proxy=proxy,
    )


def check_resource(
    policy: GfResourcePolicy,
    resource_type: str,
    props: Mapping[str, Any],
    *,
    name: str = "r",
    provider_props: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    proxy: bool = False,
) -> list[str] | str:
    """Messages reported, or "n/a: reason" when the policy said it does not apply."""
    prov = _provider_of(resource_type, provider_props)
    return support.reason_or(
        lambda: support.run_resource(
            policy, resource_type, props, name=name, config=config, prov=prov, proxy=proxy
        ),
        "n/a",
    )


@dataclass(frozen=True)
class FakePrice:
    amount: float
    currency: str
    date: str = "2026-01-01"
    source: str = "test"


@dataclass(frozen=True)
class FakeType:
    name: str
    gpu_class: str
    gpu_count: int
    on_demand: Mapping[str, FakePrice]
    spot_discount: float = 0.6
    vcpu: int = 8

    def hourly(self, region: str, *, spot: bool = False) -> FakePrice:
        price = self.on_demand[region]
        return FakePrice(price.amount * (0.4 if spot else 1.0), price.currency)


@dataclass
class FakeCatalog:
    entries: dict[tuple[str, str], FakeType] = field(default_factory=dict)

    @classmethod
    def default(cls) -> FakeCatalog:
        catalog = cls()
        catalog.add("aws", "g5.2xlarge", "A10G", 1, {"us-east-1": 1.0, "eu-west-1": 1.2})
        # Dearer per vCPU than g5.2xlarge (0.15 against 0.125 USD): the worst case of a Batch g5 family.
        catalog.add("aws", "g5.12xlarge", "A10G", 4, {"us-east-1": 7.2}, vcpu=48)
        catalog.add("aws", "g4dn.xlarge", "T4", 1, {"us-east-1": 0.5}, vcpu=4)
        catalog.add("aws", "p4d.24xlarge", "A100", 8, {"us-east-1": 30.0}, vcpu=96)
        catalog.add("aws", "m5.large", "", 0, {"us-east-1": 0.1}, vcpu=2)
        catalog.add("alicloud", "ecs.gn7i-c8g1.2xlarge", "A10", 1, {"cn-hangzhou": 7.2}, currency="CNY")
        catalog.add("tencentcloud", "GN7.2XLARGE32", "T4", 1, {"ap-guangzhou": 14.4}, currency="CNY")
        return catalog

    def add(
        self,
        cloud: str,
        name: str,
        gpu_class: str,
        count: int,
        prices: Mapping[str, float],
        *,
        currency: str = "USD",
        vcpu: int = 8,
    ) -> None:
        self.entries[(cloud, name)] = FakeType(
            name, gpu_class, count, {r: FakePrice(a, currency) for r, a in prices.items()}, vcpu=vcpu
        )

    def find(self, cloud: str, name: str) -> FakeType | None:
        return self.entries.get((cloud, name))

    def types(self, cloud: str | None = None) -> list[FakeType]:
        return [t for (c, _), t in self.entries.items() if cloud is None or c == cloud]

    def convert(self, amount: float, from_cur: str, to_cur: str) -> float:
        rates = {"USD": 1.0, "CNY": 7.2}
        return amount / rates[from_cur] * rates[to_cur]


# --- compliant dev GPU pools per cloud, one knob per test ---------------------------------------
AWS_ASG = "aws:autoscaling/group:Group"
AWS_LT = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_POLICY = "aws:autoscaling/policy:Policy"
AWS_ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
AWS_SCHEDULE = "aws:autoscaling/schedule:Schedule"


def aws_pool(
    *,
    instance_type: str = "g5.2xlarge",
    stack: str = "dev",
    group: Mapping[str, Any] | None = None,
    spot: bool = True,
    out_alarm: Mapping[str, Any] | None = None,
    in_alarm: Mapping[str, Any] | None = None,
    out_policy: Mapping[str, Any] | None = None,
    in_policy: Mapping[str, Any] | None = None,
    schedule: bool = True,
    scaling: bool = True,
) -> list[PolicyResource]:
    """An AWS GPU auto scaling group with its launch template, scale-out/in policies and alarms, and a
    night schedule to zero: compliant with GF-COST-003..007 in dev."""
    lt_props: dict[str, Any] = {"instanceType": instance_type}
    if spot:
        lt_props["instanceMarketOptions"] = {"marketType": "spot"}
    lt = res(AWS_LT, "gpu-lt", lt_props, stack=stack)
    asg = res(
        AWS_ASG,
        "gpu",
        {
            "minSize": 0,
            "maxSize": 4,
            "region": "us-east-1",
            "launchTemplate": {"id": UNKNOWN_STR, "version": "$Latest"},
            **(group or {}),
        },
        deps={"launchTemplate": [lt]},
        stack=stack,
    )
    resources = [lt, asg]
    if scaling:
        out = res(
            AWS_POLICY,
            "gpu-out",
            {
                "autoscalingGroupName": UNKNOWN_STR,
                "scalingAdjustment": 1,
                "cooldown": 300,
                **(out_policy or {}),
            },
            deps={"autoscalingGroupName": [asg]},
            stack=stack,
        )
        inn = res(
            AWS_POLICY,
            "gpu-in",
            {
                "autoscalingGroupName": UNKNOWN_STR,
                "scalingAdjustment": -1,
                "cooldown": 300,
                **(in_policy or {}),
            },
            deps={"autoscalingGroupName": [asg]},
            stack=stack,
        )
        high = res(
            AWS_ALARM,
            "gpu-high",
            {
                "comparisonOperator": "GreaterThanThreshold",
                "threshold": 70,
                "period": 60,
                "evaluationPeriods": 5,
                "metricName": "GPUUtilization",
                "alarmActions": [UNKNOWN_STR],
                **(out_alarm or {}),
            },
            deps={"alarmActions": [out]},
            stack=stack,
        )
        low = res(
            AWS_ALARM,
            "gpu-low",
            {
                "comparisonOperator": "LessThanThreshold",
                "threshold": 30,
                "period": 300,
                "evaluationPeriods": 6,
                "metricName": "GPUUtilization",
                "alarmActions": [UNKNOWN_STR],
                **(in_alarm or {}),
            },
            deps={"alarmActions": [inn]},
            stack=stack,
        )
        resources += [out, inn, high, low]
    if schedule:
        resources.append(
            res(
                AWS_SCHEDULE,
                "gpu-night",
                {
                    "autoscalingGroupName": UNKNOWN_STR,
                    "minSize": 0,
                    "maxSize": 0,
                    "desiredCapacity": 0,
                    "recurrence": "0 20 * * 1-5",
                },
                deps={"autoscalingGroupName": [asg]},
                stack=stack,
            )
        )
    return resources


def ali_pool(
    *,
    instance_type: str = "ecs.gn7i-c8g1.2xlarge",
    stack: str = "dev",
    group: Mapping[str, Any] | None = None,
    spot_strategy: str = "SpotAsPriceGo",
    alarm: Mapping[str, Any] | None = None,
    rule: Mapping[str, Any] | None = None,
) -> list[PolicyResource]:
    grp = res(
        "alicloud:ess/scalingGroup:ScalingGroup",
        "grp",
        {"minSize": 0, "maxSize": 4, **(group or {})},
        stack=stack,
        provider_props={"region": "cn-hangzhou"},
    )
    cfg = res(
        "alicloud:ess/scalingConfiguration:ScalingConfiguration",
        "cfg",
        {"scalingGroupId": UNKNOWN_STR, "instanceType": instance_type, "spotStrategy": spot_strategy},
        deps={"scalingGroupId": [grp]},
        stack=stack,
    )
    inn = res(
        "alicloud:ess/scalingRule:ScalingRule",
        "scale-in",
        {
            "scalingGroupId": UNKNOWN_STR,
            "adjustmentType": "QuantityChangeInCapacity",
            "adjustmentValue": -1,
            "cooldown": 300,
            **(rule or {}),
        },
        deps={"scalingGroupId": [grp]},
        stack=stack,
    )
    idle = res(
        "alicloud:ess/alarm:Alarm",
        "idle",
        {
            "alarmActions": [UNKNOWN_STR],
            "scalingGroupId": UNKNOWN_STR,
            "metricName": "GpuUtilizationAgent",
            "threshold": "30",
            "comparisonOperator": "<=",
            "period": 300,
            "evaluationCount": 6,
            **(alarm or {}),
        },
        deps={"alarmActions": [inn], "scalingGroupId": [grp]},
        stack=stack,
    )
    return [grp, cfg, inn, idle]


def tc_pool(
    *,
    instance_type: str = "GN7.2XLARGE32",
    stack: str = "dev",
    charge: str = "SPOTPAID",
    group: Mapping[str, Any] | None = None,
    schedule: bool = True,
    policy: Mapping[str, Any] | None = None,
) -> list[PolicyResource]:
    cfg = res(
        "tencentcloud:As/scalingConfig:ScalingConfig",
        "cfg",
        {"instanceTypes": [instance_type], "instanceChargeType": charge},
        stack=stack,
    )
    grp = res(
        "tencentcloud:As/scalingGroup:ScalingGroup",
        "grp",
        {"minSize": 0, "maxSize": 2, "configurationId": UNKNOWN_STR, **(group or {})},
        deps={"configurationId": [cfg]},
        stack=stack,
        provider_props={"region": "ap-guangzhou"},
    )
    out = res(
        "tencentcloud:As/scalingPolicy:ScalingPolicy",
        "out",
        {
            "scalingGroupId": UNKNOWN_STR,
            "adjustmentType": "CHANGE_IN_CAPACITY",
            "adjustmentValue": 1,
            "comparisonOperator": "GREATER_THAN",
            "metricName": "CPU_UTILIZATION",
            "threshold": 80,
            "period": 300,
            "continuousTime": 1,
            **(policy or {}),
        },
        deps={"scalingGroupId": [grp]},
        stack=stack,
    )
    resources = [cfg, grp, out]
    if schedule:
        resources.append(
            res(
                "tencentcloud:As/schedule:Schedule",
                "night",
                {
                    "scalingGroupId": UNKNOWN_STR,
                    "desiredCapacity": 0,
                    "minSize": 0,
                    "maxSize": 0,
                    "startTime": "2026-01-01T20:00:00+08:00",
                    "recurrence": "0 20 * * *",
                },
                deps={"scalingGroupId": [grp]},
                stack=stack,
            )
        )
    return resources
