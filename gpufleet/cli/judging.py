"""What `gpufleet check` judges with: the report formats, the rules selected, the policy config and the
cost estimates the budget rule holds each budget against."""

from __future__ import annotations

import fnmatch
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpufleet import finite
from gpufleet.cli.common import _FORMAT_ALIASES, BadInput
from gpufleet.graph import ResourceGraph
from gpufleet.redact import redactor

if TYPE_CHECKING:
    from gpufleet.policies.rule import GfPolicy
    from gpufleet.policies.waivers import Settings, Waiver
    from gpufleet.policy_config import PolicyConfigError


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def default_format(output_dir: Path | None) -> str:
    """`check`'s report when `--format` is not given: text for a person at a terminal, JSON for a pipe,
    a file or CI (the same test as the colours of the text report), and JSON files with --output-dir."""
    return "text" if output_dir is None and stdout_is_terminal() else "json"


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


def stack_settings(config: dict[str, Any], graph: ResourceGraph, root: Path) -> dict[str, Any]:
    """The policy config for one stack with what the stack declares for the launch and fit rules: its
    quotas (`gpufleet:quotas`, files read relative to the project), pool fits and instance ceiling."""
    from gpufleet.preflight.settings import QuotaFileError, with_stack_settings

    try:
        return with_stack_settings(config, graph.config, root, looked_up=graph.image_arches)
    except QuotaFileError as exc:
        raise BadInput(str(exc)) from None


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
    from gpufleet.policy_config import PolicyConfigError, load_policy_config
    from gpufleet.policy_overrides import apply_overrides

    try:
        loaded = load_policy_config(path, policies, project_dir=project_root)
    except PolicyConfigError as file_error:
        try:
            apply_overrides({}, policies, enforce=enforce, set_values=set_values)
        except PolicyConfigError as override_error:
            raise PolicyConfigError([*file_error.problems, *override_error.problems]) from None
        raise
    return apply_overrides(loaded, policies, enforce=enforce, set_values=set_values)


@dataclass(frozen=True)
class Judging:
    """The policy config a run judges with, the platform's waiver settings, and the waivers of the
    repository's own file that a platform config overrides (listed as not read), each with its file."""

    config: dict[str, Any]
    settings: Settings
    ignored: tuple[tuple[Waiver, str], ...] = ()


def judging_config(  # noqa: PLR0917 - the files and the command line's overrides
    path: Path | None,
    project_root: Path,
    policies: Sequence[GfPolicy],
    enforce: Sequence[str],
    set_values: Sequence[str],
    platform: Path | None = None,
) -> Judging:
    """Without a platform config: the repository's policy config (with --enforce/--set) and its waiver
    settings. With one (`--platform-config`, $GPUFLEET_PLATFORM_CONFIG): that file's waivers, waiver
    settings, `waivable`, rule config and enforcement; the repository's file may only make enforcement
    stricter, and its waivers the platform's file does not hold are listed as not read."""
    from gpufleet.policy_config import (
        PolicyConfigError,
        config_waivers,
        find_policy_config,
        load_policy_config,
        platform_policy_config,
        waiver_settings,
    )
    from gpufleet.policy_overrides import apply_overrides

    repository_file = path or find_policy_config(project_root)
    label = _label(repository_file, project_root) if repository_file else "policy-config.json"
    if platform is None:
        config = _policy_config(path, project_root, policies, enforce, set_values)
        return Judging(config, waiver_settings(config, label))
    problems: list[str] = []
    platform_config: dict[str, Any] = {}
    repository: dict[str, Any] = {}
    if not platform.is_file():
        problems.append(
            f"--platform-config {platform}: no such file; give the platform team's policy config (e.g. "
            "`git show origin/main:policy-config.json > base.json`), or leave out the option and "
            "$GPUFLEET_PLATFORM_CONFIG"
        )
    else:
        try:
            platform_config = load_policy_config(platform, policies)
        except PolicyConfigError as error:
            problems += error.problems
    try:
        repository = load_policy_config(path, policies, project_dir=project_root)
    except PolicyConfigError as error:
        problems += error.problems
    if problems:
        raise PolicyConfigError(problems)
    merged = platform_policy_config(platform_config, repository, policies)
    config = apply_overrides(merged, policies, enforce=enforce, set_values=set_values)
    known = {(w.rule_id, w.resource, w.reason, w.owner, w.expires) for w in config_waivers(merged, policies)}
    ignored = tuple(
        (w, label)
        for w in config_waivers(repository, policies)
        if (w.rule_id, w.resource, w.reason, w.owner, w.expires) not in known
    )
    return Judging(config, waiver_settings(platform_config, str(platform)), ignored)


def _label(path: Path, project_root: Path) -> str:
    """A file as reports name it: relative to the project when it is inside it."""
    try:
        return str(path.resolve().relative_to(project_root.resolve()))
    except ValueError:
        return str(path)


def _config_problem(exc: PolicyConfigError) -> BadInput:
    if len(exc.problems) == 1:
        return BadInput(exc.problems[0])
    return BadInput(f"invalid policy configuration ({len(exc.problems)} problems):", exc.problems)
