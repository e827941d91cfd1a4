"""Property: any broken config gives SpecError with messages, never another exception."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.components.spec import FleetSpec, SpecError, parse_fleet
from tests.spec.test_spec import full

Path = tuple[Any, ...]


def _paths(node: Any, prefix: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield prefix, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


BASE = full()
ALL_PATHS = [path for path, _ in _paths(BASE) if path]
NUMERIC_PATHS = [
    path for path, value in _paths(BASE) if isinstance(value, int | float) and not isinstance(value, bool)
]
MAPPING_PATHS = [path for path, value in _paths(BASE) if isinstance(value, dict)]


def _set(config: Any, path: Path, value: Any) -> None:
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _get(config: Any, path: Path) -> Any:
    node = config
    for key in path:
        node = node[key]
    return node


# A mapping is the wrong type for every scalar and list in the spec, and a number for every mapping;
# decided from the valid config, so applying it twice stays wrong.
def _wrong_type(path: Path) -> Any:
    return 12345 if isinstance(_get(BASE, path), dict) else {"unexpected": 1}


invalid_mutation = st.one_of(
    st.tuples(st.just("wrong_type"), st.sampled_from(ALL_PATHS)),
    st.tuples(st.just("out_of_range"), st.sampled_from(NUMERIC_PATHS)),
    st.tuples(st.just("unknown_key"), st.sampled_from([(), *MAPPING_PATHS])),
)


def _apply(config: dict[str, Any], kind: str, path: Path) -> None:
    if kind == "wrong_type":
        _get(config, path[:-1])  # the parent must still exist
        _set(config, path, _wrong_type(path))
    elif kind == "out_of_range":
        _set(config, path, -1_000_000)
    else:
        # An int value is invalid even where any key is allowed (tags want strings, pools want mappings).
        _get(config, path)["zz_unknown"] = 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(invalid_mutation, min_size=1, max_size=4))
def test_invalid_configs_raise_spec_error(mutations: list[tuple[str, Path]]) -> None:
    config = copy.deepcopy(BASE)
    for kind, path in mutations:
        try:
            _apply(config, kind, path)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation replaced a parent of this path
    try:
        parse_fleet(config, source="stacks/Pulumi.test.yaml")
    except SpecError as exc:
        assert exc.errors
        assert all(path.startswith("gpufleet:fleet") and message for path, message in exc.errors)
    else:
        raise AssertionError(f"accepted an invalid config after {mutations}")


junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALL_PATHS), junk)
def test_random_values_never_raise_other_exceptions(path: Path, value: Any) -> None:
    config = copy.deepcopy(BASE)
    _set(config, path, value)
    try:
        spec = parse_fleet(config)
    except SpecError as exc:
        assert exc.errors
    else:
        assert isinstance(spec, FleetSpec)


@settings(max_examples=100, deadline=None)
@given(junk)
def test_random_top_level_values(value: Any) -> None:
    try:
        parse_fleet(value)
    except SpecError as exc:
        assert exc.errors
