"""Bad input and failing programs become one-paragraph EngineErrors that name the file and the cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.engine import EngineError, run_program
from gpufleet.engine_errors import one_paragraph
from tests.engine.projects import PHOTO_ARCHIVE, write_project


def _error(root: Path, stack: str = "dev") -> str:
    with pytest.raises(EngineError) as info:
        run_program(root, stack)
    message = str(info.value)
    assert "\n" not in message
    assert "Traceback" not in message
    return message


def test_program_that_raises(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import pulumi\n\nraise ValueError('bad fleet size: 0')\n")
    assert _error(root) == "the program __main__.py failed (at __main__.py:3): ValueError: bad fleet size: 0"


def test_error_raised_in_a_helper_module_names_that_module(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import helper\n")
    (root / "helper.py").write_text("def f():\n    return {}['pools']\n\nf()\n")
    assert _error(root) == "the program __main__.py failed (at helper.py:2): KeyError: 'pools'"


def test_multi_line_error_becomes_one_paragraph(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        "raise ValueError("
        "'fleet spec has 2 problems:\\n  pools.a.size.max: must be >= 1\\n  budget: required')\n",
    )
    assert _error(root).endswith(
        "ValueError: fleet spec has 2 problems: pools.a.size.max: must be >= 1; budget: required"
    )


def test_missing_package_is_named(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import pulumi\nimport pulumi_gcp\n")
    message = _error(root)
    assert message.startswith(
        "the program __main__.py imports 'pulumi_gcp' (at __main__.py:2), which is not installed"
    )
    assert "install it in this environment" in message


def test_missing_required_config_names_the_stack_file(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import pulumi\npulumi.Config().require('fleet')\n")
    assert _error(root) == (
        f"the program __main__.py requires config 'scratch:fleet' (at __main__.py:2), which "
        f"{root / 'Pulumi.dev.yaml'} does not set; add it under `config:` in that file"
    )


def test_sys_exit_and_run_error(tmp_path: Path) -> None:
    exits = write_project(tmp_path / "exit", "import sys\nsys.exit('no pools configured')\n")
    assert _error(exits) == (
        "the program __main__.py exited (sys.exit): no pools configured (at __main__.py:2); "
        "nothing was recorded past that point"
    )
    status = write_project(tmp_path / "status", "import sys\nsys.exit(3)\n")
    assert "exited (sys.exit) with status 3" in _error(status)
    run_error = write_project(tmp_path / "run", "import pulumi\nraise pulumi.RunError('quota exceeded')\n")
    assert _error(run_error) == (
        "the program __main__.py stopped with an error (at __main__.py:2): quota exceeded"
    )


def test_error_inside_an_apply_is_reported(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        "import pulumi_aws as aws\nb = aws.s3.Bucket('b')\nb.arn.apply(lambda arn: arn / 2)\n",
        stacks={"dev": "config:\n  aws:region: us-east-1\n"},
    )
    assert _error(root).startswith(
        "the program __main__.py failed (at __main__.py:3): TypeError: unsupported"
    )


def test_a_stack_without_a_stack_file_runs_with_empty_config() -> None:
    # The program runs (as under the Pulumi CLI) and stops at the first config it requires.
    assert _error(PHOTO_ARCHIVE, "staging") == (
        "the program app/__main__.py requires config 'photo-archive:owner' (at app/__main__.py:8), "
        f"and stack 'staging' has no stack file ({PHOTO_ARCHIVE / 'Pulumi.staging.yaml'} does not exist); "
        "create it with `gpufleet new staging --from TEMPLATE` (`gpufleet new --list` shows the templates), "
        "or write it with 'photo-archive:owner' under `config:`"
    )


def test_invalid_stack_yaml(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import pulumi\n", stacks={"dev": "config:\n  aws:region: [us-east-1\n"})
    message = _error(root)
    assert message.startswith(f"{root / 'Pulumi.dev.yaml'} is not valid YAML at line")


def test_invalid_pulumi_yaml(tmp_path: Path) -> None:
    root = write_project(tmp_path, "import pulumi\n", pulumi_yaml="name: x\nruntime: {name: python\n")
    assert _error(root).startswith(f"{root / 'Pulumi.yaml'} is not valid YAML at line")


def test_missing_pulumi_yaml(tmp_path: Path) -> None:
    assert _error(tmp_path) == (
        f"no Pulumi.yaml in {tmp_path}: pass the directory of a Pulumi project (the one holding Pulumi.yaml)"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [("one line", "one line"), ("head:\n  a\n\n  b  c\n", "head: a; b c"), ("", "")],
)
def test_one_paragraph(text: str, expected: str) -> None:
    assert one_paragraph(text) == expected


def test_unserializable_input_names_the_resource(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        "import ipaddress\nimport pulumi_aws as aws\n"
        "aws.ec2.Vpc('net', cidr_block=ipaddress.ip_network('10.40.0.0/16'))\n",
        stacks={"dev": "config:\n  aws:region: us-east-1\n"},
    )
    assert _error(root) == (
        "the program __main__.py failed while registering aws:ec2/vpc:Vpc 'net': "
        "unexpected input of type IPv4Network for cidr_block in Vpc"
    )
