"""Reports of policy findings: JSON (the DESIGN.md contract), text, SARIF 2.1.0, JUnit XML and Markdown.

Every renderer takes the list of StackResult of one `gpufleet check` run. Renderers that describe rules
(SARIF rules[], JUnit test cases, Markdown links) take the evaluated policies too; without them they fall
back to what the findings themselves carry.
"""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from pulumi_policy import ResourceValidationPolicy
from sarif_pydantic.sarif import (
    ArtifactLocation,
    Invocation,
    Level,
    Location,
    LogicalLocation,
    Message,
    Notification,
    PhysicalLocation,
    Region,
    ReportingConfiguration,
    ReportingDescriptor,
    Result,
    Run,
    Sarif,
    Tool,
    ToolDriver,
)

from gpufleet import finite, waivers_report
from gpufleet.atomic import write_files_atomically
from gpufleet.checkov import reports as checkov_reports
from gpufleet.docs import rule_doc_url
from gpufleet.evaluate import (
    OPAQUE_DESCRIPTION,
    OPAQUE_POLICY,
    OPAQUE_REMEDIATION,
    OPAQUE_RULE_ID,
    OPAQUE_SEVERITY,
    SEVERITY_ORDER,
    Finding,
    StackResult,
)
from gpufleet.remediation_fields import field_line
from policies.rule import GfPolicy

REPORT_VERSION = 1
FORMATS = ("json", "text", "sarif", "junit", "markdown")
FILE_NAMES = {
    "json": "gpufleet.json",
    "sarif": "gpufleet.sarif",
    "junit": "gpufleet.junit.xml",
    "markdown": "gpufleet.md",
    "text": "gpufleet.txt",
}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/gpufleet/gpufleet"
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}
GITHUB_MAX_RESULTS = 25_000
GITHUB_COMMENT_LIMIT = 65_536
FINGERPRINT_KEY = "gpufleetFinding/v1"


def tool_version() -> str:
    try:
        return metadata.version("gpufleet")
    except metadata.PackageNotFoundError:
        return "0.1.0"


def exit_code(results: Iterable[StackResult]) -> int:
    """0 when no stack has a mandatory violation, 1 otherwise."""
    return 1 if any(result.mandatory_violations for result in results) else 0


# --- rule metadata -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleInfo:
    id: str
    policy: str
    description: str
    severity: str
    enforcement: str
    remediation: str
    url: str
    clouds: tuple[str, ...] = ()
    family: str = ""


ENGINE_FAMILY = "engine"
ENGINE_RULE = RuleInfo(
    id=OPAQUE_RULE_ID,
    policy=OPAQUE_POLICY,
    description=OPAQUE_DESCRIPTION,
    severity=OPAQUE_SEVERITY,
    enforcement="advisory",
    remediation=OPAQUE_REMEDIATION,
    url="",
    clouds=("aws", "alicloud", "tencentcloud", "kubernetes"),
    family=ENGINE_FAMILY,
)


def rule_infos(results: Sequence[StackResult], policies: Iterable[GfPolicy] | None) -> dict[str, RuleInfo]:
    """Rule metadata by rule id: from the policies when given, else from the findings."""
    infos: dict[str, RuleInfo] = {}
    if any(f.rule_id == OPAQUE_RULE_ID for result in results for f in result.violations):
        infos[OPAQUE_RULE_ID] = ENGINE_RULE
    for policy in policies or ():
        rule = policy.rule
        infos[rule.id] = RuleInfo(
            id=rule.id,
            policy=policy.name,
            description=policy.description,
            severity=rule.severity.value,
            enforcement=rule.enforcement.value,
            remediation=rule.remediation,
            url=rule.url,
            clouds=tuple(rule.clouds),
            family=rule.family,
        )
    for result in results:
        for finding in result.violations:
            if finding.rule_id not in infos:
                infos[finding.rule_id] = RuleInfo(
                    id=finding.rule_id,
                    policy=finding.policy,
                    description=f"{finding.rule_id}: {finding.policy}",
                    severity=finding.severity,
                    enforcement=finding.enforcement,
                    remediation=finding.remediation,
                    url="",
                )
    return dict(sorted(infos.items()))


