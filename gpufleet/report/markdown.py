"""The Markdown report: a pull-request comment, kept under GitHub's comment size limit."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gpufleet import waivers_report
from gpufleet.checkov import reports as checkov_reports
from gpufleet.docs import rule_doc_url
from gpufleet.evaluate import StackResult
from gpufleet.findings import OPAQUE_RULE_ID
from gpufleet.policies.rule import GfPolicy
from gpufleet.report.model import (
    cost_summary,
    errors_note,
    resource_label,
    rule_infos,
    stack_error,
    violation_counts,
)

GITHUB_COMMENT_LIMIT = 65_536
_SEVERITY_ICON = {"critical": "🟥", "high": "🟧", "medium": "🟨", "low": "🟦"}


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip()


def render_markdown(
    results: Sequence[StackResult],
    policies: Iterable[GfPolicy] | None = None,
    *,
    limit: int = GITHUB_COMMENT_LIMIT,
) -> str:
    """A pull-request comment: per stack a table of violations, a passing line when clean, totals.
    Kept under GitHub's comment limit: rows that do not fit are counted in a closing note."""
    infos = rule_infos(results, policies)
    total = [f for r in results for f in r.violations]
    mandatory_total = sum(1 for f in total if f.enforcement == "mandatory")
    status = "❌ blocked" if mandatory_total else "✅ passing"
    if any(result.error is not None for result in results):
        status = "⛔ not every stack could be checked"
    footer = (
        f"\n**Total:** {len(results)} stack(s), {mandatory_total} mandatory and "
        f"{len(total) - mandatory_total} advisory violation(s){errors_note(results)}. "
        "Mandatory violations fail the check; "
        "advisory ones are reported only.\n"
    )
    parts: list[str] = [f"## gpufleet policy check: {status}\n"]
    budget = limit - len(footer) - 300
    used = len(parts[0])
    omitted = 0
    for result in results:
        error = stack_error(result)
        if error is not None:
            parts.append(
                f"\n### Stack `{result.stack}` ({result.project})\n\n⛔ Not checked: {_cell(error)}\n"
            )
            used += len(parts[-1])
            continue
        header = f"\n### Stack `{result.stack}` ({result.project}, {result.resources} resources)\n\n"
        if result.cost:
            header += f"Cost: {cost_summary(result.cost)}.\n\n"
        if result.opaque:
            names = ", ".join(f"`{_cell(resource_label(item['urn']))}`" for item in result.opaque)
            header += (
                f"⚠️ Not inspected: {len(result.opaque)} component(s) built by a provider plugin could not "
                f"be looked inside offline ({OPAQUE_RULE_ID}): {names}.\n\n"
            )
        if not result.violations:
            block = header + "✅ No policy violations.\n"
            if used + len(block) <= budget:
                parts.append(block)
                used += len(block)
            continue
        block = header + (
            f"{violation_counts(result.violations)} violation(s).\n\n"
            "| Severity | Rule | Enforcement | Resource | Message |\n|---|---|---|---|---|\n"
        )
        if used + len(block) > budget:
            omitted += len(result.violations)
            continue
        parts.append(block)
        used += len(block)
        for finding in result.violations:
            info = infos.get(finding.rule_id)
            # Only rules of the evaluated pack carry a family, and each has a section in the reference.
            documented = info is not None and bool(info.family)
            rule = f"[{finding.rule_id}]({rule_doc_url(finding.rule_id)})" if documented else finding.rule_id
            enforcement = "**mandatory**" if finding.enforcement == "mandatory" else "advisory"
            icon = _SEVERITY_ICON.get(finding.severity, "")
            row = (
                f"| {icon} {finding.severity} | {rule} `{finding.policy}` | {enforcement} | "
                f"`{_cell(resource_label(finding.urn))}` | {_cell(finding.message)} |\n"
            )
            if used + len(row) > budget:
                omitted += 1
                continue
            parts.append(row)
            used += len(row)
    waived = "".join(waivers_report.markdown_section(r) for r in results)
    if waived:
        section = "\n### Waived violations\n" + waived
        if used + len(section) <= budget:
            parts.append(section)
            used += len(section)
        else:
            omitted += sum(len(r.waived) for r in results)
    inventory = "".join(waivers_report.inventory_markdown(r) for r in results)
    if inventory:
        section = "\n### Waivers (applied and refused)\n" + inventory
        if used + len(section) <= budget:
            parts.append(section)
            used += len(section)
        else:
            parts.append(
                f"\n> {sum(len(r.waivers) for r in results)} waiver(s) not listed to stay within GitHub's "
                "comment size limit; see the JSON report's `waived.waivers`.\n"
            )
    if omitted:
        parts.append(
            f"\n> {omitted} more violation(s) not shown to stay within GitHub's comment size limit; "
            "see the SARIF or JSON report for the full list.\n"
        )
    parts.append(checkov_reports.markdown(results, max(0, budget - used)))
    parts.append(footer)
    return "".join(parts)
