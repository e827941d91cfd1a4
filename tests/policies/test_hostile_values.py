"""Property-based: no policy raises, or falls back on its last-resort guard, on any value a program can
produce, at any property path of any resource type it handles.

For every registered policy, the resource types it handles are the type tokens its module (and the
`policies` modules it uses directly) names; a rule that matches types by pattern (Kubernetes kinds in
any API group) and names none gets every baseline type of its clouds. Each example starts from a compliant
baseline resource of that type, recorded from the project's golden stacks and the compliant real-world
test programs in `hostile_baselines.json` (regenerate with `python -m tests.policies.test_hostile_values`),
and writes random JSON-like values (None, booleans, integers up to 400 digits, floats with NaN and
infinities, strings with `*` and unicode, the unknown sentinel, JSON text nested 1,000 deep, nested lists
and objects) at random paths: paths the baseline has (the ones the policy reads) and new ones below them.
Resource policies judge one resource; stack policies judge a small random graph of such resources.
One resource in four has an explicit provider whose config (region, default tags) is edited the same
way, and half the examples wrap the properties in pulumi_policy's unknown-checking proxy, as the engine
does.

A policy may report findings, say it does not apply, or raise `UnknownValueError` (the engine's
advisory "could not be judged"). It may not raise anything else, and it may not reach
`policies.rule`'s last resort ("could not be judged: internal error"): that guard is there for the
engine's sake, and a value that reaches it is a bug to fix at its root.

Fixed seed (`derandomize`), no deadline, and `EXAMPLES` per policy (25: about 3 s of CPU for the whole
pack here; set GPUFLEET_HOSTILE_EXAMPLES to search deeper, 400 takes under a minute).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulumi_policy import PolicyProviderResource, PolicyResource, ResourceValidationArgs, StackValidationArgs
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import (
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_STRING_VALUE,
    UnknownValueError,
    unknown_checking_proxy,
)

from gpufleet.policies import rule as rule_module
from gpufleet.policies.props import Malformed
from gpufleet.policies.registry import default_registry
from gpufleet.policies.rule import GfPolicy, GfResourcePolicy

from .support import opts, res, urn_of

BASELINES_FILE = Path(__file__).with_name("hostile_baselines.json")
TOKEN = re.compile(r"^(aws|alicloud|tencentcloud|kubernetes):[A-Za-z0-9./-]+:[A-Za-z0-9]+$")
# Per policy; about 3 s of CPU for the whole pack here. GPUFLEET_HOSTILE_EXAMPLES=400 searches deeper.
EXAMPLES = int(os.environ.get("GPUFLEET_HOSTILE_EXAMPLES", "25"))

POLICIES = list(default_registry())
BASELINES: dict[str, dict[str, Any]] = json.loads(BASELINES_FILE.read_text())
# Explicit providers carry config that rules read too (region, default tags as the engine sends them).
PROVIDERS: dict[str, dict[str, Any]] = {
    "pulumi:providers:aws": {
        "region": "us-east-1",
        "defaultTags": json.dumps({"tags": {"project": "p", "team": "t", "cost-center": "c", "env": "dev"}}),
    },
    "pulumi:providers:alicloud": {"region": "cn-hangzhou"},
    "pulumi:providers:tencentcloud": {"region": "ap-guangzhou"},
    "pulumi:providers:kubernetes": {"namespace": "ml"},
}


# --- which resource types a policy handles --------------------------------------------------------


def _module_of(policy: GfPolicy) -> ModuleType:
    for name, module in list(sys.modules.items()):
        if name.startswith("gpufleet.policies.") and getattr(module, "POLICY", None) is policy:
            return module
    raise LookupError(f"no policies module defines POLICY = {policy.rule.id}")


def _tokens(value: Any, found: set[str], depth: int = 0) -> None:
    if depth > 4:
        return
    if isinstance(value, str):
        if TOKEN.match(value):
            found.add(value)
    elif isinstance(value, tuple | list | set | frozenset):
        for item in value:
            _tokens(item, found, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _tokens(key, found, depth + 1)
            _tokens(item, found, depth + 1)


@cache
def handled_types(policy: GfPolicy) -> list[str]:
    """The type tokens in the policy's module and the `policies` modules it names; for a policy that
    matches types by pattern (Kubernetes kinds in any API group), the baseline types of its clouds."""
    found: set[str] = set()
    module = _module_of(policy)
    used = [module]
    for value in vars(module).values():
        name = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
        if isinstance(name, str) and name.startswith("gpufleet.policies.") and name in sys.modules:
            used.append(sys.modules[name])
    for each in used:
        for value in vars(each).values():
            _tokens(value, found)
    if not found & set(BASELINES):
        found.update(t for t in BASELINES if t.split(":", 1)[0] in policy.rule.clouds)
    return sorted(found)


@cache
def _type_choices(policy: GfPolicy) -> st.SearchStrategy[str]:
    """Types with a baseline four times as often as types without one (random keys only)."""
    types = handled_types(policy)
    with_baseline = [t for t in types if t in BASELINES]
    return st.sampled_from(with_baseline * 4 + [t for t in types if t not in BASELINES])


def test_every_policy_handles_some_types_with_baselines() -> None:
    for policy in POLICIES:
        types = handled_types(policy)
        assert types, policy.rule.id
        assert any(t in BASELINES for t in types), policy.rule.id


# --- hostile values at random paths ---------------------------------------------------------------


def _nested(depth: int, leaf: Any, as_object: bool) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value} if as_object else [value]
    return value


SCALARS = st.one_of(
    st.none(),
    st.sampled_from([UNKNOWN_STRING_VALUE, UNKNOWN_NUMBER_VALUE, UNKNOWN_BOOLEAN_VALUE]),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "*",
            "",
            " ",
            "0.0.0.0/0",
            "::/0",
            "true",
            "false",
            "-1",
            "22",
            "ALL",
            "é中🚀",
            "arn:aws:iam::*:role/*",
            "s3:*",
            UNKNOWN_STRING_VALUE,
            '{"Statement": 5}',
            "{not json",
            "[" * 1000 + "]" * 1000,
            '{"Statement": ' + "[" * 1000 + "1" + "]" * 1000 + "}",
            "1" * 5000,
        ]
    ),
)


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=4) | st.dictionaries(NAMES, children, max_size=4)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from _paths(item, (*prefix, index))


def _keys(value: Any) -> list[str]:
    return sorted({str(path[-1]) for path in _paths(value) if isinstance(path[-1], str)})


# Object keys: every key the baselines use (so a value may be an object a rule reads) or any text.
NAMES = st.one_of(
    st.sampled_from(sorted({key for baseline in BASELINES.values() for key in _keys(baseline)})),
    st.text(max_size=8),
)
VALUES = st.one_of(
    SCALARS,
    st.recursive(SCALARS, _extend, max_leaves=12),
    st.builds(_nested, st.integers(1, 40), SCALARS, st.booleans()),
)


def _put(props: Any, path: tuple[Any, ...], value: Any) -> Any:
    """`props` with `value` at `path`; a container missing on the way is created."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(props, list) and isinstance(head, int) and 0 <= head < len(props):
        copy = list(props)
        copy[head] = _put(copy[head], rest, value)
        return copy
    base = dict(props) if isinstance(props, dict) else {}
    base[str(head)] = _put(base.get(str(head)), rest, value)
    return base


