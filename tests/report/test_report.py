"""Report formats on a small, known result."""

# Expected messages are kept whole so a failing assertion shows the exact text.
# ruff: noqa: E501

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from gpufleet import report
from gpufleet.evaluate import Finding, StackResult
from gpufleet.report import (
    exit_code,
    parse_formats,
    render_json,
    render_junit,
    render_markdown,
    render_rules,
    render_sarif,
    render_text,
    rules_table,
    write_reports,
)
from tests.evaluate.sample_policies import sample_policies

POLICIES = sample_policies()
BUCKET_URN = "urn:pulumi:dev::gpufleet::gpufleet:pools:GpuPool$aws:s3/bucket:Bucket::train-a100-ckpt"
LOGS_URN = "urn:pulumi:dev::gpufleet::aws:cloudwatch/logGroup:LogGroup::train-logs"


def finding(rule_id: str, policy: str, enforcement: str, severity: str, urn: str, message: str) -> Finding:  # noqa: PLR0917
    return Finding(
        rule_id=rule_id,
        policy=policy,
        enforcement=enforcement,
        severity=severity,
        engine="crossguard",
        urn=urn,
        resource_type=urn.split("::")[2].rsplit("$", 1)[-1] if urn else "",
        message=message,
        remediation="Fix it.",
    )


KMS = finding(
    "GF-STOR-901", "sample-bucket-kms", "mandatory", "high", BUCKET_URN, "bucket uses AES256 | not KMS"
)
LOGS = finding("GF-AUD-901", "sample-log-retention", "mandatory", "medium", LOGS_URN, "keeps logs 30 days")
BUDGET = finding("GF-COST-902", "sample-stack-budget", "advisory", "medium", "", "the stack has no budget")


def results() -> list[StackResult]:
    return [
        StackResult(stack="dev", project="gpufleet", resources=12, violations=[KMS, LOGS, BUDGET]),
        StackResult(stack="prod", project="gpufleet", resources=30, stack_file="stacks/Pulumi.prod.yaml"),
    ]


def test_json_is_the_output_contract() -> None:
    from gpufleet.policies.waivers import today

    document = json.loads(render_json(results()))
    assert document == {
        "version": 1,
        "stacks": [
            {
                "stack": "dev",
                "project": "gpufleet",
                "resources": 12,
                "violations": [
                    {
                        "rule_id": "GF-STOR-901",
                        "policy": "sample-bucket-kms",
                        "enforcement": "mandatory",
                        "severity": "high",
                        "engine": "crossguard",
                        "urn": BUCKET_URN,
                        "resource_type": "aws:s3/bucket:Bucket",
                        "message": "bucket uses AES256 | not KMS",
                        "remediation": "Fix it.",
                    },
                    {
                        "rule_id": "GF-AUD-901",
                        "policy": "sample-log-retention",
                        "enforcement": "mandatory",
                        "severity": "medium",
                        "engine": "crossguard",
                        "urn": LOGS_URN,
                        "resource_type": "aws:cloudwatch/logGroup:LogGroup",
                        "message": "keeps logs 30 days",
                        "remediation": "Fix it.",
                    },
                    {
                        "rule_id": "GF-COST-902",
                        "policy": "sample-stack-budget",
                        "enforcement": "advisory",
                        "severity": "medium",
                        "engine": "crossguard",
                        "urn": "",
                        "resource_type": "",
                        "message": "the stack has no budget",
                        "remediation": "Fix it.",
                    },
                ],
                "opaque": [],
                "checkov": {"passed": 0, "failed": 0, "findings": []},
                "cost": None,
                "waived": {"on": today().isoformat(), "findings": [], "waivers": []},
            },
            {
                "stack": "prod",
                "project": "gpufleet",
                "resources": 30,
                "violations": [],
                "opaque": [],
                "checkov": {"passed": 0, "failed": 0, "findings": []},
                "cost": None,
                "waived": {"on": today().isoformat(), "findings": [], "waivers": []},
            },
        ],
    }


def test_exit_code() -> None:
    assert exit_code(results()) == 1
    assert exit_code([StackResult(stack="a", project="p", resources=1, violations=[BUDGET])]) == 0
    assert exit_code([]) == 0


def test_text_groups_by_stack_severity_and_rule() -> None:
    text = render_text(results())
    assert text.splitlines() == [
        "stack dev (project gpufleet): 12 resources, 2 mandatory, 1 advisory violations",
        "  HIGH",
        "    GF-STOR-901 sample-bucket-kms [mandatory] (1)",
        "      - train-a100-ckpt (aws:s3/bucket:Bucket): bucket uses AES256 | not KMS",
        # Each rule's remediation once under its findings (findings fixed by a spec field say so each).
        "      fix: Fix it.",
        "  MEDIUM",
        "    GF-AUD-901 sample-log-retention [mandatory] (1)",
        "      - train-logs (aws:cloudwatch/logGroup:LogGroup): keeps logs 30 days",
        "      fix: Fix it.",
        "    GF-COST-902 sample-stack-budget [advisory] (1)",
        "      - (stack): the stack has no budget",
        "      fix: Fix it.",
        "",
        "stack prod (project gpufleet): 30 resources, 0 mandatory, 0 advisory violations",
        "  passed: no policy violations",
        "",
        "total: 2 stacks, 2 mandatory, 1 advisory violations",
    ]


