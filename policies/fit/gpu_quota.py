"""GF-FIT-001: the quotas the stack's GPU pools draw on cover them at their maximum size.

Every GPU pool at its maximum size, filled with its largest type, split into on-demand and spot
capacity as the pool buys it (an on-demand base, then the on-demand share of the rest), is counted
against the quota its family draws on in its region: AWS G and VT families on L-DB2E81BA (on-demand)
and L-3819A6DF (spot), P families on L-417A185B and L-7212CCBC; Alibaba Cloud on its region's
pay-as-you-go and preemptible vCPU quotas (`max-postpaid-instance-vcpu-count`,
`max-spot-instance-vcpu-count`); Tencent Cloud on its pay-as-you-go and spot instance quotas
(`PostPaidQuotaSet`, `SpotPaidQuotaSet`, counted in instances). Pools of one region add up. The quotas
are read from the rule's `quotas` config, keyed `cloud:region` then quota code: `gpufleet check` fills
it from the stack's `gpufleet:quotas` config (inline numbers, or a file the cloud's CLI wrote: `aws
service-quotas list-service-quotas --service-code ec2`, `aliyun ecs DescribeAccountAttributes`,
`tccli cvm DescribeAccountQuota`), and `gpufleet preflight` reads the real ones with the user's
credentials. A quota that is not declared is not judged; a declared one below the need is a launch that
will fail (AWS `VcpuLimitExceeded`, `MaxSpotInstanceCountExceeded`; a quota error on the other clouds)
once the pool scales that far.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import profile
from gpufleet.policies.cost._common import fmt, stack_pools
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.fit._facts import fragments, parts, rule_url
from gpufleet.policies.fit.quotas import declared, needs
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.rule import GfStackPolicy, Rule, judges

# What each cloud's quotas count where it is not vCPUs, how to ask for more, and an example entry (each
# cloud module's `QUOTA_UNIT`, `QUOTA_REQUEST`, `QUOTA_EXAMPLE`).
_UNITS = "; ".join(["vCPUs", *(f"{profile(k).name}: {unit}" for k, unit in fragments("QUOTA_UNIT").items())])
_REQUESTS = "; ".join(f"{profile(k).name}: {how}" for k, how in fragments("QUOTA_REQUEST").items())
(_EXAMPLE,) = fragments("QUOTA_EXAMPLE").values()

RULE = Rule(
    id="GF-FIT-001",
    name="gpu-quota-covers-max-size",
    description=(
        f"The GPU quotas ({_UNITS}) of each region and purchase option cover every pool at its maximum size."
    ),
    clouds=tuple(parts()),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        f"Request a quota increase before deploying ({_REQUESTS}), or lower the "
        "pools' maximum sizes or move spot capacity to "
        "a quota that has room."
    ),
    url=rule_url("GF-FIT-001"),
    config={
        "quotas": {
            "type": "object",
            "default": {},
            "description": (f"quotas by `cloud:region` then quota code, e.g. {_EXAMPLE}"),
        }
    },
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    quotas = declared(RULE.settings(args)["quotas"])
    if not quotas:
        return
    pools, _ = stack_pools(args)
    found, _unsized = needs(pools, current_catalog())
    urns = {pool.name: pool.urn for pool in pools}
    for need in found:
        quota = quotas.get((need.site, need.code))
        if quota is None or need.vcpus <= quota:
            continue
        first = need.pools[0].split(" ", 1)[0]
        report(
            f"{need.site} quota {need.code} ({need.name}) allows {fmt(quota)} {need.unit}; the pools "
            f"need {need.vcpus} at their maximum size ({'; '.join(need.pools)}): launches beyond "
            f"{fmt(quota)} {need.unit} fail",
            urns.get(first),
        )


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
