"""`locate`: every known value a constraint's path reaches, in document order, the same whether each
path is walked afresh or continued from the levels already walked for the resource (`walks`)."""

from __future__ import annotations

import random
from typing import Any

from pulumi_policy.proxy import unknown_checking_proxy

from gpufleet.graph import UNKNOWN_STRING, make_secret
from gpufleet.policies import props as props_module
from gpufleet.policies.deploy._values import Found, locate, plain

NAMES = ("a", "b", "c")


def reference(props: Any, path: str) -> list[Found]:
    """The documented meaning, written plainly (recursive): a list where the path names an object is a
    block given as a list (each entry judged); `[]` after a name walks its list; a scalar under `[]`
    counts only at the end of the path; unknowns and nulls are never reached; secrets mark all below."""
    segments = [(part.removesuffix("[]"), part.endswith("[]")) for part in path.split(".")]
    out: list[Found] = []

    def walk(value: Any, at: int, where: str, secret: bool) -> None:
        value, hidden = plain(value)
        secret = secret or hidden
        if value is None or value == UNKNOWN_STRING:
            return
        if at == len(segments):
            out.append(Found(where, value, secret))
            return
        if isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, at, f"{where}[{i}]", secret)
            return
        name, listed = segments[at]
        if not isinstance(value, dict) or name not in value:
            return
        child, hidden = plain(value[name])
        here = f"{where}.{name}" if where else name
        if child is None or child == UNKNOWN_STRING:
            return
        if not listed or isinstance(child, dict):
            walk(child, at + 1, here, secret or hidden)
        elif isinstance(child, list):
            for i, item in enumerate(child):
                walk(item, at + 1, f"{here}[{i}]", secret or hidden)
        elif at + 1 == len(segments):
            out.append(Found(here, child, secret or hidden))

    walk(props, 0, "", False)
    return out


def _deep(found: list[Found]) -> list[tuple[str, Any, bool]]:
    """Found values with the proxies inside them read through (a proxied walk finds proxies)."""
    return [(f.path, props_module.plain(f.value), f.secret) for f in found]


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.25:
        return rng.choice([1, "x", None, UNKNOWN_STRING, 2.5, True])
    if roll < 0.5:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if roll < 0.6:
        return make_secret(_value(rng, depth + 1))
    return {rng.choice(NAMES): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _paths(rng: random.Random) -> list[str]:
    paths = {
        ".".join(rng.choice(NAMES) + rng.choice(("", "[]")) for _ in range(length))
        for length in (1, 2, 3)
        for _ in range(30)
    }
    return sorted(paths)


def test_locate_matches_the_reference_fresh_and_with_shared_walks() -> None:
    rng = random.Random(7)
    paths = _paths(rng)
    reached = 0
    for trial in range(600):
        raw = _value(rng, 0)
        props = unknown_checking_proxy(raw) if trial % 2 and isinstance(raw, dict) else raw
        walks: dict[str, list[Found]] = {}
        order = list(paths)
        rng.shuffle(order)  # longer paths before and after their prefixes
        for path in order:
            expected = reference(raw, path)
            assert _deep(locate(props, path)) == _deep(expected), path
            assert _deep(locate(props, path, walks)) == _deep(expected), path
            reached += len(expected)
    assert reached > 1000  # the samples reach values, not only misses


def test_shared_walks_keep_each_level_under_its_own_path() -> None:
    props = {"rules": [{"id": "a", "transitions": [{"days": 30}, {"days": None}]}, {"id": "b"}]}
    walks: dict[str, list[Found]] = {}
    days = locate(props, "rules[].transitions[].days", walks)
    assert days == [Found("rules[0].transitions[0].days", 30, False)]
    assert [f.path for f in walks["rules[]"]] == ["rules[0]", "rules[1]"]
    assert [f.path for f in walks["rules[].transitions[]"]] == [
        "rules[0].transitions[0]",
        "rules[0].transitions[1]",
    ]
    assert locate(props, "rules[].id", walks) == [
        Found("rules[0].id", "a", False),
        Found("rules[1].id", "b", False),
    ]


def test_deeply_nested_lists_do_not_recurse() -> None:
    value: Any = {"a": 1}
    for _ in range(5000):
        value = [value]
    assert locate({"x": value}, "x.a") == [Found("x" + "[0]" * 5000 + ".a", 1, False)]
