"""`gpufleet check --platform-config FILE`: a pull request is judged with the platform team's policy config
(e.g. the base branch's), and its own policy-config.json cannot loosen the gate. The project has two
buckets breaking GF-STOR-001: `legacy-logs`, waived in the platform's file, and `scratch`, waived by a
tag. The clock is fixed at 2026-12-01 (conftest)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import Run, invoke

HERE = Path(__file__).resolve().parent
LEGACY = "urn:pulumi:dev::waiver-demo::aws:s3/bucket:Bucket::legacy-logs"
SCRATCH = "urn:pulumi:dev::waiver-demo::aws:s3/bucket:Bucket::scratch"
TAG = "gpufleet:waive:GF-STOR-001"
PLATFORM_WAIVER = {
    "resource": "aws:s3/bucket:Bucket::legacy-*",
    "reason": "old log bucket, emptied by the migration",
    "owner": "platform",
    "expires": "2027-01-31",
}
# What a pull request could write in the repository's own file to pass its own gate.
LOOSE_REPOSITORY = {
    "waivers": {"allow_tags": True, "max_days": 3650},
    "all": "advisory",
    "GF-STOR-001": {
        "enforcementLevel": "advisory",
        "waivers": [{"resource": "*", "reason": "x", "owner": "x", "expires": "2099-12-31"}],
    },
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(HERE / "project", target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "policy-config.json").write_text(json.dumps(LOOSE_REPOSITORY), encoding="utf-8")
    return target


@pytest.fixture
def platform(tmp_path: Path) -> Path:
    path = tmp_path / "base.json"
    path.write_text(json.dumps({"GF-STOR-001": {"waivers": [PLATFORM_WAIVER]}}), encoding="utf-8")
    return path


def check(project: Path, *extra: str) -> Run:
    return invoke("check", str(project), "-s", "dev", "--rules", "GF-STOR-001", "--no-checkov", *extra)


def _stack(run: Run) -> dict[str, Any]:
    (stack,) = json.loads(run.stdout)["stacks"]
    return stack


def test_without_a_platform_config_the_repository_file_decides(project: Path) -> None:
    """The hole the platform config closes: the change's own file makes everything advisory."""
    run = check(project)
    assert run.exit_code == 0, run.stderr


