"""GF-COST-003: GPU instance types are in the allowed list for the stack's environment.

Every GPU pool of the pool model (AWS auto scaling groups, fleets, spot fleets, EKS node groups,
Batch compute environments, instances and spot requests; Alibaba ESS scaling groups, ACK node pools,
ECS instances and instance sets; Tencent AS scaling groups, TKE node pools and CVM instances) is
judged by the GPU class of each of its instance types: from the GPU catalogue first, then from the
instance family (`g5` -> A10G, `ecs.gn7i` -> A10, `GN7` -> T4). A Batch compute environment may name
bare families (`p4d`): the family's class is judged.
A GPU type whose class neither tells is reported as not judged, and so is an AWS pool that
selects instances by attributes (`instanceRequirements.acceleratorTypes: ["gpu"]`) without naming
its GPUs in `acceleratorNames`. `allowed` maps each environment
to GPU classes, `"*"` allowing any.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import profile
from gpufleet.policies.cost._clouds import PARTS, ranked, sole
from gpufleet.policies.cost._common import describe, per_env, stack_pools, unknown_env_message
from gpufleet.policies.cost.pools import Pool
from gpufleet.policies.cost.pools.families import pool_gpu_class
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

DEV_CLASSES = ["T4", "A10G", "A10", "L4"]

RULE = Rule(
    id="GF-COST-003",
    name="gpu-instance-types-allowed",
    description="GPU instance types are in the allowed list for the stack's environment.",
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Pick an instance type whose GPU class is allowed for the environment (dev: T4, A10G, A10, L4, "
        f"e.g. {', '.join(f'{p.DEV_FAMILIES} on {profile(k).name}' for k, p in PARTS.items())}): set "
        f"{', '.join(ranked(PARTS, 'ALLOWLIST_FIELDS'))}; or widen `allowed` for the environment in the "
        "policy config."
    ),
    url=sole(PARTS, "ALLOWLIST_URL"),
    config={
        "allowed": {
            "type": "object",
            "default": {
                "dev": DEV_CLASSES,
                "staging": [*DEV_CLASSES, "L40S"],
                "prod": ["*"],
            },
        }
    },
)


def pool_problems(pool: Pool, allowed: list[str]) -> list[str]:
    if "*" in allowed:
        return []
    catalog = current_catalog()
    wanted = {cls.upper() for cls in allowed}
    problems = []
    if pool.gpu_class_unknown:
        problems.append(
            f"could not be judged: {describe(pool)} selects GPU instances by attributes "
            "(instanceRequirements.acceleratorTypes gpu) without acceleratorNames, so its GPU class is "
            "unknown; name the allowed GPUs in acceleratorNames"
        )
    for instance_type in pool.instance_types:
        is_gpu, gpu_class = pool_gpu_class(pool.cloud, instance_type, catalog)
        if not is_gpu:
            continue
        if gpu_class is None:
            problems.append(
                f"could not be judged: the GPU class of {describe(pool)}'s instance type "
                f"{instance_type} is neither in the catalogue nor known from its family"
            )
        elif gpu_class.upper() not in wanted:
            problems.append(
                f"{describe(pool)} ({pool.env}) uses {instance_type} ({gpu_class}); {pool.env} allows "
                f"only {', '.join(allowed)} GPUs"
            )
    return problems


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    allowed_by_env = RULE.settings(args)["allowed"]
    pools, _ = stack_pools(args)
    for pool in pools:

        def check(pool: Pool = pool) -> None:
            pool.known("instance_types")
            if pool.env is None:
                report(unknown_env_message(pool), pool.urn)
                return
            allowed = per_env(allowed_by_env, pool.env)
            if allowed is None:
                return
            for problem in pool_problems(pool, [str(a) for a in allowed]):
                report(problem, pool.urn)

        judge(pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
