"""GF-ACC-003 on Alibaba Cloud (Cloud Assistant, preinstalled on ECS public images): Session Manager is a
per-account/region switch. GPU ECS instances, instance sets, ESS scaling groups and ACK node pools pass
when the stack enables `alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus` (status Enabled);
a single instance also passes when a Cloud Assistant `alicloud:ecs/ecsInvocation:EcsInvocation` targets
it (commands run through the agent).
"""

from __future__ import annotations

from functools import partial

from pulumi_policy import PolicyResource, ReportViolation
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.alicloud import ALI_INSTANCE, ALI_INSTANCE_SET, ALI_NODE_POOL, ALI_SCALING_GROUP
from gpufleet.policies.props import is_unknown

ALI_SESSION_MANAGER = "alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus"
ALI_INVOCATION = "alicloud:ecs/ecsInvocation:EcsInvocation"

SUBJECTS = (ALI_INSTANCE, ALI_INSTANCE_SET, ALI_SCALING_GROUP, ALI_NODE_POOL)
DESCRIPTION = "Alibaba Cloud Assistant"
REMEDIATION = (
    "Alibaba: add alicloud.ecs.EcsSessionManagerStatus with `sessionManagerStatusName: sessionManagerStatus` "
    "and `status: Enabled`."
)


def judge_stack(index: c.ComputeIndex, report: ReportViolation) -> None:
    """Judge the GPU instances and groups of the stack."""
    subjects = index.of_type(*SUBJECTS)
    if not subjects:
        return
    statuses = [index.p(s).get("status") for s in index.of_type(ALI_SESSION_MANAGER)]
    enabled = any(isinstance(s, str) and s.lower() == "enabled" for s in statuses)
    unknown = [s for s in statuses if is_unknown(s)]
    invoked: set[str] = set()
    for invocation in index.of_type(ALI_INVOCATION):
        instances, _ = index.follow(invocation, c.Link(("instanceIds.*",), "instanceIds", (ALI_INSTANCE,)))
        invoked.update(instance.urn for instance in instances)

    def judge(resource: PolicyResource) -> None:
        if enabled or resource.urn in invoked or not index.is_gpu(resource):
            return
        if unknown:
            raise UnknownValueError(str(unknown[0]), ["status"])
        report(
            f"{index.describe(resource)} is not reachable by Session Manager: enable it with "
            "alicloud.ecs.EcsSessionManagerStatus (status Enabled) in this stack",
            resource.urn,
        )

    for resource in subjects:
        c.judge_resource(report, resource.urn, partial(judge, resource))