@pytest.mark.parametrize("how", ["option", "environment"])
def test_the_platform_config_alone_gives_waivers_settings_and_enforcement(
    project: Path, platform: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if how == "option":
        run = check(project, "--platform-config", str(platform))
    else:
        monkeypatch.setenv("GPUFLEET_PLATFORM_CONFIG", str(platform))
        run = check(project)
    assert run.exit_code == 1, run.stdout + run.stderr
    stack = _stack(run)
    tags_off = (
        f"tag waivers are off (`waivers.allow_tags` is not true in {platform}); ask the platform team for a "
        "waiver there"
    )
    not_read = (
        f"not read: under the platform config ({platform}) waivers come from it alone; this waiver takes "
        "effect once the platform's file has it"
    )
    assert [(v["rule_id"], v["urn"], v["enforcement"], v["message"]) for v in stack["violations"]] == [
        (
            "GF-STOR-001",
            SCRATCH,
            "mandatory",
            "S3 bucket 'scratch' has no server-side encryption configuration (S3 then uses AES256 with "
            "S3-managed keys); use aws:kms with a customer-managed KMS key (kmsMasterKeyId); waiver refused: "
            f"{tags_off} (tag {TAG})",
        ),
        (
            "GF-WAIVER-001",
            "",
            "advisory",
            f"the GF-STOR-001 waiver for '*' in policy-config.json is {not_read}",
        ),
        ("GF-WAIVER-001", SCRATCH, "advisory", f"tag {TAG} on {SCRATCH}: refused, {tags_off}"),
    ]
    assert [(w["urn"], w["waiver"]["owner"]) for w in stack["waived"]["findings"]] == [(LEGACY, "platform")]
    assert [
        (w["resource"], w["source"], w["file"], w["applied"], w["refused"])
        for w in stack["waived"]["waivers"]
    ] == [
        ("*", "policy-config", "policy-config.json", 0, not_read),
        ("aws:s3/bucket:Bucket::legacy-*", "policy-config", str(platform), 1, None),
        (SCRATCH, f"tag {TAG}", None, 0, tags_off),
    ]


def test_the_repository_file_may_make_enforcement_stricter_only(project: Path, tmp_path: Path) -> None:
    platform = tmp_path / "base.json"
    platform.write_text(json.dumps({"GF-STOR-001": "advisory", "waivers": {"allow_tags": True}}))
    (project / "policy-config.json").write_text(json.dumps({"GF-STOR-001": "mandatory"}))
    stack = _stack(check(project, "--platform-config", str(platform)))
    assert [(v["urn"], v["enforcement"]) for v in stack["violations"] if v["rule_id"] == "GF-STOR-001"] == [
        (LEGACY, "mandatory")
    ]
    assert [w["urn"] for w in stack["waived"]["findings"]] == [SCRATCH]  # the platform allows tags
    (project / "policy-config.json").write_text(json.dumps({"all": "disabled", "GF-STOR-001": "advisory"}))
    platform.write_text(json.dumps({"GF-STOR-001": "mandatory"}))
    run = check(project, "--platform-config", str(platform))
    assert run.exit_code == 1
    assert {v["enforcement"] for v in _stack(run)["violations"] if v["rule_id"] == "GF-STOR-001"} == {
        "mandatory"
    }


def test_a_bad_platform_config_is_exit_2_naming_file_field_and_values(project: Path, tmp_path: Path) -> None:
    platform = tmp_path / "base.json"
    platform.write_text(
        json.dumps({"waivers": {"allow_tags": "yes"}, "GF-STOR-001": {"enforcementLevel": "loud"}})
    )
    run = check(project, "--platform-config", str(platform))
    assert run.exit_code == 2
    assert run.stdout == ""
    text = " ".join(run.stderr.split())
    assert f'{platform}: waivers.allow_tags: "yes" is not allowed; expected true or false' in text
    assert (
        f'{platform}: GF-STOR-001.enforcementLevel: "loud" is not an enforcement level; allowed: advisory, '
        "mandatory, remediate, disabled" in text
    )
    missing = tmp_path / "nowhere.json"
    run = check(project, "--platform-config", str(missing))
    assert run.exit_code == 2
    assert (
        f"--platform-config {missing}: no such file; give the platform team's policy config (e.g. `git show "
        "origin/main:policy-config.json > base.json`), or leave out the option and $GPUFLEET_PLATFORM_CONFIG"
        in " ".join(run.stderr.split())
    )


def test_the_reports_list_every_waiver_applied_or_refused(
    project: Path, platform: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run = check(project, "--platform-config", str(platform), "-f", "text,markdown,json", "-o", str(out))
    assert run.exit_code == 1, run.stderr
    markdown = (out / "gpufleet.md").read_text()
    assert "### Waivers (applied and refused)" in markdown
    assert "| Rule | Resource | Status | Owner | Expires | Reason | Source |" in markdown
    assert (
        "| GF-STOR-001 | `aws:s3/bucket:Bucket::legacy-*` | in force, applied to 1 violation | platform | "
        f"2027-01-31 | old log bucket, emptied by the migration | `{platform}` |" in markdown
    )
    assert f"| GF-STOR-001 | `{SCRATCH}` | ⛔ refused: tag waivers are off" in markdown
    assert "| GF-STOR-001 | `*` | ⛔ refused: not read: under the platform config" in markdown
    text = (out / "gpufleet.txt").read_text()
    assert "  waivers: 3 (1 applied, 2 refused)" in text
    assert (
        "    - GF-STOR-001 aws:s3/bucket:Bucket::legacy-* [in force, applied to 1 violation] owner platform, "
        f"expires 2027-01-31: old log bucket, emptied by the migration ({platform})" in text
    )
    assert f"    - GF-STOR-001 {SCRATCH} [refused: tag waivers are off" in text


def test_the_waivers_command_reads_the_platform_config_too(project: Path, platform: Path) -> None:
    run = invoke("waivers", str(project), "--platform-config", str(platform), "-f", "json")
    assert run.exit_code == 0, run.stderr
    assert [(r["resource"], r["refused"]) for r in json.loads(run.stdout)["waivers"]] == [
        ("aws:s3/bucket:Bucket::legacy-*", None)
    ]
    run = invoke("waivers", str(project), "--platform-config", str(platform), "--expired", "-f", "json")
    assert [r["resource"] for r in json.loads(run.stdout)["waivers"]] == [
        "*",
        "aws:s3/bucket:Bucket::legacy-*",
        SCRATCH,
    ]
