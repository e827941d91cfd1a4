"""Alibaba and Tencent pool readings found wrong on raw-SDK programs: unfired scale-in rules, NoSpot
configurations under a cost-optimised group, and spot settings unknown at preview."""

from __future__ import annotations

from gpufleet.policies.cost import nonprod_off_hours, nonprod_spot_share

from .helpers import UNKNOWN_STR, ali_pool, check_stack, tc_pool


def test_ess_scale_in_rule_without_alarm_task_is_not_idle_scale_in() -> None:
    # Without the alarm task nothing fires the rule: it runs only when executed by hand.
    group, config, scale_in, _alarm = ali_pool()
    assert [m for m, _ in check_stack(nonprod_off_hours.POLICY, [group, config, scale_in])] == [
        "ESS scaling group 'grp' (dev) has no off-hours schedule to zero and no scale-in policy; add a "
        "scheduled action to zero or a scale-in policy on idle GPUs"
    ]
    assert check_stack(nonprod_off_hours.POLICY, ali_pool()) == []


def test_ess_target_tracking_rule_scales_in_without_alarm() -> None:
    group, config, _scale_in, _alarm = ali_pool()
    tracking = ali_pool(rule={"scalingRuleType": "TargetTrackingScalingRule", "targetValue": 60})[2]
    assert check_stack(nonprod_off_hours.POLICY, [group, config, tracking]) == []


def test_nospot_configuration_in_cost_optimized_group_is_on_demand() -> None:
    group_props = {
        "multiAzPolicy": "COST_OPTIMIZED",
        "onDemandBaseCapacity": 0,
        "onDemandPercentageAboveBaseCapacity": 0,
    }
    assert check_stack(nonprod_spot_share.POLICY, ali_pool(group=group_props)) == []
    stack = ali_pool(group=group_props, spot_strategy="NoSpot")
    assert check_stack(nonprod_spot_share.POLICY, stack) == [
        (
            "ESS scaling group 'grp' (dev) runs 0% of its capacity on spot; dev pools need at least 100%",
            stack[0].urn,
        )
    ]


def test_unknown_spot_strategy_is_not_judged() -> None:
    stack = ali_pool(spot_strategy=UNKNOWN_STR)
    assert check_stack(nonprod_spot_share.POLICY, stack) == [
        (
            "could not be judged at preview: the string value at .cfg.spotStrategy can't be known during "
            "preview",
            stack[0].urn,
        )
    ]


def test_unknown_tencent_charge_type_is_not_judged() -> None:
    stack = tc_pool(charge=UNKNOWN_STR)
    [(message, _)] = check_stack(nonprod_spot_share.POLICY, stack)
    assert message.startswith("could not be judged at preview")
    assert "instanceChargeType" in message
