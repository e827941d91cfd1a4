"""A report printed on stdout is byte for byte the report written to a file: no console rendering in
between (which turned `:rocket:` in a resource name into an emoji)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.helpers import invoke
from tests.engine.projects import write_project

PROGRAM = """\
import pulumi_aws as aws

aws.s3.Bucket("logs-:rocket:-archive")
"""


@pytest.mark.parametrize(("fmt", "file_name"), [("json", "gpufleet.json"), ("sarif", "gpufleet.sarif")])
def test_stdout_report_equals_the_written_file(fmt: str, file_name: str, tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", PROGRAM, stacks={"dev": "config:\n  aws:region: us-east-1\n"})
    printed = invoke("check", str(root), "-s", "dev", "--format", fmt, "--rules", "GF-STOR-*")
    written = invoke(
        "check", str(root), "-s", "dev", "--format", fmt, "--rules", "GF-STOR-*", "-o", str(tmp_path / "out")
    )
    assert printed.exit_code == written.exit_code == 1
    text = (tmp_path / "out" / file_name).read_text(encoding="utf-8")
    # Two runs: only the judges' measured times (the JSON's `seconds` block) may differ.
    assert _untimed(printed.stdout) == _untimed(text)
    assert ":rocket:" in printed.stdout
    assert "\N{ROCKET}" not in printed.stdout
    json.loads(printed.stdout)


def _untimed(report: str) -> str:
    return re.sub(r'("(?:export|checkov_all_stacks|policy_pack)": )[0-9.e-]+', r"\1T", report)
