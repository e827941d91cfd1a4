"""Policy config numbers are finite and within what the engine carries (a double): `--set` and the file
reject NaN, Infinity, 1e400 and 400-digit integers with one line naming the key, never an OverflowError."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.analyzer_inputs import wire_form
from gpufleet.config_schema import describe
from gpufleet.policies.registry import default_registry
from gpufleet.policy_config import PolicyConfigError, load_policy_config, normalize_policy_config
from gpufleet.policy_overrides import apply_overrides
from tests.cli.helpers import invoke
from tests.engine.projects import write_project

POLICIES = list(default_registry())


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("NaN", "NaN is not a number JSON allows; write a finite number or a string"),
        ("Infinity", "Infinity is not a number JSON allows; write a finite number or a string"),
        ("1e400", "the number 1e400 is beyond what a double holds (about 1.8e308)"),
        (
            "9" * 400,
            "the integer " + "9" * 40 + "… (400 characters) is beyond ±2**53 (9,007,199,254,740,992), what a "
            "JSON number holds exactly",
        ),
    ],
)
def test_set_rejects_non_finite_numbers(text: str, problem: str) -> None:
    schema = next(p for p in POLICIES if p.rule.id == "GF-COST-002").config_schema
    assert schema is not None
    with pytest.raises(PolicyConfigError) as caught:
        apply_overrides({}, POLICIES, set_values=[f"GF-COST-002.alert_percent={text}"])
    [line] = caught.value.problems
    assert line.startswith("--set GF-COST-002.alert_percent=")
    assert line.endswith(f": {problem}; expected {_expected(schema.properties['alert_percent'])}")
    assert len(line) < 400


def _expected(schema: dict[str, object]) -> str:
    return describe(schema)


def test_the_file_rejects_nan_and_big_integers(tmp_path: Path) -> None:
    json_file = tmp_path / "policy-config.json"
    json_file.write_text('{"GF-COST-002": {"alert_percent": NaN}}')
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(json_file, POLICIES)
    assert caught.value.problems == [
        f"{json_file}: NaN is not a number JSON allows; write a finite number or a string; "
        "expected an object of policy name -> config"
    ]
    yaml_file = tmp_path / "policy-config.yaml"
    yaml_file.write_text("GF-COST-002:\n  alert_percent: .nan\n")
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(yaml_file, POLICIES)
    assert caught.value.problems == [
        f"{yaml_file}: GF-COST-002.alert_percent (line 2): '.nan' is not a finite number (JSON has no "
        "infinity or NaN); give a number, or quote it to pass it as a string; expected a mapping of policy "
        "name -> config"
    ]


def test_a_huge_integer_in_a_mapping_is_a_problem_not_a_crash() -> None:
    with pytest.raises(PolicyConfigError) as caught:
        normalize_policy_config({"GF-COST-002": {"alert_percent": 10**400}}, POLICIES)
    [line] = caught.value.problems
    assert line.startswith("policy config: GF-COST-002.alert_percent: 1000000000")
    assert "is not allowed; expected a finite number within ±2**53" in line
    assert len(line) < 300


def test_wire_form_keeps_an_integer_beyond_a_double() -> None:
    assert wire_form({"n": 10**400, "m": 3}) == {"n": 10**400, "m": 3.0}


def test_check_set_nan_exits_2(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", "import pulumi\n")
    run = invoke("check", str(project), "-s", "dev", "--set", "GF-COST-002.alert_percent=" + "9" * 400)
    assert (run.exit_code, run.stdout) == (2, "")
    assert "OverflowError" not in run.stderr and "Traceback" not in run.stderr
    assert "--set GF-COST-002.alert_percent=" in run.stderr
    assert "is beyond ±2**53" in run.stderr