def resource_label(urn: str) -> str:
    """`aws:s3/bucket:Bucket::ckpt` -> `ckpt (aws:s3/bucket:Bucket)`; "" -> `(stack)`."""
    if not urn:
        return "(stack)"
    parts = urn.split("::")
    if len(parts) >= 4:
        qualified, name = parts[2], parts[3]
        return f"{name} ({qualified.rsplit('$', 1)[-1]})"
    return urn


# --- json --------------------------------------------------------------------------------------------


def render_json(results: Sequence[StackResult]) -> str:
    document = {"version": REPORT_VERSION, "stacks": [result.to_json() for result in results]}
    return finite.dumps(document, default=str)


# --- text --------------------------------------------------------------------------------------------


def _counts(findings: Sequence[Finding]) -> str:
    mandatory = sum(1 for f in findings if f.enforcement == "mandatory")
    advisory = len(findings) - mandatory
    return f"{mandatory} mandatory, {advisory} advisory"


def cost_summary(cost: Mapping[str, Any]) -> str:
    """`USD 145.48 a month estimated (4.85% of the 3000.00 budget); 0.00 to 1.70 an hour`."""
    currency = cost.get("currency") or ""
    text = f"{currency} {float(cost.get('monthly_estimate') or 0):.2f} a month estimated"
    budget, used = cost.get("budget"), cost.get("budget_used_percent")
    if budget is not None and used is not None:
        text += f" ({float(used):.2f}% of the {float(budget):.2f} budget)"
    hourly_min, hourly_max = float(cost.get("hourly_min") or 0), float(cost.get("hourly_max") or 0)
    text += f"; {hourly_min:.2f} to {hourly_max:.2f} an hour"
    unpriced = cost.get("unpriced") or []
    if unpriced:
        text += f"; warning: unpriced, left out of the estimate: {'; '.join(str(u) for u in unpriced)}"
    return text


def opaque_lines(result: StackResult) -> list[str]:
    """`not inspected: N components ...` and one line per component the engine could not look inside."""
    if not result.opaque:
        return []
    count = len(result.opaque)
    lines = [
        f"not inspected: {count} component{'' if count == 1 else 's'} built by a provider plugin "
        f"could not be looked inside offline ({OPAQUE_RULE_ID})"
    ]
    lines.extend(f"  - {resource_label(item['urn'])}: {item['why']}" for item in result.opaque)
    return lines


def stack_error(result: StackResult) -> str | None:
    """Why a stack could not be checked (`check --all-stacks`), message and details in one paragraph."""
    if result.error is None:
        return None
    details = [str(line).strip() for line in result.error.get("details") or ()]
    return " ".join([str(result.error.get("message", "")).strip(), *details]).strip()


def _errors_note(results: Sequence[StackResult]) -> str:
    broken = sum(1 for result in results if result.error is not None)
    return f", {broken} stack{'' if broken == 1 else 's'} could not be checked" if broken else ""


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
            f"{_counts(result.violations)} violations"
        )
        if result.cost:
            lines.append(f"  cost: {cost_summary(result.cost)}")
        lines.extend(f"  {line}" for line in opaque_lines(result))
        lines.extend(f"  {line}" for line in checkov_reports.text_lines(result.checkov))
        lines.extend(f"  {line}" for line in waivers_report.text_lines(result))
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
        f"total: {stacks}, {_counts(total)} violations{_errors_note(results)}"
        + (f"; {waived}" if waived else "")
    )
    return "\n".join(lines) + "\n"


# --- sarif -------------------------------------------------------------------------------------------


def stack_file_of(result: StackResult) -> str:
    """The stack file as a repository-relative path (the CLI sets it; `stacks/` is this project's layout)."""
    return result.stack_file or f"stacks/Pulumi.{result.stack}.yaml"