def sarif(tmp_path: Path) -> Any:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(
        "config:\n  aws:region: us-east-1\n  gpufleet:fleet:\n    pools:\n      train-a100:\n        cloud: aws\n"
    )
    return json.loads(render_sarif(results(), POLICIES, repo_root=tmp_path))


def test_sarif_document_tool_and_rules(tmp_path: Path) -> None:
    document = sarif(tmp_path)
    assert document["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert document["version"] == "2.1.0"
    [run] = document["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("gpufleet", report.tool_version())
    assert driver["informationUri"].startswith("https://")
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted(p.rule.id for p in POLICIES)
    kms = next(r for r in rules if r["id"] == "GF-STOR-901")
    assert kms["name"] == "sample-bucket-kms"
    assert kms["shortDescription"] == {"text": "Buckets are encrypted with aws:kms"}
    assert kms["fullDescription"] == {"text": "GF-STOR-901: Buckets are encrypted with aws:kms"}
    assert kms["helpUri"] == "https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html"
    assert kms["help"]["text"].startswith("Set serverSideEncryptionConfiguration")
    assert kms["defaultConfiguration"] == {"enabled": True, "level": "error"}
    assert kms["properties"]["security-severity"] == "8.0"
    assert {"security", "storage", "aws", "alicloud"} <= set(kms["properties"]["tags"])
    budget = next(r for r in rules if r["id"] == "GF-COST-902")
    assert budget["properties"]["security-severity"] == "5.5"


def test_sarif_results_locations_and_fingerprints(tmp_path: Path) -> None:
    run = sarif(tmp_path)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results_ = run["results"]
    assert [(r["ruleId"], r["level"]) for r in results_] == [
        ("GF-STOR-901", "error"),
        ("GF-AUD-901", "error"),
        ("GF-COST-902", "warning"),
    ]
    for result in results_:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        [location] = result["locations"]
        assert location["physicalLocation"]["artifactLocation"] == {"uri": "stacks/Pulumi.dev.yaml"}
    kms = results_[0]["locations"][0]
    # The pool `train-a100` configures `train-a100-ckpt`: line 5 of the stack file.
    assert kms["physicalLocation"]["region"] == {"startLine": 5}
    assert kms["logicalLocations"] == [
        {"name": "train-a100-ckpt", "kind": "resource", "fullyQualifiedName": BUCKET_URN}
    ]
    assert results_[1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    fingerprints = [r["partialFingerprints"]["gpufleetFinding/v1"] for r in results_]
    assert len(set(fingerprints)) == 3
    assert all(len(f) == 32 for f in fingerprints)
    again = sarif_again(tmp_path)
    assert [r["partialFingerprints"] for r in again["runs"][0]["results"]] == [
        r["partialFingerprints"] for r in results_
    ]


def sarif_again(tmp_path: Path) -> Any:
    return json.loads(render_sarif(results(), POLICIES, repo_root=tmp_path))


def test_sarif_respects_githubs_result_limit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(report, "GITHUB_MAX_RESULTS", 2)
    run = json.loads(render_sarif(results(), POLICIES, repo_root=tmp_path))["runs"][0]
    assert len(run["results"]) == 2
    [notice] = run["invocations"][0]["toolExecutionNotifications"]
    assert notice["message"]["text"].startswith("3 findings; only the first 2 are included")


def test_sarif_key_constraints_of_the_2_1_0_schema(tmp_path: Path) -> None:
    document = sarif(tmp_path)
    assert set(document) == {"$schema", "version", "runs"}
    for run in document["runs"]:
        assert set(run["tool"]["driver"]) >= {"name", "rules"}
        for result in run["results"]:
            assert result["level"] in ("none", "note", "warning", "error")
            assert isinstance(result["message"]["text"], str)
            region = result["locations"][0]["physicalLocation"]["region"]
            assert region["startLine"] >= 1
            assert all(isinstance(v, str) for v in result["partialFingerprints"].values())


def test_junit_counts_failures_per_rule() -> None:
    root = ET.fromstring(render_junit(results(), POLICIES))
    assert root.tag == "testsuites"
    dev, prod = root.findall("testsuite")
    assert dev.get("name") == "gpufleet.gpufleet.dev"
    assert (dev.get("tests"), dev.get("failures")) == ("6", "2")
    assert (prod.get("tests"), prod.get("failures")) == ("6", "0")
    failing = {
        case.get("name", ""): case for case in dev.findall("testcase") if case.find("failure") is not None
    }
    assert sorted(failing) == [
        "GF-AUD-901 sample-log-retention: train-logs (aws:cloudwatch/logGroup:LogGroup)",
        "GF-STOR-901 sample-bucket-kms: train-a100-ckpt (aws:s3/bucket:Bucket)",
    ]
    failure = failing["GF-STOR-901 sample-bucket-kms: train-a100-ckpt (aws:s3/bucket:Bucket)"].find("failure")
    assert failure is not None
    assert (failure.get("message"), failure.get("type")) == ("bucket uses AES256 | not KMS", "mandatory/high")
    advisory = next(c for c in dev.findall("testcase") if c.get("name", "").startswith("GF-COST-902"))
    assert advisory.find("failure") is None
    out = advisory.find("system-out")
    assert out is not None and out.text == "advisory (medium): the stack has no budget"
    assert (root.get("tests"), root.get("failures")) == ("12", "2")


def test_markdown_comment() -> None:
    text = render_markdown(results(), POLICIES)
    assert text.startswith("## gpufleet policy check: ❌ blocked\n")
    assert "### Stack `dev` (gpufleet, 12 resources)" in text
    assert (
        "| 🟧 high | [GF-STOR-901](https://github.com/gpufleet/gpufleet/blob/main/docs/rules.md#gf-stor-901) "
        "`sample-bucket-kms` | **mandatory** | `train-a100-ckpt (aws:s3/bucket:Bucket)` | "
        "bucket uses AES256 \\| not KMS |"
    ) in text
    assert (
        "| 🟨 medium | [GF-COST-902](https://github.com/gpufleet/gpufleet/blob/main/docs/rules.md#gf-cost-902) "
        in text
    )
    assert "| advisory | `(stack)` | the stack has no budget |" in text
    assert "### Stack `prod` (gpufleet, 30 resources)\n\n✅ No policy violations.\n" in text
    assert "**Total:** 2 stack(s), 2 mandatory and 1 advisory violation(s)." in text
    clean = render_markdown([results()[1]], POLICIES)
    assert clean.startswith("## gpufleet policy check: ✅ passing\n")


def test_markdown_stays_under_the_comment_limit() -> None:
    many = [
        finding("GF-STOR-901", "sample-bucket-kms", "mandatory", "high", f"{BUCKET_URN}-{i}", "x" * 200)
        for i in range(1000)
    ]
    text = render_markdown(
        [StackResult(stack="dev", project="gpufleet", resources=1000, violations=many)], POLICIES
    )
    assert len(text) <= 65_536
    assert "more violation(s) not shown to stay within GitHub's comment size limit" in text
    shown = text.count("| 🟧 high |")
    assert f"> {1000 - shown} more violation(s)" in text


def test_write_reports_writes_each_file_atomically(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    rendered = write_reports(
        results(), ["json", "sarif,junit", "md", "text"], out, policies=POLICIES, repo_root=tmp_path
    )
    assert list(rendered) == ["json", "sarif", "junit", "markdown", "text"]
    assert sorted(p.name for p in out.iterdir()) == [
        "gpufleet.json",
        "gpufleet.junit.xml",
        "gpufleet.md",
        "gpufleet.sarif",
        "gpufleet.txt",
    ]
    assert (out / "gpufleet.json").read_text() == rendered["json"]
    printed = write_reports(results(), ["json"], None)
    assert list(printed) == ["json"]


def test_unknown_format_is_rejected() -> None:
    with pytest.raises(
        ValueError, match="unknown report format 'html'; allowed: json, text, sarif, junit, markdown"
    ):
        parse_formats("json,html")


def test_rules_table_and_rendering() -> None:
    rows = rules_table(POLICIES)
    # the engine's own check is listed with the pack's rules
    assert [r["id"] for r in rows] == sorted([*(p.rule.id for p in POLICIES), "GF-ENGINE-001"])
    retention = next(r for r in rows if r["id"] == "GF-AUD-901")
    assert retention == {
        "id": "GF-AUD-901",
        "policy": "sample-log-retention",
        "family": "audit",
        "kind": "resource",
        "clouds": ["aws"],
        "enforcement": "mandatory",
        "severity": "medium",
        "config": {"min_days": {"type": "integer", "default": 180, "minimum": 1}},
        "description": "Log groups keep logs at least min_days",
        "remediation": "Set retentionInDays.",
        "url": "https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/Working-with-log-groups-and-streams.html",
        "checkov": [],
    }
    assert next(r for r in rows if r["id"] == "GF-COST-902")["kind"] == "stack"
    assert json.loads(render_rules(rows, "json"))["rules"] == rows
    text = render_rules(rows, "text").splitlines()
    assert text[0].split() == ["ID", "POLICY", "CLOUDS", "ENFORCEMENT", "SEVERITY", "CONFIG"]
    assert text[1].split() == [
        "GF-AUD-901",
        "sample-log-retention",
        "aws",
        "mandatory",
        "medium",
        "min_days=180",
    ]
    assert text[-1] == "7 rules"