def _join(start: tuple[Any, ...], extra: list[Any]) -> tuple[Any, ...]:
    return (*start, *extra)


@cache
def _edits(resource_type: str, fewest: int) -> st.SearchStrategy[list[tuple[tuple[Any, ...], Any]]]:
    """`fewest` to three (path, value) edits: paths the baseline has, or new ones below them (built once
    per type: drawing one composite strategy is what keeps the test fast)."""
    baseline = BASELINES.get(resource_type) or PROVIDERS.get(resource_type, {})
    keys = _keys(baseline) or ["x"]
    paths = sorted(_paths(baseline), key=repr) or [("x",)]
    step = st.one_of(st.sampled_from(keys), st.integers(0, 2))
    below = st.builds(_join, st.sampled_from([(), *paths]), st.lists(step, min_size=1, max_size=2))
    path = st.one_of(st.sampled_from(paths), below)
    return st.lists(st.tuples(path, VALUES), min_size=fewest, max_size=3)


def _hostile_props(data: st.DataObject, resource_type: str, fewest: int = 1) -> Any:
    baseline = BASELINES.get(resource_type) or PROVIDERS.get(resource_type, {})
    props: Any = json.loads(json.dumps(baseline))  # a fresh copy each time
    for path, value in data.draw(_edits(resource_type, fewest), label=f"edits of {resource_type}"):
        props = _put(props, path, value)
    if not isinstance(props, dict):  # the engine always sends an object of properties
        props = {"value": props}
    return props


