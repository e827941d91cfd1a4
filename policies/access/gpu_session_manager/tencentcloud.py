"""GF-ACC-003 on Tencent Cloud (TAT, preinstalled on CVM public images): GPU CVM instances, instance sets,
AS launch configurations and TKE node pools (whose `autoScalingConfig` has no agent switch) pass when
they keep the automation agent (`disableAutomationService` not true; `enhancedAutomationToolsService`
not false; launch template `enhancedService.automationService.enabled` not false) and the stack
operates through TAT (`Tat/command`, `Tat/invoker`, `Tat/invocation*Attachment`, or an
`As/lifecycleHook` with a `lifecycleCommand`).
"""

from __future__ import annotations

from functools import partial

from pulumi_policy import PolicyResource, ReportViolation
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.tencentcloud import (
    TC_INSTANCE,
    TC_INSTANCE_SET,
    TC_LAUNCH_TEMPLATE,
    TC_NODE_POOL,
    TC_SCALING_CONFIG,
)
from gpufleet.policies.props import is_unknown, truthy

TC_TAT = (
    "tencentcloud:Tat/command:Command",
    "tencentcloud:Tat/invoker:Invoker",
    "tencentcloud:Tat/invocationInvokeAttachment:InvocationInvokeAttachment",
    "tencentcloud:Tat/invocationCommandAttachment:InvocationCommandAttachment",
)
TC_LIFECYCLE_HOOK = "tencentcloud:As/lifecycleHook:LifecycleHook"

SUBJECTS = (TC_INSTANCE, TC_INSTANCE_SET, TC_SCALING_CONFIG, TC_LAUNCH_TEMPLATE, TC_NODE_POOL)
DESCRIPTION = "Tencent TAT"
REMEDIATION = (
    "Tencent: keep the TAT agent (do not set `disableAutomationService`) and operate instances through "
    "tencentcloud.tat Command/Invoker (or an As LifecycleHook `lifecycleCommand` for scaling groups)."
)


_TC_AGENT_OFF = {
    TC_INSTANCE: ("disableAutomationService", True),
    TC_INSTANCE_SET: ("disableAutomationService", True),
    TC_SCALING_CONFIG: ("enhancedAutomationToolsService", False),
    TC_LAUNCH_TEMPLATE: ("enhancedService.automationService.enabled", False),
}


def judge_stack(index: c.ComputeIndex, report: ReportViolation) -> None:
    """Judge the GPU launchers of the stack."""
    subjects = index.of_type(*SUBJECTS)
    if not subjects:
        return
    uses_tat = bool(index.of_type(*TC_TAT)) or any(
        c.values_at(index.p(hook), "lifecycleCommand.commandId") for hook in index.of_type(TC_LIFECYCLE_HOOK)
    )

    def judge(resource: PolicyResource) -> None:
        path, off_value = _TC_AGENT_OFF.get(resource.resource_type, ("", None))
        values = c.values_at(index.p(resource), path) if path else []
        for value in values:
            if is_unknown(value):
                raise UnknownValueError(value, [path])
        agent_off = any(truthy(v) == off_value for v in values)
        if not agent_off and uses_tat:
            return
        if not index.is_gpu(resource):
            return
        what = index.describe(resource)
        if agent_off:
            report(
                f"{what} turns the TAT automation agent off ({path} is {str(values[0]).lower()}); keep it "
                "on so the instance is reachable without SSH",
                resource.urn,
            )
        else:
            report(
                f"{what} is not operated through TAT: this stack has no tencentcloud.tat Command or Invoker "
                "(or scaling-group lifecycle command); use TAT instead of SSH",
                resource.urn,
            )

    for resource in subjects:
        c.judge_resource(report, resource.urn, partial(judge, resource))
