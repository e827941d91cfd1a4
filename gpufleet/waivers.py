"""Waivers offline: every waiver of a stack with its state, and the findings about waivers themselves.

The pack applies waivers to violations (`policies.rule`, `policies.waivers`); what it cannot see from one
violation is checked here, once per stack, and reported as advisory `GF-WAIVER-001` findings:

- a config waiver whose resource (URN or glob) matches no resource of the stack;
- a `gpufleet:waive:*` tag that cannot be read (not a rule id, no reason, owner or date), names a rule
  the pack does not have, or waives a rule that is not waivable;
- a waiver that has expired (the violation is back at its level), or expires within 14 days.

`gpufleet waivers` lists the same inventory, with each waiver's age from git when the repository has it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from gpufleet.evaluate import ENGINE, Finding, StackResult, analyzed_resources, provider_resource
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policy_config import ResolvedPolicyConfig
from policies import waivers as pack_waivers
from policies.context import effective_tags
from policies.rule import GfPolicy
from policies.waivers import Waiver

WAIVER_RULE_ID = "GF-WAIVER-001"
WAIVER_POLICY = "waiver-problem"
WAIVER_SEVERITY = "low"
WAIVER_DESCRIPTION = (
    "A waiver that cannot apply as written: it matches no resource, cannot be read, names no rule of the "
    "pack or a rule that is not waivable, has expired, or expires within 14 days."
)
WAIVER_REMEDIATION = (
    "Fix the waiver (docs/waivers.md): a URN or a `<type>::<name>` glob that matches, a tag value "
    '"<reason>; owner=<team>; expires=YYYY-MM-DD"; renew it with its owner before it expires, or fix the '
    "resource and remove the waiver."
)


def _finding(urn: str, resource_type: str, message: str) -> Finding:
    return Finding(
        rule_id=WAIVER_RULE_ID,
        policy=WAIVER_POLICY,
        enforcement="advisory",
        severity=WAIVER_SEVERITY,
        engine=ENGINE,
        urn=urn,
        resource_type=resource_type,
        message=message,
        remediation=WAIVER_REMEDIATION,
    )


def _tags(resource: Resource, provider: Resource | None, providers: dict[str, Any]) -> dict[str, str]:
    if provider is not None and provider.urn not in providers:
        providers[provider.urn] = provider_resource(provider)
    return effective_tags(resource.type, resource.inputs, providers[provider.urn] if provider else None)


def collect(
    graph: ResourceGraph,
    policies: Sequence[GfPolicy],
    resolved: Mapping[str, ResolvedPolicyConfig],
    known_rule_ids: Iterable[str],
) -> tuple[list[Waiver], list[Finding]]:
    """Every waiver of the stack (config and tags) and the problems found reading them."""
    found: list[Waiver] = []
    problems: list[Finding] = []
    resources, provider_of = analyzed_resources(graph)
    for policy in policies:
        settings = resolved.get(policy.name)
        parsed, _ = pack_waivers.parse_config_waivers(
            policy.rule.id, (settings.properties if settings else {}).get(pack_waivers.WAIVERS_KEY), ""
        )
        for waiver in parsed:
            found.append(waiver)
            if not any(waiver.matches(r.urn) for r in resources):
                kind = "URN" if waiver.resource.startswith("urn:") else "glob on <type>::<name>"
                problems.append(
                    _finding(
                        "",
                        "",
                        f"the {policy.rule.id} waiver for {waiver.resource!r} ({kind}) matches no "
                        f"resource of stack {graph.stack}",
                    )
                )
    known = set(known_rule_ids)
    by_id = {p.rule.id: p for p in policies}
    providers: dict[str, Any] = {}
    for resource in resources:
        tags = _tags(resource, provider_of.get(resource.urn), providers)
        tag_found, tag_problems = pack_waivers.tag_waivers(tags, resource.urn)
        problems += [_finding(resource.urn, resource.type, text) for text in tag_problems]
        for waiver in tag_found:
            where = f"tag {pack_waivers.TAG_PREFIX}{waiver.rule_id!s} on {resource.urn}"
            if waiver.rule_id not in known:
                problems.append(_finding(resource.urn, resource.type, f"{where}: no rule {waiver.rule_id}"))
                continue
            chosen = by_id.get(waiver.rule_id)
            settings = resolved.get(chosen.name) if chosen else None
            if not pack_waivers.waivable(waiver.rule_id, settings.properties if settings else None):
                problems.append(
                    _finding(
                        resource.urn,
                        resource.type,
                        f"{where}: refused, {waiver.rule_id} is not waivable (waivable: false)",
                    )
                )
            found.append(waiver)
    return found, problems


def _state_findings(found: Sequence[Waiver], graph: ResourceGraph, on: date) -> list[Finding]:
    out: list[Finding] = []
    for waiver in found:
        state = waiver.state(on)
        if state == "active":
            continue
        urn = waiver.resource if waiver.resource.startswith("urn:") else ""
        resource = graph.get(urn) if urn else None
        text = (
            f"the {waiver.rule_id} waiver for {waiver.resource!r} expired on {waiver.expires.isoformat()} "
            f"and no longer applies: {waiver.describe(on)}"
            if state == "expired"
            else f"the {waiver.rule_id} waiver for {waiver.resource!r} expires in {waiver.days_left(on)} "
            f"days ({waiver.expires.isoformat()}): {waiver.describe(on)}"
        )
        out.append(_finding(urn, resource.type if resource else "", text))
    return out


def attach(
    result: StackResult,
    graph: ResourceGraph,
    policies: Sequence[GfPolicy],
    resolved: Mapping[str, ResolvedPolicyConfig],
    known_rule_ids: Iterable[str],
    *,
    on: date | None = None,
) -> None:
    """Add the stack's waiver inventory and its GF-WAIVER-001 findings to `result`."""
    on = on or pack_waivers.today()
    found, problems = collect(graph, policies, resolved, known_rule_ids)
    applied: dict[Waiver, int] = {}
    for item in result.waived:
        applied[item.waiver] = applied.get(item.waiver, 0) + 1
    result.waivers_on = on
    result.waivers = [
        {**waiver.to_json(on), "applied": applied.get(waiver, 0)}
        for waiver in sorted(found, key=lambda w: (w.rule_id, w.resource, w.source))
    ]
    if problems or found:
        result.violations = sorted(
            [*result.violations, *problems, *_state_findings(found, graph, on)], key=Finding.sort_key
        )


