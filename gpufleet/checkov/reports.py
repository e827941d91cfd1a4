"""checkov's part of the text, SARIF, JUnit and Markdown reports.

checkov's findings are reported, never judged: they do not change the exit status (the policy pack's
mandatory rules do). In SARIF they are a run of their own (tool `checkov`), at warning level; in JUnit a
test suite per stack whose cases pass with the findings in system-out, as advisory rules do.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gpufleet.checkov import overlap

if TYPE_CHECKING:
    from gpufleet.evaluate import StackResult as _Result

MAX_RESULTS = 25_000
"""GitHub code scanning takes at most 25,000 results per run."""


def _label(finding: Mapping[str, Any]) -> str:
    return str(finding.get("name") or finding.get("resource") or "")


def summary(block: Mapping[str, Any]) -> str:
    """`checkov 3.3.30: 103 passed, 13 failed` or why it did not run."""
    status = block.get("status", "ran")
    if status != "ran":
        return str(block.get("note") or f"checkov: {status}")
    version = f" {block['version']}" if block.get("version") else ""
    counts = f"{block.get('passed', 0)} passed, {block.get('failed', 0)} failed"
    if block.get("skipped"):
        counts += f", {block['skipped']} skipped on their resources"
    return f"checkov{version}: {counts}"


def text_lines(block: Mapping[str, Any]) -> list[str]:
    if block.get("status") in (None, "disabled"):
        # Turned off, or a result built without `gpufleet check`: nothing to say.
        return []
    lines = [summary(block)]
    if block.get("status", "ran") == "ran" and block.get("note"):
        lines.append(f"  note: {block['note']}")
    lines += [
        f"  - {f['check_id']} {_label(f)}: {f.get('check_name') or ''}".rstrip()
        for f in block.get("findings", [])
    ]
    lines += [
        f"  ~ {f['check_id']} {_label(f)}: skipped: {f.get('reason')}"
        for f in block.get("skipped_on_resources", [])
    ]
    if block.get("overlap"):
        lines += overlap.text_lines(block["overlap"], lambda urn: str(urn).rsplit("::", 1)[-1])
    return lines


def sarif_run(
    results: Sequence[_Result],
    artifact_of: Callable[[_Result], str],
    line_of: Callable[[str, str], int],
) -> dict[str, Any] | None:
    """A SARIF run (plain JSON) for checkov's findings; None when checkov ran on no stack."""
    ran = [r for r in results if r.checkov.get("status") == "ran"]
    if not ran:
        return None
    rules: dict[str, dict[str, Any]] = {}
    sarif_results: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()
    total = 0
    for result in ran:
        artifact = artifact_of(result)
        for finding in result.checkov.get("findings", []):
            total += 1
            if len(sarif_results) >= MAX_RESULTS:
                continue
            check_id = str(finding["check_id"])
            if check_id not in rules:
                rule: dict[str, Any] = {
                    "id": check_id,
                    "shortDescription": {"text": str(finding.get("check_name") or check_id)},
                    "defaultConfiguration": {"level": "warning"},
                    "properties": {"tags": ["security", "iac", "checkov"]},
                }
                if finding.get("guideline"):
                    rule["helpUri"] = finding["guideline"]
                rules[check_id] = rule
            urn = str(finding.get("urn") or "")
            basis = f"{check_id}\0{urn or finding.get('resource')}\0{result.stack}"
            # The same check on the same resource twice (a Deployment and the pod checkov derives
            # from it) keeps distinct fingerprints.
            seen[basis] += 1
            if seen[basis] > 1:
                basis += f"\0{seen[basis]}"
            sarif_results.append(
                {
                    "ruleId": check_id,
                    "ruleIndex": list(rules).index(check_id),
                    "level": "warning",
                    "message": {"text": f"{finding.get('check_name')} [{result.stack}: {_label(finding)}]"},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": artifact},
                                "region": {"startLine": line_of(artifact, urn)},
                            },
                            "logicalLocations": [
                                {
                                    "name": _label(finding),
                                    "fullyQualifiedName": urn or finding.get("resource"),
                                    "kind": "resource",
                                }
                            ],
                        }
                    ],
                    "partialFingerprints": {
                        "gpufleetFinding/v1": hashlib.sha256(basis.encode()).hexdigest()[:32]
                    },
                    "properties": {
                        "stack": result.stack,
                        "terraformAddress": finding.get("resource"),
                        "framework": finding.get("framework"),
                    },
                }
            )
    version = next((str(r.checkov["version"]) for r in ran if r.checkov.get("version")), "")
    driver: dict[str, Any] = {
        "name": "checkov",
        "informationUri": "https://www.checkov.io",
        "rules": list(rules.values()),
    }
    if version:
        driver["version"] = version
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "results": sarif_results,
        "properties": {"stacks": [r.stack for r in ran], "totalFindings": total},
    }
    if total > MAX_RESULTS:
        note = f"{total} checkov findings; only the first {MAX_RESULTS} are included (GitHub's limit per run)"
        run["invocations"] = [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [{"message": {"text": note}, "level": "warning"}],
            }
        ]
    return run


def junit_suites(root: ET.Element, results: Sequence[_Result]) -> int:
    """One `checkov.<project>.<stack>` suite per stack checkov judged; returns the test cases added."""
    added = 0
    for result in results:
        block = result.checkov
        if block.get("status") != "ran":
            continue
        suite = ET.SubElement(root, "testsuite", name=f"checkov.{result.project}.{result.stack}")
        by_case: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        for finding in block.get("findings", []):
            by_case.setdefault(
                (str(finding["check_id"]), str(finding.get("urn") or finding.get("resource"))), []
            ).append(finding)
        for (check_id, where), findings in sorted(by_case.items()):
            first = findings[0]
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"checkov.{result.stack}.{check_id}",
                name=f"{check_id} {first.get('check_name') or ''}: {_label(first)}".strip(),
            )
            out = ET.SubElement(case, "system-out")
            out.text = f"checkov (reported, not enforced): {first.get('check_name')}\nresource: {where}"
        tests = len(by_case)
        suite.set("tests", str(tests))
        suite.set("failures", "0")
        suite.set("errors", "0")
        suite.set("skipped", "0")
        ET.SubElement(
            ET.SubElement(suite, "properties"),
            "property",
            name="checkov.passed",
            value=str(block.get("passed", 0)),
        )
        added += tests
    return added


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip()


def markdown(results: Sequence[_Result], budget: int) -> str:
    """Per stack a summary line and a table of checkov's findings, within `budget` characters."""
    parts: list[str] = []
    used = 0
    omitted = 0
    for result in results:
        block = result.checkov
        if block.get("status") in (None, "disabled"):
            continue
        head = f"\n#### checkov on `{result.stack}`\n\n{_cell(summary(block))}.\n"
        findings = block.get("findings", []) if block.get("status") == "ran" else []
        if findings:
            head += "\n| Check | Resource | Finding |\n|---|---|---|\n"
        if used + len(head) > budget:
            omitted += len(findings)
            continue
        parts.append(head)
        used += len(head)
        for finding in findings:
            name = _cell(str(finding.get("check_name") or ""))
            row = f"| {finding['check_id']} | `{_cell(_label(finding))}` | {name} |\n"
            if used + len(row) > budget:
                omitted += 1
                continue
            parts.append(row)
            used += len(row)
    if omitted:
        parts.append(f"\n> {omitted} more checkov finding(s) not shown; see the JSON or SARIF report.\n")
    return "".join(parts)
