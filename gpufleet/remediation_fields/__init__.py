"""Fixes in the words of the file the user edits: for a gpufleet stack (a `gpufleet:fleet` spec built by
our own components), a finding's remediation names the spec field and the value to set
(`pools.experiments.spot_percent: 100`), not the provider property the rule reads.

FIELDS maps (rule id, resource type) to a function that reads the finding, the spec and the rule's
settings and returns the field and its value, or None when the spec cannot say (the finding then keeps
the rule's own remediation). Which resources of a cloud have a fixer is that cloud's module's FIXERS
(gpufleet/remediation_fields/aws.py): a new cloud adds its module. `field_line` finds that field's line
in the stack file, for SARIF.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import yaml

from gpufleet.components.clouds import cloud_parts, part_merged
from gpufleet.evaluate import Finding

if TYPE_CHECKING:
    from gpufleet.components.spec import FleetSpec
    from gpufleet.components.spec.pool import Pool
    from gpufleet.policies.rule import GfPolicy

CONFIG_KEY = "gpufleet:fleet"
STACK = "stack"
"""The resource kind of a stack-level finding (no resource)."""


@dataclass(frozen=True)
class SpecFix:
    field: str
    """Dotted path under `gpufleet:fleet` (`pools.experiments.spot_percent`)."""
    value: str
    """The value to write, as YAML (`100`, `300s`, `[g5.xlarge]`)."""
    why: str = ""


@dataclass(frozen=True)
class Context:
    spec: FleetSpec
    stack_file: str
    settings: Callable[[str], Mapping[str, Any]]
    """A rule id's settings: its defaults overlaid with the run's policy config."""
    monthly_estimate: float | None = None


Fixer = Callable[[Finding, Context], SpecFix | None]


# -- which pool a resource belongs to ----------------------------------------------------------------


def pool_of(finding: Finding, pools: Sequence[str], text: str | None = None) -> str | None:
    """The spec pool whose resources are named `<prefix>-pool-<pool>-...` (the longest match), from the
    finding's URN or from `text` (a stack-level message naming the resource)."""
    haystack = text if text is not None else finding.urn.rsplit("::", 1)[-1]
    matches = [pool for pool in pools if f"-pool-{pool}-" in haystack]
    return max(matches, key=len) if matches else None


def _pool(finding: Finding, ctx: Context) -> tuple[str, Pool] | None:
    name = pool_of(finding, list(ctx.spec.pools))
    return (name, ctx.spec.pools[name]) if name is not None else None


# -- the fixers ---------------------------------------------------------------------------------------


def _spot(finding: Finding, ctx: Context) -> SpecFix | None:
    found = _pool(finding, ctx)
    if found is None:
        return None
    name, pool = found
    need = ctx.settings("GF-COST-004").get("min_spot_percent", {}).get(ctx.spec.environment)
    if need is None:
        return None
    if pool.spot_percent < need:
        return SpecFix(
            f"pools.{name}.spot_percent",
            f"{need:g}",
            f"{ctx.spec.environment} pools run at least {need:g}% on spot",
        )
    return SpecFix(f"pools.{name}.on_demand_base", "0", "the on-demand base is not spot capacity")


def _types(finding: Finding, ctx: Context) -> SpecFix | None:
    from gpufleet.components.catalog import load_catalog

    found = _pool(finding, ctx)
    if found is None:
        return None
    name, pool = found
    allowed = ctx.settings("GF-COST-003").get("allowed", {}).get(ctx.spec.environment) or []
    catalog = load_catalog()
    region = pool.region or ""
    fitting = [
        t
        for t in catalog.types(pool.cloud)
        if (t.gpu_class in allowed or "*" in allowed) and (not region or region in t.on_demand)
    ]
    if not fitting:
        return None
    cheapest = min(fitting, key=lambda t: (t.gpu_count, min(p.amount for p in t.on_demand.values())))
    classes = ", ".join(allowed)
    return SpecFix(
        f"pools.{name}.instance_types",
        f"[{cheapest.name}]",
        f"{ctx.spec.environment} allows {classes} GPUs; "
        f"{cheapest.name} has {cheapest.gpu_count} {cheapest.gpu_class}",
    )


def _cooldown(rule_id: str) -> Fixer:
    def fix(finding: Finding, ctx: Context) -> SpecFix | None:
        found = _pool(finding, ctx)
        if found is None:
            return None
        seconds = ctx.settings(rule_id).get("min_cooldown_s", 300)
        return SpecFix(
            f"pools.{found[0]}.scaling.cooldown", f"{seconds}s", f"at least {seconds} s between scaling steps"
        )

    return fix


_WORST = re.compile(
    r"over the \w+ cap of (?P<cap>[\d.]+) \w+/h "
    r"\((?P<asg>\S+): (?P<count>[\d.]+) x \S+ \([^)]*\) at (?P<each>[\d.]+) "
)


