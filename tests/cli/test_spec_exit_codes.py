"""Property: a stack file whose fleet spec is invalid makes every command exit 2 with the file, the
field path and the problem on stderr, and never a traceback."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.helpers import copy_project, invoke
from tests.spec.test_spec_properties import BASE, _apply, invalid_mutation


def _stack_text(fleet: Any) -> str:
    return yaml.safe_dump({"config": {"aws:region": "us-east-1", "gpufleet:fleet": fleet}}, sort_keys=False)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(invalid_mutation, min_size=1, max_size=3), st.sampled_from(["plan", "check", "cost"]))
def test_invalid_spec_exits_2_naming_file_and_field(
    tmp_path: Path, mutations: list[tuple[str, tuple[Any, ...]]], command: str
) -> None:
    fleet = copy.deepcopy(BASE)
    for kind, path in mutations:
        try:
            _apply(fleet, kind, path)
        except (KeyError, IndexError, TypeError):
            continue
    # hypothesis reuses the test's tmp_path: each example gets its own project directory
    project = copy_project(Path(tempfile.mkdtemp(dir=tmp_path)) / "project", {"qa": _stack_text(fleet)})
    result = invoke(command, str(project), "-s", "qa")
    assert result.exit_code == 2, (mutations, result.stdout, result.stderr)
    assert "stacks/Pulumi.qa.yaml: gpufleet:fleet" in result.stderr, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
