"""`gpufleet.evaluate.policy_props` builds what the servicer's three passes build (`wire_form`,
`deserialize_properties`, `unknown_checking_proxy`): the same values, proxies and paths."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_policy.deserialize import SPECIAL_ASSET_SIG, SPECIAL_SECRET_SIG, SPECIAL_SIG_KEY
from pulumi_policy.proxy import (
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_STRING_VALUE,
    UnknownValueError,
    _DictProxy,
    _ListProxy,
    unknown_checking_proxy,
)

from gpufleet.analyzer_inputs import _deserialized
from gpufleet.evaluate import _proxied, policy_props
from gpufleet.policies import props

VALUE: dict[str, Any] = {
    "name": "a",
    "count": 2.0,
    "on": True,
    "none": None,
    "unknown": UNKNOWN_STRING_VALUE,
    "rules": [
        {"id": "x", "days": UNKNOWN_NUMBER_VALUE, "tags": {"k": "v"}},
        [1.0, [UNKNOWN_STRING_VALUE, {"deep": [{}]}]],
        UNKNOWN_STRING_VALUE,
        [],
    ],
    "empty": {},
}

# As a program's inputs arrive, before the wire: ints, tuples, secrets and assets at any depth.
INPUTS: dict[str, Any] = {
    **VALUE,
    "port": 22,
    "big": 10**400,
    "flag": False,
    "pair": (1, "b", {"c": 3}),
    "secret": {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": {"password": "p", "n": 5}},
    "nested": [
        {"token": {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": "t"}},
        {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": [1, UNKNOWN_STRING_VALUE]},
        {"asset": {SPECIAL_SIG_KEY: SPECIAL_ASSET_SIG, "text": "hello"}},
    ],
}


def _shape(value: Any) -> Any:
    if not isinstance(value, str | int | float | bool | dict | list | type(None)) and type(value) not in (
        _DictProxy,
        _ListProxy,
    ):
        return (type(value).__name__, vars(value))
    """The proxies' classes, paths and contents, recursively."""
    if type(value) in (_DictProxy, _ListProxy):
        target = value["__target"]
        kind = type(value).__name__
        path = value._DictProxy__props_acc if kind == "_DictProxy" else value._ListProxy__props_acc
        items = target.items() if isinstance(target, dict) else enumerate(target)
        return (kind, tuple(path), tuple((k, _shape(v)) for k, v in items))
    return (type(value).__name__, value)


def test_same_proxies_and_paths() -> None:
    assert _shape(_proxied(VALUE, [])) == _shape(unknown_checking_proxy(VALUE))


@pytest.mark.parametrize("inputs", [INPUTS, VALUE, {}, {"only": 1}])
def test_policy_props_as_the_servicer_builds_them(inputs: dict[str, Any]) -> None:
    assert _shape(policy_props(inputs)) == _shape(unknown_checking_proxy(_deserialized(inputs)))


@pytest.mark.parametrize(
    "path", ["unknown", "rules.0.days", "rules.1.1.0", "rules.2", "rules.-2", "rules.1.1.1.deep.0"]
)
def test_same_reads_and_errors(path: str) -> None:
    def read(proxied: Any) -> tuple[str, Any]:
        try:
            return ("value", props.plain(props.get(proxied, path)))
        except UnknownValueError as error:
            return ("unknown", (error.message, error.props))

    assert read(_proxied(VALUE, [])) == read(unknown_checking_proxy(VALUE))
