"""The Markdown report: a pull-request comment, kept under GitHub's comment size limit."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from gpufleet import waivers_report
from gpufleet.checkov import reports as checkov_reports
from gpufleet.docs import rule_doc_url
from gpufleet.evaluate import Finding, StackResult
from gpufleet.findings import OPAQUE_RULE_ID
from gpufleet.policies.rule import GfPolicy
from gpufleet.report.model import (
    RuleInfo,
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


class _Comment:
    """The comment's parts, and how much of the size budget they use."""

    def __init__(self, first: str, budget: int) -> None:
        self.parts = [first]
        self.budget = budget
        self.used = len(first)
        self.omitted = 0

    def force(self, text: str) -> None:
        """Add `text` whatever its size."""
        self.parts.append(text)
        self.used += len(text)

    def fits(self, text: str) -> bool:
        """Add `text` when it fits the budget; False when it does not (nothing is added)."""
        if self.used + len(text) > self.budget:
            return False
        self.force(text)
        return True


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
    comment = _Comment(f"## gpufleet policy check: {status}\n", limit - len(footer) - 300)
    for result in results:
        _stack_section(comment, result, infos)
    _waiver_sections(comment, results)
    # The closing notes are not counted against the budget (it keeps 300 characters for them).
    if comment.omitted:
        comment.parts.append(
            f"\n> {comment.omitted} more violation(s) not shown to stay within GitHub's comment size limit; "
            "see the SARIF or JSON report for the full list.\n"
        )
    comment.parts.append(checkov_reports.markdown(results, max(0, comment.budget - comment.used)))
    comment.parts.append(footer)
    return "".join(comment.parts)


def _stack_section(comment: _Comment, result: StackResult, infos: Mapping[str, RuleInfo]) -> None:
    """One stack's section: why it was not checked, its passing line, or its table of violations."""
    error = stack_error(result)
    if error is not None:
        comment.force(f"\n### Stack `{result.stack}` ({result.project})\n\n⛔ Not checked: {_cell(error)}\n")
        return
    header = _stack_header(result)
    if not result.violations:
        comment.fits(header + "✅ No policy violations.\n")
        return
    block = header + (
        f"{violation_counts(result.violations)} violation(s).\n\n"
        "| Severity | Rule | Enforcement | Resource | Message |\n|---|---|---|---|---|\n"
    )
    if not comment.fits(block):
        comment.omitted += len(result.violations)
        return
    for finding in result.violations:
        if not comment.fits(_finding_row(finding, infos)):
            comment.omitted += 1


def _stack_header(result: StackResult) -> str:
    """The stack's heading, with its cost and the components that could not be inspected."""
    header = f"\n### Stack `{result.stack}` ({result.project}, {result.resources} resources)\n\n"
    if result.cost:
        header += f"Cost: {cost_summary(result.cost)}.\n\n"
    if result.opaque:
        names = ", ".join(f"`{_cell(resource_label(item['urn']))}`" for item in result.opaque)
        header += (
            f"⚠️ Not inspected: {len(result.opaque)} component(s) built by a provider plugin could not "
            f"be looked inside offline ({OPAQUE_RULE_ID}): {names}.\n\n"
        )
    return header


def _finding_row(finding: Finding, infos: Mapping[str, RuleInfo]) -> str:
    """A violation's table row; the rule links to its reference section when it has one."""
    info = infos.get(finding.rule_id)
    # Only rules of the evaluated pack carry a family, and each has a section in the reference.
    documented = info is not None and bool(info.family)
    rule = f"[{finding.rule_id}]({rule_doc_url(finding.rule_id)})" if documented else finding.rule_id
    enforcement = "**mandatory**" if finding.enforcement == "mandatory" else "advisory"
    icon = _SEVERITY_ICON.get(finding.severity, "")
    return (
        f"| {icon} {finding.severity} | {rule} `{finding.policy}` | {enforcement} | "
        f"`{_cell(resource_label(finding.urn))}` | {_cell(finding.message)} |\n"
    )


def _waiver_sections(comment: _Comment, results: Sequence[StackResult]) -> None:
    """The waived violations and the waiver inventory, or notes counting what did not fit."""
    waived = "".join(waivers_report.markdown_section(r) for r in results)
    if waived and not comment.fits("\n### Waived violations\n" + waived):
        comment.omitted += sum(len(r.waived) for r in results)
    inventory = "".join(waivers_report.inventory_markdown(r) for r in results)
    if inventory and not comment.fits("\n### Waivers (applied and refused)\n" + inventory):
        comment.parts.append(
            f"\n> {sum(len(r.waivers) for r in results)} waiver(s) not listed to stay within GitHub's "
            "comment size limit; see the JSON report's `waived.waivers`.\n"
        )
