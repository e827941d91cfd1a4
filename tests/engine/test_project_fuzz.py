"""Property: whatever bytes a stack file holds, reading it returns a config or raises ProjectError."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.project import ProjectError, StackConfig, load_project, load_stack_config
from tests.engine.projects import write_project

# Fragments that exercise YAML's odd corners, glued together at random.
FRAGMENTS = [
    "config:\n",
    "  a: ",
    "  ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    ": ",
    "&x ",
    "*x",
    "<<: *x\n",
    "!!binary ",
    "!!timestamp ",
    "!!int ",
    "!!float ",
    "!!str ",
    "!!set ",
    "!!omap ",
    "!foo ",
    "? ",
    "|\n",
    ">-\n",
    "'q'",
    '"\\u0000"',
    '"\\x00"',
    "\t",
    "\n",
    "#c\n",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "~",
    "null",
    ".nan",
    "-.inf",
    "1e999",
    "0x",
    "0o7",
    "0b2",
    "1_0",
    "12:30",
    "2024-02-30",
    "9" * 30,
    "secure: ",
    "environment: ",
    "\ufeff",
    "\x85",
    "\u2028",
    "é",
    "\U0001f600",
    "\\",
    "%",
    "@",
    "`",
]


_WORKSPACE = tempfile.TemporaryDirectory(prefix="gpufleet-fuzz-")
_ROOT = write_project(Path(_WORKSPACE.name), "import pulumi\n", stacks={})


def _read(text: bytes) -> StackConfig | None:
    root = _ROOT
    (root / "Pulumi.dev.yaml").write_bytes(text)
    try:
        config = load_stack_config(load_project(root), "dev")
    except ProjectError as exc:
        assert "\n" not in str(exc)
        assert len(str(exc)) < 3000
        return None
    for value in config.encoded().values():
        assert isinstance(value, str)
    json.dumps(config.values, default=str, allow_nan=False)
    return config


FUZZ = settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@FUZZ
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30))
def test_random_yaml_fragments_never_crash_the_reader(parts: list[str]) -> None:
    _read("".join(parts).encode("utf-8", "surrogatepass"))


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_never_crash_the_reader(data: bytes) -> None:
    _read(b"config:\n  a: " + data)


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20), st.binary(max_size=10)
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@FUZZ
@given(st.dictionaries(st.text(max_size=10), values, max_size=5))
def test_any_yaml_document_never_crashes_the_reader(config: dict[str, Any]) -> None:
    _read(yaml.safe_dump({"config": config}, allow_unicode=True).encode())
