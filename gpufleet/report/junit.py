"""The JUnit XML report: one test suite per stack, one test case per rule or per violated resource."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterable, Sequence

from gpufleet import waivers_report
from gpufleet.checkov import reports as checkov_reports
from gpufleet.evaluate import Finding, StackResult
from gpufleet.policies.rule import GfPolicy
from gpufleet.report.model import resource_label, rule_infos, stack_error


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
        _opaque_properties(suite, result)
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
                tests += 1
                failures += _resource_case(suite, classname, name, urn, findings)
        _waived_cases(suite, result)
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


def _opaque_properties(suite: ET.Element, result: StackResult) -> None:
    """The resources the stack's check could not inspect, as suite properties."""
    if not result.opaque:
        return
    properties = ET.SubElement(suite, "properties")
    for item in result.opaque:
        ET.SubElement(
            properties,
            "property",
            name="gpufleet.not-inspected",
            value=f"{item['urn']}: {item['why']}",
        )


def _resource_case(suite: ET.Element, classname: str, name: str, urn: str, findings: list[Finding]) -> int:
    """One rule's test case for one resource: a failure per mandatory finding, the advisory ones in
    system-out. 1 when the case fails, else 0."""
    case = ET.SubElement(suite, "testcase", classname=classname, name=name)
    mandatory = [f for f in findings if f.enforcement == "mandatory"]
    advisory = [f for f in findings if f.enforcement != "mandatory"]
    for finding in mandatory:
        kind = f"{finding.enforcement}/{finding.severity}"
        failure = ET.SubElement(case, "failure", message=finding.message, type=kind)
        failure.text = f"{finding.message}\nresource: {urn or '(stack)'}\nremediation: {finding.remediation}"
    if advisory:
        out = ET.SubElement(case, "system-out")
        out.text = "\n".join(f"advisory ({f.severity}): {f.message}" for f in advisory)
    return 1 if mandatory else 0


def _waived_cases(suite: ET.Element, result: StackResult) -> None:
    """A skipped test case per waived finding, with the waiver's reason."""
    for waived in result.waived:
        finding = waived.finding
        name = f"{finding.rule_id} {finding.policy}: {resource_label(finding.urn)} (waived)"
        case = ET.SubElement(
            suite, "testcase", classname=f"gpufleet.{result.stack}.{finding.rule_id}", name=name
        )
        skipped = ET.SubElement(case, "skipped", message=waivers_report.junit_message(waived, result))
        skipped.text = f"{finding.message}\nresource: {finding.urn or '(stack)'}"
