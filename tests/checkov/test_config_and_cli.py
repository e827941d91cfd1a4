"""The policy config's checkov section and `gpufleet check --checkov/--no-checkov/--checkov-bin`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpufleet.checkov.config import parse_checkov_section
from gpufleet.cli import app
from gpufleet.policy_config import PolicyConfigError, normalize_policy_config
from policies.registry import default_registry

ROOT = Path(__file__).resolve().parents[2]


def test_skips_need_a_reason_and_a_check_id() -> None:
    raw = {
        "checkov": {"skip": {"CKV_AWS_144": " one region ", "CKV2_AWS_62": "no consumers", "CKV_GPUF_1": "x"}}
    }
    assert parse_checkov_section(raw, "pc.json") == {
        "CKV_AWS_144": "one region",
        "CKV2_AWS_62": "no consumers",
        "CKV_GPUF_1": "x",
    }
    with pytest.raises(PolicyConfigError) as caught:
        parse_checkov_section(
            {"checkov": {"skip": {"GF-STOR-001": "x", "CKV_AWS_1": ""}, "only": []}}, "pc.json"
        )
    assert caught.value.problems == [
        "pc.json: checkov.only: unknown key; expected `skip`",
        "pc.json: checkov.skip.GF-STOR-001: not a checkov check id; expected CKV_<PROVIDER>_<n> or "
        "CKV2_<PROVIDER>_<n> (CKV_AWS_144, CKV2_AWS_62, CKV_GPUF_1)",
        "pc.json: checkov.skip.CKV_AWS_1: give the reason for skipping it, a non-empty string",
    ]
    with pytest.raises(PolicyConfigError, match=r"pc.json: checkov: expected an object with `skip`"):
        parse_checkov_section({"checkov": ["CKV_AWS_1"]}, "pc.json")


def test_the_pack_config_ignores_the_checkov_section() -> None:
    raw = {"checkov": {"skip": {"CKV_AWS_1": "x"}}, "log-retention-minimum": {"min_days": 180}}
    assert "checkov" not in normalize_policy_config(raw, default_registry(), source="pc.json")


def _check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["check", str(ROOT), "-s", "account", *args])
    return result.exit_code, result.output


def test_explicit_checkov_that_is_missing_is_exit_2(tmp_path: Path) -> None:
    code, output = _check("--checkov-bin", str(tmp_path / "nope"))
    assert code == 2
    assert "--checkov-bin" in output
    assert "make checkov" in output
    assert "Traceback" not in output


def test_no_checkov_leaves_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    code, output = _check("--no-checkov")
    assert code in (0, 1)
    block = json.loads(output)["stacks"][0]["checkov"]
    assert block["status"] == "disabled"
    assert block["note"] == "checkov was not run: --no-checkov"
    assert (block["passed"], block["failed"], block["findings"]) == (0, 0, [])
    assert block["seconds"]["policy_pack"] >= 0


def test_explicit_checkov_with_none_installed_is_exit_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gpufleet.checkov import run

    monkeypatch.setattr(run, "VENV_BIN", Path("no-such-venv/bin/checkov"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("GPUFLEET_CHECKOV", raising=False)
    code, output = _check("--checkov")
    assert code == 2
    assert "--checkov: checkov is not installed here" in output


def test_absent_checkov_by_default_is_a_note_not_a_failure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gpufleet.checkov import run

    monkeypatch.setattr(run, "VENV_BIN", Path("no-such-venv/bin/checkov"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("GPUFLEET_CHECKOV", raising=False)
    monkeypatch.delenv("GPUFLEET_CHECKOV_DEFAULT", raising=False)
    code, output = _check()
    assert code in (0, 1)
    block = json.loads(output)["stacks"][0]["checkov"]
    assert block["status"] == "not-found"
    assert block["note"].startswith(
        "checkov was not run: it is not installed here; install it with `make checkov`"
    )


def test_a_bad_checkov_section_is_exit_2_even_without_checkov(tmp_path: Path) -> None:
    config = tmp_path / "pc.json"
    config.write_text(json.dumps({"checkov": {"skip": {"CKV_AWS_18": ""}}}), encoding="utf-8")
    code, output = _check("--no-checkov", "--policy-config", str(config))
    assert code == 2
    assert "checkov.skip.CKV_AWS_18: give the reason for skipping it" in output
    assert "Traceback" not in output


def test_a_broken_export_is_a_note_and_the_verdicts_stand(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gpufleet.checkov import command

    def broken(*_args: object, **_kwargs: object) -> list[dict[str, object]]:
        raise ValueError("unexpected input")

    monkeypatch.setattr(command, "judge", broken)
    fake = tmp_path / "ck"
    fake.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    fake.chmod(0o755)
    code, output = _check("--checkov-bin", str(fake))
    assert code in (0, 1)
    stack = json.loads(output)["stacks"][0]
    assert stack["checkov"]["status"] == "error"
    assert (
        stack["checkov"]["note"]
        == "checkov was not run: the export for it failed (ValueError: unexpected input)"
    )
    assert "violations" in stack
