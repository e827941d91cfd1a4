"""What `gpufleet check` judges with: the report formats, the rules selected, the policy config and the
cost estimates the budget rule holds each budget against."""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpufleet import finite
from gpufleet.cli.common import _FORMAT_ALIASES, BadInput
from gpufleet.graph import ResourceGraph
from gpufleet.redact import redactor

if TYPE_CHECKING:
    from gpufleet.policy_config import PolicyConfigError
    from policies.rule import GfPolicy


def parse_formats(value: str) -> list[str]:
    from gpufleet import report

    formats: list[str] = []
    for raw in (part.strip().lower() for part in value.split(",")):
        if not raw:
            continue
        item = _FORMAT_ALIASES.get(raw, raw)
        if item not in report.FORMATS:
            raise BadInput(f"--format {raw!r} is not a report format; allowed: {', '.join(report.FORMATS)}")
        if item not in formats:
            formats.append(item)
    if not formats:
        raise BadInput(f"--format is empty; allowed: {', '.join(report.FORMATS)}")
    return formats


def select_rules(policies: Sequence[GfPolicy], value: str | None) -> tuple[list[GfPolicy], bool]:
    """`--rules GF-STOR-001,GF-COST-*`: rule ids or policy names, shell-style wildcards allowed.

    The selected policies, and whether the engine's own GF-ENGINE-001 (component-not-inspected) is
    among the rules asked for."""
    from gpufleet.policy_config import ENGINE_POLICY, ENGINE_RULE_ID

    if value is None:
        return list(policies), True
    wanted: set[str] = set()
    engine = False
    for pattern in (part.strip() for part in value.split(",")):
        if not pattern:
            continue
        matched = {
            p.rule.id
            for p in policies
            if fnmatch.fnmatchcase(p.rule.id, pattern.upper()) or fnmatch.fnmatchcase(p.name, pattern.lower())
        }
        engine_matched = fnmatch.fnmatchcase(ENGINE_RULE_ID, pattern.upper()) or fnmatch.fnmatchcase(
            ENGINE_POLICY, pattern.lower()
        )
        if not matched and not engine_matched:
            raise BadInput(
                f"--rules {pattern}: matches no rule id or policy name; rule ids look like GF-STOR-001 "
                "(wildcards allowed: GF-COST-*); run `gpufleet rules` for the list"
            )
        wanted |= matched
        engine = engine or engine_matched
    if not wanted and not engine:
        raise BadInput("--rules is empty; give rule ids or policy names, e.g. GF-STOR-001,GF-COST-*")
    return [p for p in policies if p.rule.id in wanted], engine


BUDGET_POLICY = "stack-has-budget-alert"


def stack_cost(graph: ResourceGraph, source: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The check JSON's `cost` block (DESIGN.md contract) and the per-cloud monthly estimates that
    GF-COST-002 holds each budget against, both from one pricing of the graph."""
    from gpufleet import cost

    try:
        priced = cost.estimate_stack(graph, source=source)
    except cost.CostError as exc:
        raise BadInput(str(exc)) from None
    priced = redactor(graph).value(priced)
    by_cloud = priced.monthly_by_cloud()
    given: dict[str, Any] = {
        # A non-finite estimate (a pool of 10**307 instances) is no estimate GF-COST-002 can hold a budget
        # against: left cli.out, and the cost block says why.
        "monthly_estimates": {
            cloud: {"amount": amount, "currency": priced.currency}
            for cloud, amount in by_cloud.items()
            if math.isfinite(amount)
        }
    }
    if priced.budget is not None:
        # Alibaba Cloud has no budget resource: the spec's declared budget is what GF-COST-002 checks there.
        given["budgets"] = {"monthly": priced.budget.monthly, "currency": priced.budget.currency}
    block, replaced = finite.finite(cost.cost_block(priced), "cost")
    if replaced:
        block["notes"] = [finite.note(replaced)]
    return block, given


def with_estimates(config: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The policy config for one stack: the budget rule gets the usage-based estimates and the spec's
    declared budget, unless the config already sets them."""
    entry = config.get(BUDGET_POLICY)
    settings = {"enforcementLevel": entry} if isinstance(entry, str) else dict(entry or {})
    for key, value in given.items():
        if settings.get(key) is None:
            settings[key] = value
    return {**config, BUDGET_POLICY: settings}


def _policy_config(
    path: Path | None,
    project_root: Path,
    policies: Sequence[GfPolicy],
    enforce: Sequence[str],
    set_values: Sequence[str],
) -> dict[str, Any]:
    """The policy config file overlaid with --enforce/--set; the problems of both are reported together."""
    from gpufleet.policy_config import PolicyConfigError, apply_overrides, load_policy_config

    try:
        loaded = load_policy_config(path, policies, project_dir=project_root)
    except PolicyConfigError as file_error:
        try:
            apply_overrides({}, policies, enforce=enforce, set_values=set_values)
        except PolicyConfigError as override_error:
            raise PolicyConfigError([*file_error.problems, *override_error.problems]) from None
        raise
    return apply_overrides(loaded, policies, enforce=enforce, set_values=set_values)


def _config_problem(exc: PolicyConfigError) -> BadInput:
    if len(exc.problems) == 1:
        return BadInput(exc.problems[0])
    return BadInput(f"invalid policy configuration ({len(exc.problems)} problems):", exc.problems)
