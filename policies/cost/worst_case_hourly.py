"""GF-COST-007: the stack's worst-case hourly spend stays under the cap for its environment.

Worst case: every GPU pool at its maximum size (for a spot fleet request scaled by an Application
Auto Scaling target on `ec2:spot-fleet-request:TargetCapacity`, the target's `maxCapacity` when it
is larger than `targetCapacity`; an unknown one makes the pool not judged; for an AWS Batch compute
environment, as many instances of its dearest type, bare families expanded to the catalogue's
types of the family, as its `maxVcpus` buy), every instance at its
on-demand price (the spot share too: spot capacity can fall back to on-demand or be reclaimed and
re-bought), a pool of several instance types at its most expensive one, priced from the GPU
catalogue in the pool's region (the highest listed region when the region is unknown) and converted
to the cap's currency. Pools are summed per environment and compared with `max_hourly[env]`. A pool
the catalogue cannot price (a type or region it has no price for) is left out of the sum, never a
finding of its own: `gpufleet check` names it as "unpriced" on the stack's cost line, and a finding
over the cap names it as not counted.
"""

from __future__ import annotations

from collections import defaultdict

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost._clouds import PARTS, sole
from gpufleet.policies.cost._common import fmt, per_env, stack_pools, unknown_env_message
from gpufleet.policies.cost.pools import Pool, hourly_envelope
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

RULE = Rule(
    id="GF-COST-007",
    name="worst-case-hourly-under-cap",
    description=(
        "The stack's worst-case hourly spend (every pool at max, on-demand price of its spot share too) "
        "stays under the cap."
    ),
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        f"Lower the pools' maximum sizes ({', '.join(p.MAX_SIZE_FIELDS for p in PARTS.values())}), choose "
        "smaller instance types, or raise `max_hourly` for the environment in the policy config after a "
        "budget review."
    ),
    url=sole(PARTS, "HOURLY_URL"),
    config={
        "max_hourly": {"type": "object", "default": {"dev": 50, "staging": 200, "prod": 2000}},
        "currency": {"type": "string", "default": "USD"},
    },
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    settings = RULE.settings(args)
    currency = str(settings["currency"])
    pools, _ = stack_pools(args)
    by_env: dict[str, list[Pool]] = defaultdict(list)
    for pool in pools:

        def place(pool: Pool = pool) -> None:
            pool.known("max_size")
            pool.known("instance_types")
            if pool.env is None:
                report(unknown_env_message(pool), pool.urn)
            else:
                by_env[pool.env].append(pool)

        judge(pool.urn, place)
    catalog = current_catalog()
    for env, env_pools in sorted(by_env.items()):
        cap = per_env(settings["max_hourly"], env)
        if cap is None:
            continue
        envelope = hourly_envelope(env_pools, catalog, currency)
        prices = "; ".join(line.render() for line in envelope.lines)
        if envelope.unpriced:
            prices += f"; unpriced, not counted: {', '.join(envelope.unpriced)}"
        if envelope.max_hourly > float(cap):
            report(
                f"the {env} GPU pools can cost {envelope.max_hourly:.2f} {currency}/h at maximum size and "
                f"on-demand prices, over the {env} cap of {fmt(float(cap))} {currency}/h ({prices})",
                None,
            )


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