def _max_size(finding: Finding, ctx: Context) -> SpecFix | None:
    match = _WORST.search(finding.message)
    if match is None:
        return None
    name = pool_of(finding, list(ctx.spec.pools), text=match["asg"])
    if name is None:
        return None
    cap, each = float(match["cap"]), float(match["each"])
    if each <= 0:
        return None
    size = max(0, math.floor(cap / each))
    return SpecFix(
        f"pools.{name}.size.max",
        str(size),
        f"{size} x {each:g} an hour on demand stays under the cap of {cap:g}; or pick a smaller type",
    )


def _budget(finding: Finding, ctx: Context) -> SpecFix | None:
    if ctx.monthly_estimate is None or not math.isfinite(ctx.monthly_estimate):
        return None
    # Rounded up to the next hundred: the budget holds the estimate with some room.
    value = int(math.ceil(ctx.monthly_estimate / 100.0) * 100)
    return SpecFix("budget.monthly", str(value), f"the monthly estimate is {ctx.monthly_estimate:.2f}")


def _retention(finding: Finding, ctx: Context) -> SpecFix | None:
    days = ctx.settings("GF-AUD-002").get("min_days", 180)
    if "gpufleet:audit:FleetAudit" in finding.urn:
        return SpecFix("audit.log_retention_days", str(days), f"audit logs are kept at least {days} days")
    if "session" in finding.urn.rsplit("::", 1)[-1]:
        return SpecFix(
            "access.session_log_retention_days", str(days), f"session logs are kept at least {days} days"
        )
    return None


def _checkpoint_lifecycle(finding: Finding, ctx: Context) -> SpecFix | None:
    settings = ctx.settings("GF-STOR-005")
    checkpoints = ctx.spec.storage.checkpoints
    expire = int(settings.get("expire_days", 30))
    if checkpoints.expire_after_days > expire:
        return SpecFix(
            "storage.checkpoints.expire_after_days", str(expire), f"checkpoints expire within {expire} days"
        )
    return None


def _noncurrent(finding: Finding, ctx: Context) -> SpecFix | None:
    days = int(ctx.settings("GF-STOR-007").get("noncurrent_days", 7))
    return SpecFix(
        "storage.checkpoints.noncurrent_expire_days", str(days), f"old versions go within {days} days"
    )


# The fixers a cloud module's FIXERS names, by name; a cooldown fixer reads the rule it fixes.
_BY_NAME: dict[str, Callable[[str], Fixer]] = {
    "types": lambda _rule: _types,
    "spot": lambda _rule: _spot,
    "cooldown": _cooldown,
    "budget": lambda _rule: _budget,
    "retention": lambda _rule: _retention,
    "checkpoint_lifecycle": lambda _rule: _checkpoint_lifecycle,
    "noncurrent": lambda _rule: _noncurrent,
}


def _fields() -> dict[tuple[str, str], Fixer]:
    """Each cloud's resources (FIXERS in gpufleet/remediation_fields/<cloud>.py), then the stack's."""
    named: dict[tuple[str, str], str] = part_merged(cloud_parts(__name__), "FIXERS")
    fields = {(rule_id, kind): _BY_NAME[name](rule_id) for (rule_id, kind), name in named.items()}
    fields[("GF-COST-007", STACK)] = _max_size
    return fields


FIELDS: dict[tuple[str, str], Fixer] = _fields()


# -- applying them ------------------------------------------------------------------------------------


def settings_of(
    policies: Sequence[GfPolicy], config: Mapping[str, Any]
) -> Callable[[str], Mapping[str, Any]]:
    """Rule id -> its settings: defaults overlaid with the policy config's entry for the policy."""
    by_id = {policy.rule.id: policy.rule for policy in policies}

    def settings(rule_id: str) -> Mapping[str, Any]:
        rule = by_id.get(rule_id)
        if rule is None:
            return {}
        merged = rule.defaults()
        entry = config.get(rule.name)
        if isinstance(entry, Mapping):
            merged.update({k: v for k, v in entry.items() if k in rule.config and v is not None})
        return merged

    return settings


def spec_fix(finding: Finding, ctx: Context) -> SpecFix | None:
    fixer = FIELDS.get((finding.rule_id, finding.resource_type or STACK))
    return fixer(finding, ctx) if fixer is not None else None


def in_spec_terms(findings: Sequence[Finding], ctx: Context) -> list[Finding]:
    """The findings, each that FIELDS can express remediated as `set <field>: <value> in <file>`."""
    out = []
    for finding in findings:
        fix = spec_fix(finding, ctx)
        if fix is None:
            out.append(finding)
            continue
        because = f" ({fix.why})" if fix.why else ""
        out.append(
            replace(
                finding,
                remediation=f"in {ctx.stack_file} set {fix.field}: {fix.value} under {CONFIG_KEY}{because}",
                spec_field=fix.field,
            )
        )
    return out


def field_line(text: str, field: str) -> int | None:
    """The line of `config: gpufleet:fleet: <field>` in a stack file's text, or of its deepest key that
    exists (the pool, when the pool leaves the field to its default); None when the file has no spec."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    best: int | None = None
    for key in ["config", CONFIG_KEY, *field.split(".")]:
        if not isinstance(node, yaml.MappingNode):
            break
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                best = key_node.start_mark.line + 1 if key not in ("config", CONFIG_KEY) else best
                node = value_node
                break
        else:
            break
    return best
