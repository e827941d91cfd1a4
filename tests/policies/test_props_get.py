"""`props.get` and `props.plain` read plain dicts and lists, the engine's unknown-checking proxies and any
other Mapping/Sequence alike; the exact-type fast path must not change what they return or raise."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from gpufleet.policies.context import tags_of
from gpufleet.policies.props import get, get_ref, plain

PROPS: dict[str, Any] = {
    "rules": [{"expiration": {"days": 30.0}, "id": "old"}, {"id": UNKNOWN_STRING_VALUE}],
    "tags": {"team": "ml", "cost-center": UNKNOWN_STRING_VALUE},
    "name": "ckpt",
    "count": 3.0,
    "flag": False,
}


class Frozen(Mapping[str, Any]):
    """A Mapping that is neither a dict nor a proxy."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


SHAPES: dict[str, Callable[[], Any]] = {
    "plain": lambda: PROPS,
    "proxy": lambda: unknown_checking_proxy(PROPS),
    "ordered": lambda: OrderedDict(PROPS),
    "mapping": lambda: Frozen(PROPS),
    "tuple": lambda: {**PROPS, "rules": tuple(PROPS["rules"])},
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_get_reads_every_shape_alike(shape: str) -> None:
    props = SHAPES[shape]()
    assert get(props, "rules.0.expiration.days") == 30.0
    assert get(props, "rules.-2.id") == "old"
    assert get(props, "rules.2.id", "none") == "none"
    assert get(props, "rules.x", "none") == "none"
    assert get(props, "name.first", "none") == "none"
    assert get(props, "tags.team") == "ml"
    assert get(props, "missing.deeper", 5) == 5
    assert get(props, "flag", True) is False
    assert get(props, "count") == 3.0
    with pytest.raises(UnknownValueError) as error:
        get(props, "tags.cost-center.value")
    assert error.value.props == ["tags", "cost-center"]
    with pytest.raises(UnknownValueError) as error:
        get(props, "rules.1.id")
    assert error.value.props == ["rules", "1", "id"]


def test_plain_copies_proxies_and_keeps_sentinels() -> None:
    copied = plain(unknown_checking_proxy(PROPS))
    assert copied == PROPS
    assert type(copied) is dict and type(copied["rules"]) is list
    assert plain("text") == "text" and plain(None) is None and plain(2.0) == 2.0


TOP: dict[str, Any] = {"name": "ckpt", "arn": UNKNOWN_STRING_VALUE, "none": None, "zero": 0.0}


@pytest.mark.parametrize(
    "build",
    [lambda: TOP, lambda: unknown_checking_proxy(TOP), lambda: Frozen(TOP)],
    ids=["plain", "proxy", "mapping"],
)
def test_one_key_reads_match_the_path_walk(build: Callable[[], Any]) -> None:
    # `get` and `get_ref` of a path without a dot take a shortcut for dicts and proxies: the same
    # values, defaults and unknown errors as the walk that any other mapping takes.
    props = build()
    assert get(props, "name") == "ckpt"
    assert get(props, "none", "default") == "default"
    assert get(props, "absent", "default") == "default"
    assert get(props, "zero", 5) == 0.0
    with pytest.raises(UnknownValueError) as error:
        get(props, "arn")
    assert error.value.props == ["arn"]
    assert get_ref(props, "arn") == UNKNOWN_STRING_VALUE
    assert get_ref(props, "absent") is None
    assert get_ref(props, "name") == "ckpt"


@pytest.mark.parametrize("proxied", [False, True])
def test_tags_read_in_one_pass_keep_unknowns_and_text(proxied: bool) -> None:
    tags = {"team": "ml", "env": UNKNOWN_STRING_VALUE, "replicas": 3.0, "owner": None}
    props = {"tags": tags}
    read = tags_of("aws:s3/bucket:Bucket", unknown_checking_proxy(props) if proxied else props)
    assert read == {"team": "ml", "env": UNKNOWN_STRING_VALUE, "replicas": "3.0", "owner": ""}


@pytest.mark.parametrize("proxied", [False, True])
def test_a_tag_key_with_a_dot_is_still_read_as_a_path(proxied: bool) -> None:
    # A map with a dotted key takes the walk: `cost.center` is looked up as tags["cost"]["center"].
    tags = {"team": "ml", "cost.center": "cc-1", "cost": {"center": "nested"}}
    props = {"tags": tags}
    read = tags_of("aws:s3/bucket:Bucket", unknown_checking_proxy(props) if proxied else props)
    assert read["team"] == "ml"
    assert read["cost.center"] == "nested"
