"""The text report: per stack its cost, then the violations by severity and rule, then the totals."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from gpufleet import waivers_report
from gpufleet.checkov import reports as checkov_reports
from gpufleet.evaluate import Finding, StackResult
from gpufleet.findings import SEVERITY_ORDER
from gpufleet.report.model import (
    cost_summary,
    errors_note,
    opaque_lines,
    resource_label,
    stack_error,
    violation_counts,
)


def render_text(results: Sequence[StackResult]) -> str:
    lines: list[str] = []
    for result in results:
        error = stack_error(result)
        if error is not None:
            lines.extend(
                [f"stack {result.stack} (project {result.project}): error, not checked", f"  {error}", ""]
            )
            continue
        lines.append(
            f"stack {result.stack} (project {result.project}): {result.resources} resources, "
            f"{violation_counts(result.violations)} violations"
        )
        if result.cost:
            lines.append(f"  cost: {cost_summary(result.cost)}")
        lines.extend(f"  {line}" for line in opaque_lines(result))
        lines.extend(f"  note: {note}" for note in result.notes)
        lines.extend(f"  {line}" for line in checkov_reports.text_lines(result.checkov))
        lines.extend(f"  {line}" for line in waivers_report.text_lines(result))
        lines.extend(f"  {line}" for line in waivers_report.inventory_text_lines(result))
        if not result.violations:
            lines.append("  passed: no policy violations")
        by_severity: dict[str, list[Finding]] = defaultdict(list)
        for finding in result.violations:
            by_severity[finding.severity].append(finding)
        ranked = sorted(by_severity, key=lambda s: SEVERITY_ORDER.index(s) if s in SEVERITY_ORDER else 9)
        for severity in ranked:
            lines.append(f"  {severity.upper() or 'UNSPECIFIED'}")
            by_rule: dict[str, list[Finding]] = defaultdict(list)
            for finding in by_severity[severity]:
                by_rule[finding.rule_id].append(finding)
            for rule_id in sorted(by_rule):
                findings = by_rule[rule_id]
                first = findings[0]
                lines.append(f"    {rule_id} {first.policy} [{first.enforcement}] ({len(findings)})")
                for finding in findings:
                    lines.append(f"      - {resource_label(finding.urn)}: {finding.message}")
                    if finding.spec_field:
                        lines.append(f"        fix: {finding.remediation}")
                generic = [f for f in findings if not f.spec_field and f.remediation]
                if generic:
                    lines.append(f"      fix: {generic[0].remediation}")
        lines.append("")
    total = [f for r in results for f in r.violations]
    stacks = f"{len(results)} stack{'' if len(results) == 1 else 's'}"
    waived = waivers_report.totals(results)
    lines.append(
        f"total: {stacks}, {violation_counts(total)} violations{errors_note(results)}"
        + (f"; {waived}" if waived else "")
    )
    return "\n".join(lines) + "\n"
