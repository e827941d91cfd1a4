"""What the storage rules and each cloud's storage module (`aws`, `alicloud`, `tencentcloud`) share.

The readers of nested settings (`walk`, `first_int`), the normalised shapes a cloud's module returns
for a bucket (`Encryption`, `Replication`), the TLS version reader and the anonymous-policy check.
Nothing here names a cloud or reads the clouds' modules, so those modules may import it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import PolicyResource
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.props import as_int, as_list, get, get_ref
from gpufleet.policies.storage._documents import condition, effect, is_wildcard_principal, statements


def walk(obj: Any, *steps: str | tuple[str, ...]) -> list[Any]:
    """Every value reached by following `steps`, each step a key or alternative keys.

    Single nested objects and lists of them are treated alike, because the same setting is a
    single object in one SDK shape (`Bucket.serverSideEncryptionConfiguration.rule`) and a list in
    another (`BucketV2.serverSideEncryptionConfigurations[].rules[]`). An unknown value on the way
    raises `UnknownValueError` (a decisive value that cannot be judged).
    """
    current = [obj]
    for step in steps:
        keys = (step,) if isinstance(step, str) else step
        reached: list[Any] = []
        for item in current:
            if not isinstance(item, Mapping):
                continue
            for key in keys:
                reached.extend(as_list(get(item, key)))
        current = reached
    return current


def first_int(obj: Any, *keys: str) -> int | None:
    for key in keys:
        value = as_int(get(obj, key))
        if value is not None:
            return value
    return None


@dataclass(frozen=True)
class Encryption:
    """One server-side encryption setting: algorithm as written, key reference, and where it is."""

    algorithm: str | None
    key: Any
    source: PolicyResource
    key_prop: str


def encryption(obj: Any, algorithm_key: str, key_key: str, source: PolicyResource, top: str) -> Encryption:
    """The setting in `obj` (algorithm at `algorithm_key`, key at `key_key`); `top` is the input of
    `source` whose property dependencies name the key."""
    algorithm = get(obj, algorithm_key)
    key = get_ref(obj, key_key)
    return Encryption(None if algorithm is None else str(algorithm), None if key == "" else key, source, top)


@dataclass(frozen=True)
class Replication:
    destination: Any
    destination_region: str | None
    source: PolicyResource


def tls_number(value: Any) -> float | None:
    match = re.search(r"(\d+(?:\.\d+)?)", str(value))
    return float(match.group(1)) if match else None


def _anonymous_allows(policy_sources: list[tuple[object, str]]) -> bool:
    return any(
        effect(statement) == "allow" and is_wildcard_principal(statement) and not condition(statement)
        for document, path in policy_sources
        for statement in statements(document, path)
    )


def anonymous_allows_unless_failing(
    policy_sources: Callable[[], list[tuple[object, str]]], problems: list[str]
) -> bool:
    """Whether a policy allows anyone; a policy unknown at preview (built with `apply` from the
    bucket's or a key's id) leaves the bucket unjudged only when no known setting already fails it,
    so a public ACL or a missing block is still reported at preview."""
    try:
        return _anonymous_allows(policy_sources())
    except UnknownValueError:
        if problems:
            return False
        raise
