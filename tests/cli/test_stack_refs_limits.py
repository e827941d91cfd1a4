"""`--stack-refs FILE` keeps the stack file's limits: deep nesting, NaN, Infinity, integers beyond 2**53 and
non-UTF-8 bytes are a clean exit 2 naming the file and what is allowed, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.cli import BadInput, read_stack_references
from tests.cli.helpers import invoke
from tests.engine.projects import write_project

ALLOWED = (
    "expected an object of stack name -> outputs (finite numbers, at most 64 levels deep), "
    'e.g. {"acme/network/prod": {"vpc_id": "vpc-0abc"}}'
)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"a/b/c": {"x": ' + "[" * 5000 + "]" * 5000 + "}}", "values are nested more than 64 levels deep"),
        (
            '{"a/b/c": {"x": ' + "[" * 70 + "]" * 70 + "}}",
            "$.a/b/c.x" + "[0]" * 62 + ": values are nested more than 64 levels deep",
        ),
        ('{"a/b/c": {"x": NaN}}', "NaN is not a number JSON allows; write a finite number or a string"),
        (
            '{"a/b/c": {"x": -Infinity}}',
            "-Infinity is not a number JSON allows; write a finite number or a string",
        ),
        ('{"a/b/c": {"x": 1e400}}', "the number 1e400 is beyond what a double holds (about 1.8e308)"),
        (
            '{"a/b/c": {"x": ' + "9" * 400 + "}}",
            "the integer " + "9" * 40 + "… (400 characters) is beyond ±2**53 (9,007,199,254,740,992), what a "
            "JSON number holds exactly",
        ),
    ],
)
def test_out_of_limit_values_are_bad_input(tmp_path: Path, text: str, problem: str) -> None:
    refs = tmp_path / "refs.json"
    refs.write_text(text)
    with pytest.raises(BadInput) as caught:
        read_stack_references(refs)
    assert str(caught.value) == f"--stack-refs {refs}: {problem}; {ALLOWED}"


def test_non_utf8_is_bad_input(tmp_path: Path) -> None:
    refs = tmp_path / "refs.json"
    refs.write_bytes(b'{"a/b/c": {"x": "\xff"}}')
    with pytest.raises(BadInput) as caught:
        read_stack_references(refs)
    assert str(caught.value) == (
        f"--stack-refs {refs}: byte 17 is not UTF-8; write the file as UTF-8 JSON, "
        'e.g. {"acme/network/prod": {"vpc_id": "vpc-0abc"}}'
    )


def test_plain_values_still_load(tmp_path: Path) -> None:
    refs = tmp_path / "refs.json"
    refs.write_text('{"a/b/c": {"n": 9007199254740992, "f": 1.5e300, "deep": [[[{"k": "v"}]]]}}')
    assert read_stack_references(refs) == {
        "a/b/c": {"n": 9007199254740992, "f": 1.5e300, "deep": [[[{"k": "v"}]]]}
    }


def test_check_exits_2_on_deep_stack_refs(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", "import pulumi\n")
    refs = tmp_path / "refs.json"
    refs.write_text('{"a/b/c": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}")
    run = invoke("check", str(project), "-s", "dev", "--stack-refs", str(refs))
    assert (run.exit_code, run.stdout) == (2, "")
    assert (
        run.stderr == f"error: --stack-refs {refs}: values are nested more than 64 levels deep; {ALLOWED}\n"
    )
