"""checkov's findings in the text, SARIF, JUnit and Markdown reports."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from gpufleet import report
from gpufleet.evaluate import StackResult
from tests.checkov.fixtures import SG, urn

FINDING = {
    "check_id": "CKV_AWS_24",
    "check_name": "Ensure no security groups allow ingress from 0.0.0.0:0 to port 22",
    "severity": None,
    "guideline": "https://docs.prismacloud.io/x",
    "framework": "terraform_plan",
    "resource": "aws_security_group.ssh-open",
    "urn": urn(SG, "ssh-open"),
    "name": "ssh-open",
    "resource_type": SG,
}


def _result(block: dict[str, Any]) -> StackResult:
    result = StackResult(stack="fixture", project="proj", resources=3)
    result.checkov = block
    return result


RAN = {"passed": 7, "failed": 1, "findings": [FINDING], "status": "ran", "note": None, "version": "3.3.30"}


def test_text_lists_findings_by_logical_name() -> None:
    text = report.render_text([_result(RAN)])
    assert "  checkov 3.3.30: 7 passed, 1 failed\n" in text
    assert (
        "    - CKV_AWS_24 ssh-open: Ensure no security groups allow ingress from 0.0.0.0:0 to port 22\n"
        in text
    )


def test_text_says_why_checkov_did_not_run_and_nothing_when_turned_off() -> None:
    missing = {
        "passed": 0,
        "failed": 0,
        "findings": [],
        "status": "not-found",
        "note": "checkov was not run: x",
    }
    assert "  checkov was not run: x\n" in report.render_text([_result(missing)])
    off = {
        "passed": 0,
        "failed": 0,
        "findings": [],
        "status": "disabled",
        "note": "checkov was not run: --no-checkov",
    }
    assert "checkov" not in report.render_text([_result(off)])


def test_sarif_has_a_checkov_run_with_urns() -> None:
    document = json.loads(report.render_sarif([_result(RAN)]))
    runs = {run["tool"]["driver"]["name"]: run for run in document["runs"]}
    assert set(runs) == {"gpufleet", "checkov"}
    (result,) = runs["checkov"]["results"]
    assert result["ruleId"] == "CKV_AWS_24"
    assert result["level"] == "warning"
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == urn(SG, "ssh-open")
    assert result["properties"]["terraformAddress"] == "aws_security_group.ssh-open"
    assert runs["checkov"]["tool"]["driver"]["rules"][0]["helpUri"] == "https://docs.prismacloud.io/x"


def test_no_checkov_run_in_sarif_when_it_did_not_run() -> None:
    block = {"passed": 0, "failed": 0, "findings": [], "status": "error", "note": "checkov crashed"}
    document = json.loads(report.render_sarif([_result(block)]))
    assert [run["tool"]["driver"]["name"] for run in document["runs"]] == ["gpufleet"]


def test_junit_suite_reports_without_failing() -> None:
    root = ET.fromstring(report.render_junit([_result(RAN)]))
    suite = root.find("testsuite[@name='checkov.proj.fixture']")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("1", "0")
    (case,) = suite.findall("testcase")
    assert (
        case.get("name")
        == "CKV_AWS_24 Ensure no security groups allow ingress from 0.0.0.0:0 to port 22: ssh-open"
    )
    assert case.find("failure") is None
    out = case.find("system-out")
    assert out is not None and out.text is not None and urn(SG, "ssh-open") in out.text


def test_markdown_table_of_findings() -> None:
    text = report.render_markdown([_result(RAN)])
    assert "#### checkov on `fixture`" in text
    assert (
        "| CKV_AWS_24 | `ssh-open` | Ensure no security groups allow ingress from 0.0.0.0:0 to port 22 |"
        in text
    )
    assert text.rstrip().endswith("advisory ones are reported only.")


def test_markdown_stays_within_its_budget() -> None:
    many = {**RAN, "failed": 500, "findings": [FINDING] * 500}
    text = report.render_markdown([_result(many)], limit=4000)
    assert len(text) <= 4000
    assert "more checkov finding(s) not shown" in text


def test_sarif_caps_checkov_results_and_keeps_fingerprints_distinct(monkeypatch: Any) -> None:
    from gpufleet.checkov import reports

    monkeypatch.setattr(reports, "MAX_RESULTS", 3)
    many = {**RAN, "failed": 5, "findings": [FINDING] * 5}
    document = json.loads(report.render_sarif([_result(many)]))
    (run,) = [r for r in document["runs"] if r["tool"]["driver"]["name"] == "checkov"]
    assert len(run["results"]) == 3
    assert run["properties"]["totalFindings"] == 5
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert (
        notes[0]["message"]["text"]
        == "5 checkov findings; only the first 3 are included (GitHub's limit per run)"
    )
    fingerprints = [r["partialFingerprints"]["gpufleetFinding/v1"] for r in run["results"]]
    assert len(set(fingerprints)) == 3