def _name_candidates(urn: str) -> list[str]:
    """The resource's logical name and its dash-separated parts, longest first: children are named after
    their component (`train-a100-asg` belongs to pool `train-a100`; `gpufleet-dev-pool-experiments-asg`
    to pool `experiments`), and stack files key pools and sections by that name."""
    if not urn:
        return []
    parts = urn.rsplit("::", 1)[-1].split("-")
    spans = [
        (end - start, start, "-".join(parts[start:end]))
        for start in range(len(parts))
        for end in range(start + 1, len(parts) + 1)
    ]
    # Longest first; among equal lengths the leftmost, so a full prefix beats a fragment.
    ordered = [text for _, _, text in sorted(spans, key=lambda span: (-span[0], span[1]))]
    return [c for c in dict.fromkeys(ordered) if len(c) >= 3]


class _StackFileLines:
    """Finds the line of a stack file that configures a resource; line 1 when nothing matches."""

    def __init__(self, repo_root: Path) -> None:
        self.repo_root = repo_root
        self.cache: dict[str, list[str]] = {}

    def lines(self, relative: str) -> list[str]:
        if relative not in self.cache:
            try:
                self.cache[relative] = (self.repo_root / relative).read_text().splitlines()
            except (OSError, UnicodeDecodeError):
                self.cache[relative] = []
        return self.cache[relative]

    def finding_line(self, relative: str, finding: Finding) -> int:
        """The line of the spec field the remediation sets, where it has one; else the resource's."""
        if finding.spec_field:
            line = field_line("\n".join(self.lines(relative)), finding.spec_field)
            if line is not None:
                return line
        return self.line_of(relative, finding.urn)

    def line_of(self, relative: str, urn: str) -> int:
        lines = self.lines(relative)
        for candidate in _name_candidates(urn):
            # A YAML key ends in `: ` or `:` at the end of the line; `gpufleet:fleet:` is a config
            # namespace, not a key named `gpufleet`.
            pattern = re.compile(rf"^\s*-?\s*['\"]?{re.escape(candidate)}['\"]?\s*:(\s|$)")
            for number, text in enumerate(lines, start=1):
                if pattern.match(text):
                    return number
        return 1


