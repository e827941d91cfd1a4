"""The resource graph as it may be shown or written: secrets replaced, numbers JSON can carry.

A secret reaches the graph in the engine's wire form, `{SECRET_SIG_KEY: SECRET_SIG, "value": ...}`:
inputs carry it as the SDK serialised them, and outputs keep it where the mocks echo a secret input
(or a whole map holding one, as `tagsAll` does). Every such value becomes `[secret]`. A secret's text
can also reach a plain string the mocks derive from inputs (a policy document encoded as JSON, say),
so secret strings of `MIN_SCRUBBED_CHARS` or more are cut out of every other string too: the secret
strings themselves, and the strings inside a secret map or list that the graph shows nowhere in the
clear (see `secret_strings`).

JSON has no NaN or infinity: a program that computes one gets the string protobuf's JSON mapping
uses (`"NaN"`, `"Infinity"`, `"-Infinity"`), so a written graph is always valid JSON.
"""

from __future__ import annotations

import math
import re
from typing import Any

from gpufleet.graph import SECRET_SIG_KEY, ResourceGraph, is_secret

REDACTED = "[secret]"
MIN_SCRUBBED_CHARS = 6
"""Shorter secret strings are only replaced where they are marked secret: cutting every "true" or
"admin" out of the graph would hide more than it protects."""


def _is_secret(value: Any) -> bool:
    """A secret in wire form, or an output value (another signature) marked secret."""
    if is_secret(value):
        return True
    return isinstance(value, dict) and SECRET_SIG_KEY in value and value.get("secret") is True


def secret_strings(value: Any) -> set[str]:
    """The text of every secret string in `value`, to cut out of other strings.

    A secret that is a string is secret text, always. A secret map or list (an output the mocks echo
    whole once one field of it is secret, an IPsec connection's `ikeConfig` for its `psk`) also holds
    the program's plain settings (`sha256`, `aes256`, `group14`): a string inside one is secret text
    only if the graph never shows it in the clear. Cutting `sha256` out of every image digest and
    certificate field because it sits beside a pre-shared key would hide what no one needs hidden."""
    scalars: set[str] = set()
    nested: set[str] = set()
    plain: set[str] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, inside = stack.pop()
        if _is_secret(item):
            inner = item.get("value")
            if isinstance(inner, str):
                scalars.add(inner)
            else:
                stack.append((inner, True))
        elif isinstance(item, dict):
            stack.extend((v, inside) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, inside) for v in item)
        elif isinstance(item, str):
            (nested if inside else plain).add(item)
    return {text for text in scalars | (nested - plain) if len(text) >= MIN_SCRUBBED_CHARS}


def redact(value: Any, secrets: set[str] | frozenset[str] = frozenset()) -> Any:
    """`value` with every secret replaced by `[secret]`, the text of `secrets` cut out of other strings,
    and non-finite floats spelled as strings."""
    # One pattern for all secret texts, longest first so a secret inside another is not cut first.
    pattern = (
        re.compile("|".join(re.escape(t) for t in sorted(secrets, key=len, reverse=True)))
        if secrets
        else None
    )
    return _redact(value, pattern)


def _redact(value: Any, pattern: re.Pattern[str] | None) -> Any:
    if _is_secret(value):
        return REDACTED
    if isinstance(value, dict):
        return {key: _redact(item, pattern) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item, pattern) for item in value]
    if isinstance(value, str):
        return pattern.sub(REDACTED, value) if pattern is not None else value
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def redacted_json(graph: ResourceGraph) -> dict[str, Any]:
    """`graph.to_json()` with no secret in it."""
    document = graph.to_json()
    secrets = secret_strings([document["resources"], document["outputs"], document["config"]])
    redacted: dict[str, Any] = redact(document, frozenset(secrets))
    return redacted


def redacted_graph(graph: ResourceGraph) -> ResourceGraph:
    """A copy of `graph` with no secret in it, for printing."""
    return ResourceGraph.from_json(redacted_json(graph))


__all__ = ["REDACTED", "redact", "redacted_graph", "redacted_json", "secret_strings"]
