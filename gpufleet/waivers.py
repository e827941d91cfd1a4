"""Waivers offline: every waiver of a stack with its state, and the findings about waivers themselves.

The pack applies waivers to violations (`policies.rule`, `policies.waivers`); what it cannot see from one
violation is checked here, once per stack, and reported as advisory `GF-WAIVER-001` findings:

- a config waiver whose resource (URN or glob) matches no resource of the stack;
- a `gpufleet:waive:*` tag that cannot be read (not a rule id, no reason, owner or date, a key given
  twice), names a rule the pack does not have, or waives a rule that is not waivable;
- a waiver the platform's settings refuse (`gpufleet.policies.waivers.refusal`): a tag while tags are off, a
  provider default tag, a glob matching every resource of more than one type, a reason that says nothing,
  an owner not on the list, an expiry beyond the horizon; and a waiver of the repository's own file that a
  platform config overrides (not read);
- a waiver that has expired (the violation is back at its level), or expires within 14 days.

`gpufleet waivers` lists the same inventory, with each waiver's age from git when the repository has it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from pulumi_policy import Severity

from gpufleet.analyzer_inputs import analyzed_resources, provider_resource
from gpufleet.evaluate import ENGINE, Finding, StackResult
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policies import waivers as pack_waivers
from gpufleet.policies.context import own_and_effective_tags
from gpufleet.policies.memo import evaluation
from gpufleet.policies.registry import default_registry
from gpufleet.policies.rule import GfPolicy
from gpufleet.policies.waivers import Waiver
from gpufleet.policy_config import ResolvedPolicyConfig

WAIVER_RULE_ID = "GF-WAIVER-001"
WAIVER_POLICY = "waiver-problem"
WAIVER_SEVERITY = "low"
WAIVER_DESCRIPTION = (
    "A waiver that cannot apply as written: it matches no resource, cannot be read, names no rule of the "
    "pack or a rule that is not waivable, is refused by the platform's waiver settings (a tag while tags "
    "are off, a provider default tag, an expiry beyond the horizon, a match-everything glob, a reason that "
    "says nothing, an owner not on the list), is not read (a repository file under a platform config), "
    "has expired, or expires within 14 days."
)
WAIVER_REMEDIATION = (
    "Fix the waiver (docs/waivers.md): a URN or a `<type>::<name>` glob of one type, a reason that says "
    'why, a tag value "<reason>; owner=<team>; expires=YYYY-MM-DD" (where the platform allows tags), an '
    "expiry within the platform's horizon; ask the platform team to add it to their policy config; renew "
    "it with its owner before it expires, or fix the resource and remove the waiver."
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


def _tags(
    resource: Resource, provider: Resource | None, providers: dict[str, Any]
) -> tuple[dict[str, str], frozenset[str]]:
    """The resource's effective tags and the keys among them that come from its provider's default tags."""
    if provider is not None and provider.urn not in providers:
        providers[provider.urn] = provider_resource(provider)
    own, tags = own_and_effective_tags(
        resource.type, resource.inputs, providers[provider.urn] if provider else None
    )
    return tags, frozenset(key for key in tags if key not in own)


Inventory = list[tuple[Waiver, str | None, str | None]]
"""Each waiver with why it is refused (None: it may apply) and the file it comes from (None: a tag)."""


def collect(  # noqa: PLR0917 - the stack, the pack and its config, the settings and the date
    graph: ResourceGraph,
    policies: Sequence[GfPolicy],
    resolved: Mapping[str, ResolvedPolicyConfig],
    known_rule_ids: Iterable[str],
    settings: pack_waivers.Settings | None = None,
    on: date | None = None,
) -> tuple[Inventory, list[Finding]]:
    """Every waiver of the stack (config and tags), why the platform refuses it if it does, and the
    problems found reading them."""
    rules = settings or pack_waivers.Settings()
    on = on or pack_waivers.today()
    found: Inventory = []
    problems: list[Finding] = []
    resources, provider_of = analyzed_resources(graph)
    for policy in policies:
        chosen = resolved.get(policy.name)
        properties = chosen.properties if chosen else {}
        parsed, _ = pack_waivers.parse_config_waivers(
            policy.rule.id, properties.get(pack_waivers.WAIVERS_KEY), ""
        )
        critical = policy.rule.severity == Severity.CRITICAL
        for waiver in parsed:
            why = (
                None
                if pack_waivers.waivable(policy.rule.id, properties, critical)
                else pack_waivers.not_waivable(policy.rule.id, properties)
            ) or pack_waivers.refusal(waiver, rules, on)
            found.append((waiver, why, rules.file))
            if why is not None:
                urn = waiver.resource if waiver.resource.startswith("urn:") else ""
                resource = graph.get(urn) if urn else None
                problems.append(
                    _finding(
                        urn,
                        resource.type if resource else "",
                        f"the {policy.rule.id} waiver for {waiver.resource!r} in {rules.file} is refused: "
                        f"{why}",
                    )
                )
            elif not any(waiver.matches(r.urn) for r in resources):
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
    critical_ids = {
        p.rule.id for p in (*default_registry(), *policies) if p.rule.severity == Severity.CRITICAL
    }
    providers: dict[str, Any] = {}
    for resource in resources:
        tags, provider_keys = _tags(resource, provider_of.get(resource.urn), providers)
        tag_found, tag_problems = pack_waivers.tag_waivers(tags, resource.urn, provider_keys)
        problems += [_finding(resource.urn, resource.type, text) for text in tag_problems]
        for waiver in tag_found:
            where = f"{waiver.source} on {resource.urn}"
            if waiver.rule_id not in known:
                problems.append(_finding(resource.urn, resource.type, f"{where}: no rule {waiver.rule_id}"))
                continue
            tagged = by_id.get(waiver.rule_id)
            chosen = resolved.get(tagged.name) if tagged else None
            tagged_properties = chosen.properties if chosen else None
            critical = waiver.rule_id in critical_ids
            why = pack_waivers.refusal(waiver, rules, on)
            if why is None and not pack_waivers.waivable(waiver.rule_id, tagged_properties, critical):
                why = pack_waivers.not_waivable(waiver.rule_id, tagged_properties)
            if why is not None:
                problems.append(_finding(resource.urn, resource.type, f"{where}: refused, {why}"))
            found.append((waiver, why, None))
    return found, problems


def _state_findings(found: Inventory, graph: ResourceGraph, on: date) -> list[Finding]:
    out: list[Finding] = []
    for waiver, refused, _ in found:
        state = waiver.state(on)
        if state == "active" or refused is not None:
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


def not_read(platform_file: str) -> str:
    """Why a waiver of the repository's own policy config is not read under a platform config."""
    return (
        f"not read: under the platform config ({platform_file}) waivers come from it alone; this waiver "
        "takes effect once the platform's file has it"
    )