def _fingerprint(rule_id: str, urn: str, stack: str, seen: Counter[str]) -> str:
    basis = f"{rule_id}\0{urn or 'stack:' + stack}"
    seen[basis] += 1
    if seen[basis] > 1:
        # Two findings of one rule on one resource stay two alerts.
        basis += f"\0{seen[basis]}"
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def build_sarif(
    results: Sequence[StackResult],
    policies: Iterable[GfPolicy] | None = None,
    *,
    repo_root: Path | None = None,
) -> Sarif:
    infos = rule_infos(results, policies)
    rule_ids = list(infos)
    descriptors = [
        ReportingDescriptor(
            id=info.id,
            name=info.policy,
            short_description=Message(text=info.description.split(": ", 1)[-1][:1024] or info.id),
            full_description=Message(text=info.description),
            help_uri=info.url or None,
            help=Message(
                text=info.remediation or info.description,
                markdown=(
                    f"**{info.id}** {info.description.split(': ', 1)[-1]}\n\nRemediation: {info.remediation}"
                    + (f"\n\n[{info.url}]({info.url})" if info.url else "")
                    + (
                        f"\n\n[{info.id} in the rules reference]({rule_doc_url(info.id)})"
                        if info.family
                        else ""
                    )
                ),
            ),
            default_configuration=ReportingConfiguration(level=_level(info.enforcement).value),
            properties={
                "tags": ["security", "iac", "pulumi", *([info.family] if info.family else []), *info.clouds],
                "security-severity": SECURITY_SEVERITY.get(info.severity, "5.5"),
                "problem.severity": "error" if info.enforcement == "mandatory" else "warning",
                "precision": "high",
            },
        )
        for info in infos.values()
    ]
    lines = _StackFileLines(repo_root or Path.cwd())
    sarif_results: list[Result] = []
    seen: Counter[str] = Counter()
    total = 0
    for result in results:
        artifact = stack_file_of(result)
        waived = [(w.finding, waivers_report.suppression(w, result)) for w in result.waived]
        for finding, suppression in [*((f, None) for f in result.violations), *waived]:
            total += 1
            if len(sarif_results) >= GITHUB_MAX_RESULTS:
                continue
            sarif_results.append(
                Result(
                    rule_id=finding.rule_id,
                    rule_index=rule_ids.index(finding.rule_id),
                    level=_level(finding.enforcement),
                    message=Message(
                        text=f"{finding.message} [{result.stack}: {resource_label(finding.urn)}]"
                    ),
                    locations=[
                        Location(
                            physical_location=PhysicalLocation(
                                artifact_location=ArtifactLocation(uri=artifact),
                                region=Region(start_line=lines.finding_line(artifact, finding)),
                            ),
                            logical_locations=[
                                LogicalLocation(
                                    name=finding.urn.rsplit("::", 1)[-1] if finding.urn else result.stack,
                                    fully_qualified_name=(
                                        finding.urn or f"stack:{result.project}/{result.stack}"
                                    ),
                                    kind="resource",
                                )
                            ],
                        )
                    ],
                    partial_fingerprints={
                        FINGERPRINT_KEY: _fingerprint(finding.rule_id, finding.urn, result.stack, seen)
                    },
                    properties={
                        "stack": result.stack,
                        "enforcement": finding.enforcement,
                        "severity": finding.severity,
                        "resourceType": finding.resource_type,
                    },
                    # sarif_pydantic's Result names it `suppression`; SARIF 2.1.0 has `suppressions`.
                    **({"suppressions": [suppression]} if suppression else {}),
                )
            )
    notifications = [
        Notification(message=Message(text=f"stack {result.stack}: not checked: {error}"), level="error")
        for result in results
        if (error := stack_error(result)) is not None
    ]
    if total > GITHUB_MAX_RESULTS:
        notifications.append(
            Notification(
                message=Message(
                    text=f"{total} findings; only the first {GITHUB_MAX_RESULTS} are included "
                    "(GitHub code scanning accepts at most 25,000 results per run)"
                ),
                level="warning",
            )
        )
    run = Run(
        tool=Tool(
            driver=ToolDriver(
                name="gpufleet",
                version=tool_version(),
                semantic_version=tool_version(),
                information_uri=INFORMATION_URI,
                rules=descriptors,
            )
        ),
        # sarif_pydantic's Invocation lacks toolExecutionNotifications; extra fields keep the SARIF name.
        invocations=[
            Invocation(
                execution_successful=all(result.error is None for result in results),
                **({"toolExecutionNotifications": notifications} if notifications else {}),
            )
        ],
        results=sarif_results,
        properties={
            "stacks": [r.stack for r in results],
            "totalFindings": total,
            "opaqueComponents": [{"stack": r.stack, **item} for r in results for item in r.opaque],
        },
    )
    return Sarif(version=SARIF_VERSION, schema_uri=SARIF_SCHEMA, runs=[run])


def _level(enforcement: str) -> Level:
    return Level.ERROR if enforcement == "mandatory" else Level.WARNING


def render_sarif(
    results: Sequence[StackResult],
    policies: Iterable[GfPolicy] | None = None,
    *,
    repo_root: Path | None = None,
) -> str:
    sarif = build_sarif(results, policies, repo_root=repo_root)
    dumped = sarif.model_dump(mode="json", by_alias=True, exclude_none=True)
    lines = _StackFileLines(repo_root or Path.cwd())
    checkov_run = checkov_reports.sarif_run(results, stack_file_of, lines.line_of)
    if checkov_run is not None:
        dumped["runs"].append(checkov_run)
    document, replaced = finite.finite(dumped)
    if replaced:
        for run in document.get("runs", []):
            run.setdefault("properties", {}).setdefault("notes", []).append(finite.note(replaced))
    return json.dumps(document, indent=2, allow_nan=False) + "\n"


# --- junit -------------------------------------------------------------------------------------------


