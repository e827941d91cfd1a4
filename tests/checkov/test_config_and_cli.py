"""checkov-config.json (the skip list) and `gpufleet check --checkov/--no-checkov/--checkov-bin`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpufleet.checkov.config import load_checkov_skips, parse_checkov_config
from gpufleet.cli import app
from gpufleet.policies.registry import default_registry
from gpufleet.policy_config import PolicyConfigError, normalize_policy_config

ROOT = Path(__file__).resolve().parents[2]


def test_skips_need_a_reason_and_a_check_id() -> None:
    raw = {"skip": {"CKV_AWS_144": " one region ", "CKV2_AWS_62": "no consumers", "CKV_GPUF_1": "x"}}
    assert parse_checkov_config(raw, "cc.json") == {
        "CKV_AWS_144": "one region",
        "CKV2_AWS_62": "no consumers",
        "CKV_GPUF_1": "x",
    }
    with pytest.raises(PolicyConfigError) as caught:
        parse_checkov_config({"skip": {"GF-STOR-001": "x", "CKV_AWS_1": ""}, "only": []}, "cc.json")
    assert caught.value.problems == [
        "cc.json: only: unknown key; expected `skip`",
        "cc.json: skip.GF-STOR-001: not a checkov check id; expected CKV_<PROVIDER>_<n> or "
        "CKV2_<PROVIDER>_<n> (CKV_AWS_144, CKV2_AWS_62, CKV_GPUF_1)",
        "cc.json: skip.CKV_AWS_1: give the reason for skipping it, a non-empty string",
    ]
    with pytest.raises(PolicyConfigError, match=r"cc.json: skip: expected an object of check id -> reason"):
        parse_checkov_config({"skip": ["CKV_AWS_1"]}, "cc.json")


def test_the_skips_live_in_their_own_file(tmp_path: Path) -> None:
    (tmp_path / "checkov-config.json").write_text('{"skip": {"CKV_AWS_1": "why"}}', encoding="utf-8")
    assert load_checkov_skips(None, tmp_path) == {"CKV_AWS_1": "why"}
    assert load_checkov_skips(None, tmp_path / "nowhere") == {}
    # The project's own skip list moved out of policy-config.json.
    assert "checkov" not in json.loads((ROOT / "policy-config.json").read_text(encoding="utf-8"))
    assert len(load_checkov_skips(None, ROOT)) == 14


def test_a_checkov_key_in_the_policy_config_is_refused() -> None:
    """The Pulumi CLI would send it to the pack as a policy with no enforcement level."""
    raw = {"checkov": {"skip": {"CKV_AWS_1": "x"}}, "log-retention-minimum": {"min_days": 180}}
    with pytest.raises(PolicyConfigError) as caught:
        normalize_policy_config(raw, default_registry(), source="pc.json")
    assert caught.value.problems == [
        "pc.json: checkov: checkov's skip list is not a policy; move it to checkov-config.json beside "
        'Pulumi.yaml ({"skip": {"CKV_...": "reason"}}, docs/checkov.md)'
    ]


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


def test_a_bad_checkov_config_is_exit_2_even_without_checkov(tmp_path: Path) -> None:
    config = tmp_path / "cc.json"
    config.write_text(json.dumps({"skip": {"CKV_AWS_18": ""}}), encoding="utf-8")
    code, output = _check("--no-checkov", "--checkov-config", str(config))
    assert code == 2
    assert "skip.CKV_AWS_18: give the reason for skipping it" in output
    assert "cc.json" in output
    assert "Traceback" not in output


def test_a_broken_export_is_a_note_and_the_verdicts_stand(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gpufleet.checkov import merge

    def broken(*_args: object, **_kwargs: object) -> list[dict[str, object]]:
        raise ValueError("unexpected input")

    # The export fails when the stack's program ends (checkov is handed nothing) and again when the
    # blocks are made: the note says so and the pack's verdicts stand.
    monkeypatch.setattr(merge, "export_graph", broken)
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


def test_a_missing_or_malformed_checkov_config_is_named_as_the_checkov_config(tmp_path: Path) -> None:
    missing = CliRunner().invoke(
        app,
        ["check", str(ROOT), "-s", "dev", "--no-checkov", "--checkov-config", str(tmp_path / "none.json")],
    )
    assert missing.exit_code == 2
    assert (
        f"{tmp_path / 'none.json'}: cannot read the checkov config (No such file or directory)"
        in missing.output
    )
    listed = tmp_path / "list.json"
    listed.write_text("[]", encoding="utf-8")
    wrong = CliRunner().invoke(
        app, ["check", str(ROOT), "-s", "dev", "--no-checkov", "--checkov-config", str(listed)]
    )
    assert wrong.exit_code == 2
    assert 'the top level is a list; expected an object {"skip": {"<check id>": "<reason>"}}' in wrong.output
