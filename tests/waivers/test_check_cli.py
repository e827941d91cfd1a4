"""`gpufleet check` and `gpufleet waivers` on a program with one expired and one valid waiver, and the
waivers in every report format. The clock is fixed at 2026-12-01 (conftest)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli.helpers import Run, invoke

HERE = Path(__file__).resolve().parent
SCHEMA = json.loads((HERE / "sarif-2.1.0-suppression.schema.json").read_text(encoding="utf-8"))
LEGACY = "urn:pulumi:dev::waiver-demo::aws:s3/bucket:Bucket::legacy-logs"
SCRATCH = "urn:pulumi:dev::waiver-demo::aws:s3/bucket:Bucket::scratch"
TAG = "gpufleet:waive:GF-STOR-001"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(HERE / "project", target, ignore=shutil.ignore_patterns("__pycache__"))
    # Tag waivers are off unless the policy config allows them: this one does.
    config = {
        "waivers": {"allow_tags": True},
        "GF-STOR-001": {
            "waivers": [
                {
                    "resource": "aws:s3/bucket:Bucket::legacy-*",
                    "reason": "old log bucket, emptied by the migration",
                    "owner": "platform",
                    "expires": "2026-11-15",
                }
            ]
        },
    }
    (target / "policy-config.json").write_text(json.dumps(config), encoding="utf-8")
    return target


@pytest.fixture
def reports(project: Path, tmp_path: Path) -> Iterator[tuple[Run, Path]]:
    out = tmp_path / "out"
    run = invoke(
        "check", str(project), "-s", "dev", "--rules", "GF-STOR-001", "--no-checkov",
        "-f", "json,text,sarif,junit,markdown", "-o", str(out),
    )  # fmt: skip
    yield run, out


def test_one_expired_and_one_valid_waiver(reports: tuple[Run, Path]) -> None:
    run, out = reports
    assert run.exit_code == 1, run.stdout + run.stderr  # the expired waiver no longer holds
    (stack,) = json.loads((out / "gpufleet.json").read_text())["stacks"]
    assert [(v["rule_id"], v["urn"], v["enforcement"]) for v in stack["violations"]] == [
        ("GF-STOR-001", LEGACY, "mandatory"),
        ("GF-WAIVER-001", "", "advisory"),
    ]
    assert stack["violations"][0]["message"].endswith(
        "; waiver not applied, it expired: old log bucket, emptied by the migration (owner platform, "
        "expired 2026-11-15, policy-config)"
    )
    assert stack["violations"][1]["message"].startswith(
        "the GF-STOR-001 waiver for 'aws:s3/bucket:Bucket::legacy-*' expired on 2026-11-15"
    )
    waived = stack["waived"]
    assert waived["on"] == "2026-12-01"
    (finding,) = waived["findings"]
    assert (finding["rule_id"], finding["urn"], finding["enforcement"]) == (
        "GF-STOR-001",
        SCRATCH,
        "mandatory",
    )
    assert finding["waiver"] == {
        "rule_id": "GF-STOR-001",
        "resource": SCRATCH,
        "reason": "scratch data, rebuilt nightly",
        "owner": "ml-team",
        "expires": "2027-01-31",
        "source": f"tag {TAG}",
        "state": "active",
        "days_left": 61,
    }
    assert [
        (w["resource"], w["state"], w["applied"], w["refused"], w["file"]) for w in waived["waivers"]
    ] == [
        ("aws:s3/bucket:Bucket::legacy-*", "expired", 0, None, "policy-config.json"),
        (SCRATCH, "active", 1, None, None),
    ]


def _suppressed(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for run in document["runs"] for r in run["results"] if "suppressions" in r]


def test_sarif_suppressions_validate_against_the_sarif_schema(reports: tuple[Run, Path]) -> None:
    _, out = reports
    document = json.loads((out / "gpufleet.sarif").read_text())
    (result,) = _suppressed(document)
    assert result["ruleId"] == "GF-STOR-001"
    assert SCRATCH in result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
    assert result["suppressions"] == [
        {
            "kind": "inSource",
            "status": "accepted",
            "justification": "scratch data, rebuilt nightly",
            "properties": {
                "owner": "ml-team",
                "expires": "2027-01-31",
                "source": f"tag {TAG}",
                "state": "active",
                "daysLeft": 61,
            },
        }
    ]
    for item in document["runs"][0]["results"]:
        jsonschema.validate(item, SCHEMA)
    # The schema is a real check: a suppression of another kind, or without one, fails it.
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**result, "suppressions": [{"kind": "config"}]}, SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**result, "suppressions": [{"justification": "x"}]}, SCHEMA)
    unsuppressed = [r for r in document["runs"][0]["results"] if "suppressions" not in r]
    assert [r["ruleId"] for r in unsuppressed] == ["GF-STOR-001", "GF-WAIVER-001"]


def test_a_config_waiver_is_an_external_suppression(project: Path, tmp_path: Path) -> None:
    config = json.loads((project / "policy-config.json").read_text())
    config["GF-STOR-001"]["waivers"][0]["expires"] = "2027-02-28"  # within 90 days
    (project / "policy-config.json").write_text(json.dumps(config))
    run = invoke("check", str(project), "-s", "dev", "--rules", "GF-STOR-001", "--no-checkov", "-f", "sarif")
    assert run.exit_code == 0, run.stdout + run.stderr
    suppressed = _suppressed(json.loads(run.stdout))
    assert sorted(
        (r["suppressions"][0]["kind"], r["suppressions"][0]["justification"]) for r in suppressed
    ) == [
        ("external", "old log bucket, emptied by the migration"),
        ("inSource", "scratch data, rebuilt nightly"),
    ]
    for item in suppressed:
        jsonschema.validate(item, SCHEMA)


def test_junit_markdown_and_text_show_the_waiver(reports: tuple[Run, Path]) -> None:
    _, out = reports
    root = ET.fromstring((out / "gpufleet.junit.xml").read_text())
    (suite,) = [s for s in root.iter("testsuite") if s.get("name") == "gpufleet.waiver-demo.dev"]
    assert suite.get("skipped") == "1"
    skipped = [(case.get("name"), case.find("skipped")) for case in suite.iter("testcase")]
    ((name, element),) = [(n, e) for n, e in skipped if e is not None]
    assert name == "GF-STOR-001 bucket-customer-managed-key: scratch (aws:s3/bucket:Bucket) (waived)"
    assert element.get("message") == (
        f"waived: scratch data, rebuilt nightly (owner ml-team, until 2027-01-31, tag {TAG})"
    )
    markdown = (out / "gpufleet.md").read_text()
    assert "### Waived violations" in markdown
    assert (
        "| GF-STOR-001 | `scratch` | mandatory | scratch data, rebuilt nightly | ml-team | 2027-01-31 |"
        in markdown
    )
    text = (out / "gpufleet.txt").read_text()
    assert "  waived: 1 violation (not mandatory while the waiver holds)" in text
    assert "total: 1 stack, 1 mandatory, 1 advisory violations; 1 waived, 1 expired waiver" in text


def test_waivers_command_lists_what_is_in_force(project: Path) -> None:
    run = invoke("waivers", str(project), "-f", "json")
    assert run.exit_code == 0, run.stderr
    rows = json.loads(run.stdout)["waivers"]
    assert [(r["stack"], r["resource"], r["state"], r["days_left"], r["owner"]) for r in rows] == [
        ("dev", SCRATCH, "active", 61, "ml-team")
    ]
    assert rows[0]["age_days"] is None  # not in a git repository
    run = invoke("waivers", str(project), "--expired", "-s", "dev")
    assert run.exit_code == 0
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(
        "dev  GF-STOR-001  aws:s3/bucket:Bucket::legacy-*  [expired] expires 2026-11-15"
    )
    assert "(expired 16 days ago; age unknown)  owner platform" in lines[0]


def test_a_bad_waiver_file_is_exit_2_naming_file_rule_and_field(project: Path) -> None:
    path = project / "policy-config.json"
    path.write_text(
        json.dumps({"GF-STOR-001": {"waivers": [{"resource": "x", "reason": "r", "expires": "2027-01-01"}]}})
    )
    for command in ("check", "waivers"):
        run = (
            invoke(command, str(project), "-s", "dev", "--no-checkov")
            if command == "check"
            else invoke(command, str(project))
        )
        assert run.exit_code == 2
        assert (
            f"{path}: GF-STOR-001.waivers[0].owner: missing or empty; expected a non-empty string "
            "(at most 500 characters)" in (" ".join(run.stderr.split()))
        )
    run = invoke("waivers", str(project), "-f", "yaml")
    assert run.exit_code == 2
    assert "--format 'yaml' is not a waivers format; allowed: text, json" in run.stderr


def test_a_bad_date_in_the_environment_is_exit_2(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufleet.policies import waivers

    waivers.set_clock(None)  # the system clock, which reads $GPUFLEET_TODAY
    monkeypatch.setenv("GPUFLEET_TODAY", "2026-13-01")
    run = invoke("check", str(project), "-s", "dev", "--no-checkov")
    assert run.exit_code == 2
    assert "$GPUFLEET_TODAY: '2026-13-01' is not a date; expected YYYY-MM-DD" in run.stderr


def test_the_age_of_a_waiver_comes_from_git(project: Path) -> None:
    import os
    import subprocess

    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2026-11-01T12:00:00+00:00",
        "GIT_COMMITTER_DATE": "2026-11-01T12:00:00+00:00",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "waivers"]):
        subprocess.run(command, cwd=project, env=env, check=True, capture_output=True)
    run = invoke("waivers", str(project), "--expired", "-f", "json")
    assert run.exit_code == 0, run.stderr
    ages = {row["resource"]: row["age_days"] for row in json.loads(run.stdout)["waivers"]}
    # Added on 2026-11-01, listed on 2026-12-01 (conftest's clock).
    assert ages == {"aws:s3/bucket:Bucket::legacy-*": 30, SCRATCH: 30}