def _wrap(props: dict[str, Any], proxy: bool) -> Any:
    return unknown_checking_proxy(props) if proxy else props


def _judge(policy: GfPolicy, args: Any) -> list[tuple[str, str | None]]:
    reported: list[tuple[str, str | None]] = []

    def report(message: str, urn: str | None = None) -> None:
        assert isinstance(message, str) and message, message
        assert "internal error" not in message, message
        reported.append((message, urn))

    original = rule_module._failed

    def failed(urn: str | None, error: Exception) -> None:
        if not isinstance(error, Malformed):
            raise error  # the last resort was reached: show where
        original(urn, error)

    with (
        mock.patch.object(rule_module, "_failed", failed),
        contextlib.suppress(UnknownValueError, _NotApplicableError),
    ):
        policy.validate(args, report)
    return reported


# One test per policy, so a failure names its rule; every policy gets the same budget.
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.rule.id)
@settings(
    derandomize=True,
    deadline=None,
    max_examples=EXAMPLES,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_no_policy_raises_on_hostile_values(policy: GfPolicy, data: st.DataObject) -> None:
    types = _type_choices(policy)
    proxy = data.draw(st.booleans(), label="proxy")
    if isinstance(policy, GfResourcePolicy):
        resource_type = data.draw(types, label="type")
        props = _hostile_props(data, resource_type)
        args = ResourceValidationArgs(
            resource_type,
            _wrap(props, proxy),
            urn_of(resource_type, "r"),
            "r",
            opts(),
            _provider(data, resource_type, proxy),
            {},
        )
    else:
        args = StackValidationArgs(_graph(data, types, proxy), {}, {})
    _judge(policy, args)


def _provider(data: st.DataObject, resource_type: str, proxy: bool) -> PolicyProviderResource | None:
    """No explicit provider, or one of the resource's package whose config may be hostile too."""
    if data.draw(st.integers(0, 3), label="explicit provider"):  # one in four has one
        return None
    token = "pulumi:providers:" + resource_type.split(":", 1)[0]
    props = _hostile_props(data, token, fewest=0)
    return PolicyProviderResource(token, _wrap(props, proxy), urn_of(token, "prov"), "prov")


def _graph(data: st.DataObject, types: st.SearchStrategy[str], proxy: bool) -> list[PolicyResource]:
    """One to eight resources, some left compliant, some with an explicit provider; each depends on
    those before it, through every input (so joins by reference, by dependency and by name are all
    tried)."""
    resources: list[PolicyResource] = []
    for index, resource_type in enumerate(data.draw(st.lists(types, min_size=1, max_size=8), label="types")):
        props = _hostile_props(data, resource_type, fewest=0)
        resources.append(
            res(
                resource_type,
                f"r{index}",
                _wrap(props, proxy),
                deps=resources,
                prop_deps=dict.fromkeys(props, resources) if resources else None,
                prov=_provider(data, resource_type, proxy),
            )
        )
    return list(resources)


def _regenerate() -> None:  # pragma: no cover - run by hand when the baselines should move
    """Record one compliant resource's inputs per type from the golden stacks and the compliant
    real-world programs."""
    from pulumi_policy.deserialize import deserialize_properties

    from gpufleet.engine import run_program
    from tests.realworld.aws.harness import run_variant

    root = Path(__file__).resolve().parents[2]
    graphs = [run_program(root, "dev"), run_program(root, "prod")]
    for program in (
        "alicloud/gpu_stack",
        "tencentcloud/gpu_stack",
        "k8s/eks_gpu",
        "costk8s/k8s_audit",
        "costk8s/aws_pools",
        "iam/ali_ram",
        "iam/tc_cam",
        "iam/aws_iam",
        "aws/bucket_families",
        "joins/aws_sessions",
    ):
        graphs.append(run_variant(root / "tests/realworld" / program, "none", "dev"))
    baselines: dict[str, Any] = {}
    for graph in graphs:
        for resource in graph.resources:
            if resource.custom and not resource.is_provider and resource.type not in baselines:
                baselines[resource.type] = deserialize_properties(resource.inputs)
    BASELINES_FILE.write_text(json.dumps(dict(sorted(baselines.items())), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":  # pragma: no cover
    _regenerate()
