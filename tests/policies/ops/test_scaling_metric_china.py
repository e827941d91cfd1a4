"""GF-OPS-001 on Alibaba Cloud (ESS alarms, the CloudMonitor agent, custom metrics) and Tencent Cloud
(Cloud Monitor alarm policies and AS scaling policies, the monitor agent)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from gpufleet.policies.ops.scaling_metric_published import POLICY
from tests.policies.verdicts import node, verdicts

from .helpers import res, run_stack

# --- Alibaba Cloud -----------------------------------------------------------------------------


def ess(
    metric: str,
    metric_type: str = "system",
    image: str = "ubuntu_22_04_x64_20G_alibase_20240130.vhd",
    user_data: str = "",
) -> list[Any]:
    group = res("alicloud:ess/scalingGroup:ScalingGroup", "pool", {"scalingGroupName": "pool"})
    config = res(
        "alicloud:ess/scalingConfiguration:ScalingConfiguration",
        "pool-config",
        {"scalingGroupId": "pool", "imageId": image, "userData": user_data},
        prop_deps={"scalingGroupId": [group]},
    )
    alarm = res(
        "alicloud:ess/alarm:Alarm",
        "pool-busy",
        {
            "scalingGroupId": "pool",
            "metricType": metric_type,
            "metricName": metric,
            "alarmActions": ["ari:acs:ess:x:1:scalingrule/r"],
        },
        prop_deps={"scalingGroupId": [group]},
    )
    return [group, config, alarm]


def test_alibaba_agent_metric_on_a_public_image_passes() -> None:
    assert run_stack(POLICY, ess("GpuUtilizationAgent")) == []
    assert run_stack(POLICY, ess("CpuUtilization", image="m-custom")) == []


def test_alibaba_agent_metric_on_a_custom_image() -> None:
    stack = ess("GpuUtilizationAgent", image="m-bp1gpu")
    assert run_stack(POLICY, stack) == [
        (
            "could not be judged: ESS alarm 'pool-busy' scales on GpuUtilizationAgent, read by the "
            "CloudMonitor agent; whether custom image 'm-bp1gpu' of 'pool-config' runs the agent cannot be "
            "told from the stack: install it in user data or list 'GpuUtilizationAgent' in "
            "published_namespaces",
            stack[2].urn,
        )
    ]
    installs = "#!/bin/bash\nbash cloudmonitor_install.sh\n"
    assert run_stack(POLICY, ess("GpuUtilizationAgent", image="m-bp1gpu", user_data=installs)) == []


def test_alibaba_custom_metric_needs_an_uploader() -> None:
    stack = ess("QueueDepth", metric_type="custom")
    assert [m for m, _ in run_stack(POLICY, stack)] == [
        "ESS alarm 'pool-busy' scales on custom metric QueueDepth, which nothing in the stack may upload "
        "(no RAM policy allows cms:PutCustomMetric): the alarm never fires; grant the uploader "
        "cms:PutCustomMetric, or list 'QueueDepth' in published_namespaces if it is published outside"
    ]
    uploader = res(
        "alicloud:ram/policy:Policy",
        "uploader",
        {
            "policyDocument": json.dumps(
                {
                    "Version": "1",
                    "Statement": [{"Effect": "Allow", "Action": ["cms:PutCustomMetric"], "Resource": ["*"]}],
                }
            )
        },
    )
    assert run_stack(POLICY, [*stack, uploader]) == []


# --- Tencent Cloud -----------------------------------------------------------------------------


def tencent(monitor: bool | None) -> list[Any]:
    config_props: dict[str, Any] = {"configurationName": "gpu"}
    if monitor is not None:
        config_props["enhancedMonitorService"] = monitor
    config = res("tencentcloud:As/scalingConfig:ScalingConfig", "gpu-config", config_props)
    group = res(
        "tencentcloud:As/scalingGroup:ScalingGroup",
        "gpu-group",
        {"configurationId": "asc-1", "scalingGroupName": "gpu-group"},
        prop_deps={"configurationId": [config]},
    )
    alarm = res(
        "tencentcloud:Monitor/alarmPolicy:AlarmPolicy",
        "gpu-busy",
        {
            "namespace": "cvm_device",
            "conditions": {"rules": [{"metricName": "GpuUtil", "operator": "gt", "value": "70"}]},
            "triggerTasks": [{"type": "AS", "taskConfig": json.dumps({"Group": "gpu-group"})}],
        },
        prop_deps={"triggerTasks": [group]},
    )
    return [config, group, alarm]


def test_tencent_agent_on_by_default() -> None:
    assert run_stack(POLICY, tencent(None)) == []
    assert run_stack(POLICY, tencent(True)) == []


def test_tencent_agent_turned_off() -> None:
    stack = tencent(False)
    assert run_stack(POLICY, stack) == [
        (
            "alarm policy 'gpu-busy' scales on cvm_device GpuUtil, reported by the Cloud Monitor agent, but "
            "scaling configuration 'gpu-config' turns the agent off (enhancedMonitorService false): the "
            "alarm never fires; turn it on",
            stack[2].urn,
        )
    ]


def test_tencent_scaling_policy_memory_metric_needs_the_agent() -> None:
    config, group, _ = tencent(False)
    policy = res(
        "tencentcloud:As/scalingPolicy:ScalingPolicy",
        "mem-high",
        {"scalingGroupId": "g", "metricName": "MEM_UTILIZATION"},
        prop_deps={"scalingGroupId": [group]},
    )
    traffic = res(
        "tencentcloud:As/scalingPolicy:ScalingPolicy",
        "lan-out",
        {"scalingGroupId": "g", "metricName": "LAN_TRAFFIC_OUT"},
        prop_deps={"scalingGroupId": [group]},
    )
    assert [urn for _, urn in run_stack(POLICY, [config, group, policy, traffic])] == [policy.urn]


def test_tencent_unknown_namespace_cannot_be_judged() -> None:
    stack = tencent(True)
    stack[2].props["namespace"] = "QCE/CKAFKA"
    [(message, _)] = run_stack(POLICY, stack)
    assert message.startswith("could not be judged: alarm policy 'gpu-busy' scales on namespace QCE/CKAFKA")
    assert run_stack(POLICY, stack, {"published_namespaces": ["QCE/CKAFKA"]}) == []


# --- CloudMonitor alarm rules whose target is a scaling rule -----------------------------------


def cms(project: str, metric: str, image: str = "ubuntu_22_04_x64_20G_alibase_20240130.vhd") -> list[Any]:
    group, config, _ = ess("GpuUtilizationAgent", image=image)
    group.props["id"] = "asg-bp1gpu"
    target = "acs:ess:cn-hangzhou:1234567890:scalingGroupId/asg-bp1gpu:scalingRuleId/asr-bp1out"
    alarm = res(
        "alicloud:cms/alarm:Alarm",
        "gpu-hot",
        {
            "project": project,
            "metric": metric,
            "targets": [{"targetId": "1", "arn": target, "level": "Warn"}],
        },
    )
    return [group, config, alarm]


def test_cloudmonitor_rule_on_an_agent_metric_of_a_public_image_passes() -> None:
    assert run_stack(POLICY, cms("acs_ecs_dashboard", "gpu_gpu_usedutilization")) == []
    assert run_stack(POLICY, cms("acs_ecs_dashboard", "CPUUtilization", image="m-bp1custom")) == []


def test_cloudmonitor_rule_on_an_agent_metric_of_a_custom_image() -> None:
    stack = cms("acs_ecs_dashboard", "gpu_gpu_usedutilization", image="m-bp1custom")
    assert run_stack(POLICY, stack) == [
        (
            "could not be judged: CloudMonitor alarm 'gpu-hot' scales on gpu_gpu_usedutilization, read by "
            "the CloudMonitor agent; whether custom image 'm-bp1custom' of 'pool-config' runs the agent "
            "cannot be told from the stack: install it in user data or list 'gpu_gpu_usedutilization' in "
            "published_namespaces",
            stack[2].urn,
        )
    ]


def test_cloudmonitor_rule_naming_the_rule_by_its_ari_still_scales_the_group() -> None:
    # CloudMonitor wants acs:ess:...:scalingGroupId/..:scalingRuleId/..; a program that names the rule
    # by its ari (what ESS alarm tasks take) still means to scale the rule's group, and is judged so.
    group, config, alarm = cms("acs_ecs_dashboard", "gpu_gpu_usedutilization", image="m-bp1custom")
    rule = res(
        "alicloud:ess/scalingRule:ScalingRule",
        "pool-scale-out",
        {"scalingGroupId": "asg-bp1gpu", "id": "asr-bp1out"},
        prop_deps={"scalingGroupId": [group]},
    )
    alarm.props["targets"] = [
        {"targetId": "1", "arn": "ari:acs:ess:cn-hangzhou:1234567890:scalingrule/asr-bp1out"}
    ]
    [(message, _)] = run_stack(POLICY, [group, config, rule, alarm])
    assert message.startswith(
        "could not be judged: CloudMonitor alarm 'gpu-hot' scales on gpu_gpu_usedutilization, read by the "
        "CloudMonitor agent; whether custom image 'm-bp1custom' of 'pool-config' runs the agent"
    )


def test_cloudmonitor_rule_on_a_custom_metric_needs_an_uploader() -> None:
    stack = cms("acs_customMetric_1234567890", "PendingJobs")
    assert [m for m, _ in run_stack(POLICY, stack)] == [
        "CloudMonitor alarm 'gpu-hot' scales on custom metric PendingJobs, which nothing in the stack may "
        "upload (no RAM policy allows cms:PutCustomMetric): the alarm never fires; grant the uploader "
        "cms:PutCustomMetric, or list 'PendingJobs' in published_namespaces if it is published outside"
    ]


def test_cloudmonitor_rule_on_another_project_cannot_be_judged() -> None:
    stack = cms("acs_slb_dashboard", "ActiveConnection")
    [(message, _)] = run_stack(POLICY, stack)
    assert message.startswith("could not be judged: CloudMonitor alarm 'gpu-hot' scales on acs_slb_dashboard")
    assert run_stack(POLICY, stack, {"published_namespaces": ["acs_slb_dashboard"]}) == []


def test_cloudmonitor_rule_that_only_notifies_is_not_a_scaling_alarm() -> None:
    group, config, alarm = cms("acs_customMetric_1234567890", "PendingJobs")
    alarm.props["targets"] = [{"targetId": "1", "arn": "acs:mns:cn-hangzhou:1234567890:/queues/ops/message"}]
    ess_alarm = ess("CpuUtilization")[2]
    assert run_stack(POLICY, [group, config, alarm, ess_alarm]) == []


def test_alibaba_agent_installed_by_base64_user_data_is_seen() -> None:
    # ECS launch templates and scaling configurations take user data base64-encoded.
    installs = base64.b64encode(
        b'#!/bin/bash\nbash -c "$(curl -fsS https://cms-agent-cn-hangzhou.oss-cn-hangzhou-internal.aliyuncs.com/Argus/agent_install_ecs-1.7.sh)"\n'
    )
    assert run_stack(POLICY, ess("GpuUtilizationAgent", image="m-bp1gpu", user_data=installs.decode())) == []
    silent = base64.b64encode(b"#!/bin/bash\necho no agent here\n").decode()
    [(message, _)] = run_stack(POLICY, ess("GpuUtilizationAgent", image="m-bp1gpu", user_data=silent))
    assert "whether custom image 'm-bp1gpu' of 'pool-config' runs the agent cannot be told" in message


def mns_alarm(queue: str | None, *, with_queue: bool = True) -> list[Any]:
    stack = cms("acs_mns_new", "ActiveMessages")
    alarm = stack[2]
    if queue is not None:
        alarm.props["metricDimensions"] = json.dumps([{"queue": queue, "region": "cn-hangzhou"}])
    if with_queue:
        stack.append(res("alicloud:message/serviceQueue:ServiceQueue", "jobs", {"queueName": "gpu-jobs"}))
    return stack


def test_cloudmonitor_rule_on_an_mns_queue_of_the_stack_passes() -> None:
    assert run_stack(POLICY, mns_alarm("gpu-jobs")) == []
    assert run_stack(POLICY, mns_alarm(None)) == []


def test_cloudmonitor_rule_on_an_mns_queue_the_stack_lacks() -> None:
    assert [m for m, _ in run_stack(POLICY, mns_alarm("other-jobs"))] == [
        "CloudMonitor alarm 'gpu-hot' scales on acs_mns_new ActiveMessages of queue 'other-jobs', which the "
        "stack does not create: MNS publishes metrics only for a queue that exists; create the queue in the "
        "stack or list 'acs_mns_new' in published_namespaces"
    ]
    assert [m for m, _ in run_stack(POLICY, mns_alarm(None, with_queue=False))] == [
        "CloudMonitor alarm 'gpu-hot' scales on acs_mns_new ActiveMessages but the stack has no MNS queue"
    ]
    assert run_stack(POLICY, mns_alarm("other-jobs"), {"published_namespaces": ["acs_mns_new"]}) == []


# --- CloudMonitor's automatic agent install turned off -------------------------------------------

AGENT_CONFIG = "alicloud:cloudmonitor/serviceAgentConfig:ServiceAgentConfig"
PUBLIC_IMAGE = "ubuntu_22_04_x64_20G_alibase_20240130.vhd"
NO_AGENT = (
    "ESS alarm 'pool-busy' scales on GpuUtilizationAgent, read by the CloudMonitor agent, but CloudMonitor "
    "agent config 'cms-agent' turns off installing the agent on new ECS instances (enableInstallAgentNewEcs "
    "false) and the user data of 'pool-config' does not install it: GpuUtilizationAgent is never published "
    "and the alarm never fires; turn the automatic install on or install the agent in user data"
)


def _ess_pool(source_type: str, image: str = PUBLIC_IMAGE, user_data: str = "") -> list[Any]:
    group = node("alicloud:ess/scalingGroup:ScalingGroup", "pool", {"scalingGroupName": "pool"})
    launch = {"imageId": image, "userData": user_data}
    if source_type == "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate":
        source = node(source_type, "pool-config", launch)
        group = node(
            "alicloud:ess/scalingGroup:ScalingGroup",
            "pool",
            {"scalingGroupName": "pool", "launchTemplateId": "lt-1"},
            refs={"launchTemplateId": [source]},
        )
    else:
        source = node(
            source_type, "pool-config", {"scalingGroupId": "pool", **launch}, refs={"scalingGroupId": [group]}
        )
    alarm = node(
        "alicloud:ess/alarm:Alarm",
        "pool-busy",
        {"scalingGroupId": "pool", "metricType": "system", "metricName": "GpuUtilizationAgent"},
        refs={"scalingGroupId": [group]},
    )
    return [group, source, alarm]


def _agent_config(enabled: bool) -> Any:
    return node(AGENT_CONFIG, "cms-agent", {"enableInstallAgentNewEcs": enabled})


@pytest.mark.parametrize(
    "source_type",
    [
        "alicloud:ess/scalingConfiguration:ScalingConfiguration",
        "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
    ],
)
def test_alibaba_agent_install_turned_off_leaves_the_agent_metric_unpublished(source_type: str) -> None:
    stack = [_agent_config(False), *_ess_pool(source_type)]
    assert verdicts(POLICY, stack) == [("GF-OPS-001", "mandatory", NO_AGENT, "pool-busy")]


def test_alibaba_agent_install_on_or_done_in_user_data_passes() -> None:
    scaling = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
    assert verdicts(POLICY, [_agent_config(True), *_ess_pool(scaling)]) == []
    assert verdicts(POLICY, _ess_pool(scaling)) == []  # on unless turned off
    installs = base64.b64encode(b"#!/bin/bash\nbash cloudmonitor_install.sh\n").decode()
    assert verdicts(POLICY, [_agent_config(False), *_ess_pool(scaling, user_data=installs)]) == []
    # CPU utilisation comes from the hypervisor, not the agent.
    group, source, alarm = _ess_pool(scaling)
    alarm.inputs["metricName"] = "CpuUtilization"
    assert verdicts(POLICY, [_agent_config(False), group, source, alarm]) == []


def test_alibaba_agent_install_turned_off_on_a_custom_image_still_cannot_be_told() -> None:
    # A custom image may carry the agent itself: the automatic install says nothing about it.
    scaling = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
    [(rule, _, message, name)] = verdicts(
        POLICY, [_agent_config(False), *_ess_pool(scaling, image="m-bp1gpu")]
    )
    assert (rule, name) == ("GF-OPS-001", "pool-busy")
    assert "whether custom image 'm-bp1gpu' of 'pool-config' runs the agent cannot be told" in message


def test_cloudmonitor_rule_with_the_agent_install_turned_off() -> None:
    group, source, _ = _ess_pool("alicloud:ess/scalingConfiguration:ScalingConfiguration")
    target = "acs:ess:cn-hangzhou:1234567890:scalingGroupId/asg-bp1gpu:scalingRuleId/asr-bp1out"
    alarm = node(
        "alicloud:cms/alarm:Alarm",
        "gpu-hot",
        {"project": "acs_ecs_dashboard", "metric": "gpu_gpu_usedutilization", "targets": [{"arn": target}]},
        refs={"targets": [group]},
    )
    assert verdicts(POLICY, [_agent_config(False), group, source, alarm]) == [
        (
            "GF-OPS-001",
            "mandatory",
            "CloudMonitor alarm 'gpu-hot' scales on gpu_gpu_usedutilization, read by the CloudMonitor agent, "
            "but CloudMonitor agent config 'cms-agent' turns off installing the agent on new ECS instances "
            "(enableInstallAgentNewEcs false) and the user data of 'pool-config' does not install it: "
            "gpu_gpu_usedutilization is never published and the alarm never fires; turn the automatic "
            "install on or install the agent in user data",
            "gpu-hot",
        )
    ]
    assert verdicts(POLICY, [_agent_config(True), group, source, alarm]) == []
