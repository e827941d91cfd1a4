"""Pools whose GPUs or scaling are given indirectly: attribute-based instance selection on an ASG,
and spot fleet requests scaled through Application Auto Scaling."""

from __future__ import annotations

from typing import Any

from gpufleet.policies.cost import nonprod_off_hours, nonprod_spot_share
from gpufleet.policies.cost.pools import Pool, discover_pools
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_APPAS_POLICY,
    AWS_APPAS_SCHEDULED_ACTION,
    AWS_APPAS_TARGET,
    AWS_ASG,
    AWS_LAUNCH_TEMPLATE,
    AWS_SPOT_FLEET,
    SPOT_FLEET_DIMENSION,
)

from .helpers import FakeCatalog, check_stack, res


def _asg(accelerators: list[str], on_demand_pct: int = 0) -> Any:
    lt = res(AWS_LAUNCH_TEMPLATE, "batch-lt", {"imageId": "ami-1"})
    return res(
        AWS_ASG,
        "batch",
        {
            "minSize": 0,
            "maxSize": 4,
            "tags": [{"key": "env", "value": "dev", "propagateAtLaunch": True}],
            "mixedInstancesPolicy": {
                "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": on_demand_pct},
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateId": "lt-1", "version": "$Latest"},
                    "overrides": [
                        {
                            "instanceRequirements": {
                                "vcpuCount": {"min": 4},
                                "memoryMib": {"min": 16384},
                                "acceleratorTypes": ["gpu"],
                                "acceleratorNames": accelerators,
                            }
                        }
                    ],
                },
            },
        },
        deps={"mixedInstancesPolicy": [lt]},
    )


def _pools(resources: list[Any]) -> list[Pool]:
    return discover_pools(resources, FakeCatalog.default())


def test_asg_selecting_gpus_by_accelerator_name_is_a_gpu_pool() -> None:
    (pool,) = _pools([_asg(["t4", "A10G"])])
    assert pool.name == "batch"
    assert pool.instance_types == ("g4dn.xlarge", "g5.xlarge")
    assert pool.spot_percent == 100.0


def test_on_demand_attribute_based_gpu_pool_fails_the_spot_share() -> None:
    found = check_stack(nonprod_spot_share.POLICY, [_asg(["a10g"], on_demand_pct=100)])
    assert found == [
        (
            "Auto Scaling group 'batch' (dev) runs 0% of its capacity on spot; dev pools need at least 100%",
            "urn:pulumi:dev::gpufleet::aws:autoscaling/group:Group::batch",
        )
    ]


def test_asg_without_accelerator_names_is_a_gpu_pool_of_unknown_class() -> None:
    (pool,) = _pools([_asg([])])
    assert (pool.name, pool.instance_types, pool.gpu_class_unknown) == ("batch", (), True)


def _spot_fleet_stack(*, night_max: int | None, dimension: str = SPOT_FLEET_DIMENSION) -> list[Any]:
    fleet = res(
        AWS_SPOT_FLEET,
        "sweeps",
        {
            "targetCapacity": 2,
            "iamFleetRole": "arn:aws:iam::111122223333:role/fleet",
            "launchSpecifications": [{"instanceType": "g5.xlarge", "ami": "ami-1"}],
            "tags": {"env": "dev"},
        },
    )
    target = res(
        AWS_APPAS_TARGET,
        "sweeps",
        {
            "serviceNamespace": "ec2",
            "scalableDimension": dimension,
            "resourceId": "spot-fleet-request/sfr-123",
            "minCapacity": 0,
            "maxCapacity": 2,
        },
        deps={"resourceId": [fleet]},
    )
    resources = [fleet, target]
    if night_max is not None:
        resources.append(
            res(
                AWS_APPAS_SCHEDULED_ACTION,
                "sweeps-night",
                {
                    "serviceNamespace": "ec2",
                    "scalableDimension": dimension,
                    # A literal resourceId joins the action to its target without a dependency.
                    "resourceId": "spot-fleet-request/sfr-123",
                    "schedule": "cron(0 20 * * ? *)",
                    "scalableTargetAction": {"minCapacity": 0, "maxCapacity": night_max},
                },
            )
        )
    return resources


def test_spot_fleet_scheduled_to_zero_by_application_auto_scaling_passes() -> None:
    (pool,) = _pools(_spot_fleet_stack(night_max=0))
    assert [s.name for s in pool.schedules] == ["sweeps-night"]
    assert pool.scheduled_to_zero
    assert check_stack(nonprod_off_hours.POLICY, _spot_fleet_stack(night_max=0)) == []


def test_spot_fleet_scheduled_action_that_keeps_capacity_fails() -> None:
    assert check_stack(nonprod_off_hours.POLICY, _spot_fleet_stack(night_max=1)) == [
        (
            "EC2 spot fleet request 'sweeps' (dev) runs around the clock: it cannot scale to zero off-hours; "
            "run it in a scaling group with an off-hours schedule or idle scale-in",
            "urn:pulumi:dev::gpufleet::aws:ec2/spotFleetRequest:SpotFleetRequest::sweeps",
        )
    ]


def test_application_auto_scaling_of_another_dimension_is_not_the_fleets() -> None:
    (pool,) = _pools(_spot_fleet_stack(night_max=0, dimension="ecs:service:DesiredCount"))
    assert pool.schedules == ()


def test_spot_fleet_target_tracking_scale_in_passes() -> None:
    resources = _spot_fleet_stack(night_max=None)
    resources.append(
        res(
            AWS_APPAS_POLICY,
            "sweeps-gpu",
            {
                "policyType": "TargetTrackingScaling",
                "resourceId": "spot-fleet-request/sfr-123",
                "scalableDimension": SPOT_FLEET_DIMENSION,
                "targetTrackingScalingPolicyConfiguration": {
                    "targetValue": 60,
                    "customizedMetricSpecification": {"metricName": "nvidia_smi_utilization_gpu"},
                },
            },
            deps={"resourceId": [resources[1]]},
        )
    )
    (pool,) = _pools(resources)
    assert pool.scales_in
    assert check_stack(nonprod_off_hours.POLICY, resources) == []