def render_junit(results: Sequence[StackResult], policies: Iterable[GfPolicy] | None = None) -> str:
    """One testsuite per stack; per rule a passing test case, or one failing test case per violated
    resource. Mandatory violations are failures; advisory ones pass with their findings in system-out,
    so the report shows them without turning CI red."""
    infos = rule_infos(results, policies)
    root = ET.Element("testsuites", name="gpufleet")
    all_tests = all_failures = 0
    all_errors = 0
    for result in results:
        suite = ET.SubElement(root, "testsuite", name=f"gpufleet.{result.project}.{result.stack}")
        error = stack_error(result)
        if error is not None:
            case = ET.SubElement(
                suite, "testcase", classname=f"gpufleet.{result.stack}", name="stack checked"
            )
            ET.SubElement(case, "error", message=error, type="not-checked").text = error
            suite.attrib.update(tests="1", failures="0", errors="1", skipped="0")
            all_tests += 1
            all_errors += 1
            continue
        if result.opaque:
            properties = ET.SubElement(suite, "properties")
            for item in result.opaque:
                ET.SubElement(
                    properties,
                    "property",
                    name="gpufleet.not-inspected",
                    value=f"{item['urn']}: {item['why']}",
                )
        by_rule: dict[str, dict[str, list[Finding]]] = defaultdict(lambda: defaultdict(list))
        for finding in result.violations:
            by_rule[finding.rule_id][finding.urn].append(finding)
        tests = failures = 0
        for rule_id, info in infos.items():
            classname = f"gpufleet.{result.stack}.{rule_id}"
            if rule_id not in by_rule:
                ET.SubElement(suite, "testcase", classname=classname, name=f"{rule_id} {info.policy}")
                tests += 1
                continue
            for urn, findings in sorted(by_rule[rule_id].items()):
                name = f"{rule_id} {info.policy}: {resource_label(urn)}"
                case = ET.SubElement(suite, "testcase", classname=classname, name=name)
                tests += 1
                mandatory = [f for f in findings if f.enforcement == "mandatory"]
                advisory = [f for f in findings if f.enforcement != "mandatory"]
                for finding in mandatory:
                    kind = f"{finding.enforcement}/{finding.severity}"
                    failure = ET.SubElement(case, "failure", message=finding.message, type=kind)
                    failure.text = (
                        f"{finding.message}\nresource: {urn or '(stack)'}\nremediation: {finding.remediation}"
                    )
                if mandatory:
                    failures += 1
                if advisory:
                    out = ET.SubElement(case, "system-out")
                    out.text = "\n".join(f"advisory ({f.severity}): {f.message}" for f in advisory)
        for waived in result.waived:
            finding = waived.finding
            name = f"{finding.rule_id} {finding.policy}: {resource_label(finding.urn)} (waived)"
            case = ET.SubElement(
                suite, "testcase", classname=f"gpufleet.{result.stack}.{finding.rule_id}", name=name
            )
            skipped = ET.SubElement(case, "skipped", message=waivers_report.junit_message(waived, result))
            skipped.text = f"{finding.message}\nresource: {finding.urn or '(stack)'}"
        tests += len(result.waived)
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(len(result.waived)))
        all_tests += tests
        all_failures += failures
    all_tests += checkov_reports.junit_suites(root, results)
    root.set("tests", str(all_tests))
    root.set("failures", str(all_failures))
    root.set("errors", str(all_errors))
    root.set("skipped", str(sum(len(r.waived) for r in results)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# --- markdown ----------------------------------------------------------------------------------------

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
        f"{len(total) - mandatory_total} advisory violation(s){_errors_note(results)}. "
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
            f"{_counts(result.violations)} violation(s).\n\n"
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
    if omitted:
        parts.append(
            f"\n> {omitted} more violation(s) not shown to stay within GitHub's comment size limit; "
            "see the SARIF or JSON report for the full list.\n"
        )
    parts.append(checkov_reports.markdown(results, max(0, budget - used)))
    parts.append(footer)
    return "".join(parts)


# --- writing -----------------------------------------------------------------------------------------


def render(
    results: Sequence[StackResult],
    fmt: str,
    policies: Iterable[GfPolicy] | None = None,
    *,
    repo_root: Path | None = None,
) -> str:
    if fmt == "json":
        return render_json(results)
    if fmt == "text":
        return render_text(results)
    if fmt == "sarif":
        return render_sarif(results, policies, repo_root=repo_root)
    if fmt == "junit":
        return render_junit(results, policies)
    if fmt == "markdown":
        return render_markdown(results, policies)
    raise ValueError(f"unknown report format {fmt!r}; allowed: {', '.join(FORMATS)}")


def parse_formats(value: str | Sequence[str]) -> list[str]:
    """`"sarif,junit"` or ["sarif", "junit"] -> validated, de-duplicated list; `md` means markdown."""
    items = value.split(",") if isinstance(value, str) else [p for v in value for p in v.split(",")]
    formats: list[str] = []
    aliases = {"md": "markdown", "xml": "junit", "txt": "text"}
    for raw in (i.strip().lower() for i in items):
        if not raw:
            continue
        item = aliases.get(raw, raw)
        if item not in FORMATS:
            raise ValueError(f"unknown report format {item!r}; allowed: {', '.join(FORMATS)}")
        if item not in formats:
            formats.append(item)
    return formats or ["text"]


def write_reports(
    results: Sequence[StackResult],
    formats: Sequence[str],
    output_dir: Path | None,
    *,
    policies: Iterable[GfPolicy] | None = None,
    repo_root: Path | None = None,
) -> dict[str, str]:
    """Render every format; with `output_dir`, also write each to its file.

    Every report is rendered and staged in a temporary file before the first one is renamed into place,
    so a failure while rendering or writing leaves the previous reports (if any) untouched.
    Returns format -> rendered text; without an output dir the caller prints the one it wants.
    """
    policy_list = list(policies) if policies is not None else None
    rendered = {fmt: render(results, fmt, policy_list, repo_root=repo_root) for fmt in parse_formats(formats)}
    if output_dir is not None:
        output_dir.mkdir(parents=True, exist_ok=True)
        write_files_atomically({output_dir / FILE_NAMES[fmt]: text for fmt, text in rendered.items()})
    return rendered


# --- gpufleet rules ----------------------------------------------------------------------------------


def rules_table(registry: Iterable[GfPolicy]) -> list[dict[str, Any]]:
    """Every implemented rule: id, policy, clouds, enforcement, severity, config schema and docs."""
    rows = []
    for policy in registry:
        rule = policy.rule
        rows.append(
            {
                "id": rule.id,
                "policy": policy.name,
                "family": rule.family,
                "kind": "resource" if isinstance(policy, ResourceValidationPolicy) else "stack",
                "clouds": list(rule.clouds),
                "enforcement": rule.enforcement.value,
                "severity": rule.severity.value,
                "config": {key: dict(schema) for key, schema in rule.config.items()},
                "description": rule.description,
                "remediation": rule.remediation,
                "url": rule.url,
                "checkov": list(rule.checkov),
            }
        )
    rows.append(engine_rule_row())
    return sorted(rows, key=lambda row: row["id"])


def engine_rule_row() -> dict[str, Any]:
    """GF-ENGINE-001, the engine's own check (not a policy of the pack), as a `gpufleet rules` row."""
    return {
        "id": ENGINE_RULE.id,
        "policy": ENGINE_RULE.policy,
        "family": ENGINE_FAMILY,
        "kind": "engine",
        "clouds": list(ENGINE_RULE.clouds),
        "enforcement": ENGINE_RULE.enforcement,
        "severity": ENGINE_RULE.severity,
        "config": {},
        "description": ENGINE_RULE.description,
        "remediation": ENGINE_RULE.remediation,
        "url": ENGINE_RULE.url,
        "checkov": [],
    }


def _config_summary(config: Mapping[str, Mapping[str, Any]]) -> str:
    return ", ".join(f"{k}={json.dumps(v.get('default'))}" for k, v in config.items()) or "-"


def render_rules(rows: Sequence[Mapping[str, Any]], fmt: str = "text") -> str:
    if fmt == "json":
        return finite.dumps({"version": REPORT_VERSION, "rules": list(rows)})
    if fmt != "text":
        raise ValueError(f"unknown rules format {fmt!r}; allowed: json, text")
    header = ("ID", "POLICY", "CLOUDS", "ENFORCEMENT", "SEVERITY", "CONFIG")
    table = [header] + [
        (
            str(r["id"]),
            str(r["policy"]),
            ",".join(r["clouds"]),
            str(r["enforcement"]),
            str(r["severity"]),
            _config_summary(r["config"]),
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    lines = [
        "  ".join([*(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)), row[-1]]).rstrip()
        for row in table
    ]
    lines.append(f"{len(rows)} rules")
    return "\n".join(lines) + "\n"