def attach(
    result: StackResult,
    graph: ResourceGraph,
    policies: Sequence[GfPolicy],
    resolved: Mapping[str, ResolvedPolicyConfig],
    known_rule_ids: Iterable[str],
    *,
    on: date | None = None,
    settings: pack_waivers.Settings | None = None,
    ignored: Sequence[tuple[Waiver, str]] = (),
) -> None:
    """Add the stack's waiver inventory and its GF-WAIVER-001 findings to `result`. `ignored` are the
    config waivers (each with its file) of a repository file a platform config overrides."""
    on = on or pack_waivers.today()
    rules = settings or pack_waivers.Settings()
    with evaluation():  # each provider's default tags read once, not once per resource
        found, problems = collect(graph, policies, resolved, known_rule_ids, rules, on)
    for waiver, file in ignored:
        why = not_read(rules.file)
        found.append((waiver, why, file))
        problems.append(
            _finding("", "", f"the {waiver.rule_id} waiver for {waiver.resource!r} in {file} is {why}")
        )
    applied: dict[Waiver, int] = {}
    for item in result.waived:
        applied[item.waiver] = applied.get(item.waiver, 0) + 1
    result.waivers_on = on
    result.waivers = [
        {**waiver.to_json(on), "applied": applied.get(waiver, 0), "refused": why, "file": file}
        for waiver, why, file in sorted(found, key=lambda w: (w[0].rule_id, w[0].resource, w[0].source))
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
    """The waivers in force (and with `expired`, the expired and the refused ones too), one row each, with
    age."""
    rows: list[dict[str, Any]] = []
    for result in results:
        on = result.waivers_on or pack_waivers.today()
        for item in result.waivers:
            if (item["state"] == "expired" or item.get("refused")) and not expired:
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
        state = f"refused: {row['refused']}" if row.get("refused") else row["state"]
        lines.append(
            f"{row['stack']}  {row['rule_id']}  {row['resource']}  [{state}] "
            f"expires {row['expires']} ({when}; {age})  owner {row['owner']}: {row['reason']}  "
            f"({row['source']}, applied {row['applied']})"
        )
    return "\n".join(lines) + "\n"
