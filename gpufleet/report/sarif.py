"""The SARIF 2.1.0 report, for GitHub code scanning: one run for the policies, one for checkov."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

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

from gpufleet import finite, report, waivers_report
from gpufleet.checkov import reports as checkov_reports
from gpufleet.docs import rule_doc_url
from gpufleet.evaluate import Finding, StackResult
from gpufleet.policies.rule import GfPolicy
from gpufleet.remediation_fields import field_line
from gpufleet.report.model import resource_label, rule_infos, stack_error, stack_file_of, tool_version

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/gpufleet/gpufleet"
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}
# GitHub code scanning accepts at most this many results per run. `build_sarif` reads the package's
# `gpufleet.report.GITHUB_MAX_RESULTS` on each call, so that is the one name to set.
GITHUB_MAX_RESULTS = 25_000
FINGERPRINT_KEY = "gpufleetFinding/v1"


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
    max_results = report.GITHUB_MAX_RESULTS
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
            if len(sarif_results) >= max_results:
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
    if total > max_results:
        notifications.append(
            Notification(
                message=Message(
                    text=f"{total} findings; only the first {max_results} are included "
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