# --- `gpufleet waivers` --------------------------------------------------------------------------------


def git_age(repo: Path, needle: str, on: date) -> int | None:
    """Days since the first commit that added `needle` to the repository, None when git cannot tell."""
    try:
        done = subprocess.run(
            ["git", "log", "--reverse", "--format=%as", "-S", needle, "--", "."],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    first = done.stdout.split("\n", 1)[0].strip() if done.returncode == 0 else ""
    try:
        return (on - date.fromisoformat(first)).days if first else None
    except ValueError:
        return None


def listing(results: Sequence[StackResult], repo: Path, *, expired: bool) -> list[dict[str, Any]]:
    """The waivers in force (and with `expired`, the expired ones too), one row each, with age."""
    rows: list[dict[str, Any]] = []
    for result in results:
        on = result.waivers_on or pack_waivers.today()
        for item in result.waivers:
            if item["state"] == "expired" and not expired:
                continue
            # A tag's key is shared by every tag waiver of the rule: its reason tells them apart.
            needle = str(item["reason"] if str(item["source"]).startswith("tag ") else item["resource"])
            rows.append({"stack": result.stack, **item, "age_days": git_age(repo, needle, on)})
    return rows


def render_listing(rows: Sequence[Mapping[str, Any]], fmt: str) -> str:
    if fmt == "json":
        import json

        return json.dumps({"waivers": list(rows)}, indent=2) + "\n"
    if not rows:
        return "no waivers in force\n"
    lines = []
    for row in rows:
        age = "age unknown" if row["age_days"] is None else f"{row['age_days']} days old"
        left = row["days_left"]
        when = f"expired {-left} days ago" if left < 0 else f"{left} days left"
        lines.append(
            f"{row['stack']}  {row['rule_id']}  {row['resource']}  [{row['state']}] "
            f"expires {row['expires']} ({when}; {age})  owner {row['owner']}: {row['reason']}  "
            f"({row['source']}, applied {row['applied']})"
        )
    return "\n".join(lines) + "\n"
