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

What is *said about* the graph (violation messages, checkov findings, cost and advice views) goes
through a `Redactor` built from the stack's secret values (`secret_texts`): the policies and the pricing
read deserialized properties, where a secret is its plain value, so a message may quote it. Every
quoted occurrence becomes `[secret]`, on token boundaries (see `Redactor`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import re
from collections.abc import Iterable
from typing import Any, TypeVar

from gpufleet.graph import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN_STRING, Resource, ResourceGraph, is_secret

_T = TypeVar("_T")

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
    # A config value the program reads as a secret (`config.require_secret`) is plain in the stack file,
    # and so in the config: where it is a secret text of the stack, it reads `[secret]` there too.
    redacted["config"] = redactor(graph).value(redacted["config"])
    return redacted


def redacted_graph(graph: ResourceGraph) -> ResourceGraph:
    """A copy of `graph` with no secret in it, for printing."""
    return ResourceGraph.from_json(redacted_json(graph))


# --- what is said about the graph ------------------------------------------------------------------

SHORT_SECRET_CHARS = 3
"""Secret texts shorter than this (a port "22", a wildcard "*") are redacted only where they stand as a
whole token (between spaces, quotes, brackets or punctuation), never inside another word or number."""
PREFIX_CHARS = 32
"""A secret text at least this long is also redacted where only its beginning is quoted: a message
quotes at most 200 characters of a value (`gpufleet.policies.props.excerpt`)."""
_MAX_PARSED_CHARS = 1_000_000
_WORD = "A-Za-z0-9_"
# A short secret stands alone: after the start, a space, an opening quote or bracket, `=` or `,`; before
# the end, a space, a closing quote or bracket, `,` or `;`, or a `.`, `:`, `!` or `?` ending a sentence.
_SHORT_BEFORE = r"(?<![^\s'\"`\\(\[{<,=])"
_SHORT_AFTER = r"(?=$|[\s'\"`\\)\]}>,;]|[.:!?](?:\s|$))"


def _number_texts(value: float | int) -> list[str]:
    """How a number may be written in a message: 22.0 crosses the wire for 22, and is quoted as either."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return []
        if value.is_integer() and abs(value) < 1e16:
            return [str(int(value)), repr(value)]
        return [repr(value)]
    return [str(value)] if value.bit_length() < 256 else []


# In a JSON document held by a secret, the values of these keys are the document's grammar (the version
# and effect of an AWS, Alibaba or Tencent policy statement), not its content.
_GRAMMAR_KEYS = frozenset({"Version", "Effect", "version", "effect"})
_HAS_WORD = re.compile(r"[^\W_]")


def _leaf_texts(value: Any, found: set[str]) -> None:
    """Every string and number inside a secret value, and inside JSON text it holds: a policy document
    built from a secret is one secret string, and a message quotes its actions one by one. Inside such a
    document the grammar (`_GRAMMAR_KEYS`) and texts with no letter or digit (a wildcard `*`) are left
    out: they say nothing of the secret that the finding does not, and they are words of every rule."""
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, parsed = stack.pop()
        if _is_secret(item):
            stack.append((item.get("value"), parsed))
        elif isinstance(item, dict):
            stack.extend((v, parsed) for k, v in item.items() if not (parsed and k in _GRAMMAR_KEYS))
        elif isinstance(item, list):
            stack.extend((v, parsed) for v in item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int | float):
            found.update(_number_texts(item))
        elif isinstance(item, str):
            text = item.strip()
            if not text or item == UNKNOWN_STRING or (parsed and not _HAS_WORD.search(text)):
                continue
            found.add(item)
            if text[:1] in ("{", "[") and len(text) <= _MAX_PARSED_CHARS:
                with contextlib.suppress(ValueError):
                    stack.append((json.loads(text), True))


def secret_values(values: Iterable[Any]) -> frozenset[str]:
    """The texts of every secret (at any depth) in `values`: its strings, numbers as they are written,
    and the strings and numbers of JSON documents it holds. Map keys are not secret texts."""
    found: set[str] = set()
    stack: list[Any] = list(values)
    while stack:
        item = stack.pop()
        if _is_secret(item):
            _leaf_texts(item.get("value"), found)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return frozenset(found)


def _holds_secret(value: Any) -> bool:
    """Whether `value` holds a secret at any depth (`_is_secret`). Plain dicts and lists, nearly every
    container of a graph, are told apart by exact type first: this walks every resource of a stack."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            if SECRET_SIG_KEY in item and (item[SECRET_SIG_KEY] == SECRET_SIG or item.get("secret") is True):
                return True
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif _is_secret(item):
            return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


# An output the provider derives from another input than its own name: AWS `tagsAll` merges `tags`.
_ECHOED_INPUT = {"tagsAll": "tags"}


def _secret_sources(resource: Resource) -> list[Any]:
    """What of a resource holds its secrets, each as precisely as it is known. An output that echoes an
    input holding a secret comes back secret as a whole (an `ingress` list with one secret CIDR): its
    input says which part is the secret, so the output is left to it. An output that is secret with no
    secret input behind it (a generated password) counts whole."""
    # Most resources hold no secret at all: one walk of the inputs and one of the outputs say so.
    sources: list[Any] = [resource.inputs] if _holds_secret(resource.inputs) else []
    if not _holds_secret(resource.outputs):
        return sources
    for key, value in resource.outputs.items():
        echoed = resource.inputs.get(_ECHOED_INPUT.get(key, key))
        if _holds_secret(value) and not (echoed is not None and _holds_secret(echoed)):
            sources.append(value)
    return sources


def secret_texts(graph: ResourceGraph) -> frozenset[str]:
    """The secret texts of a stack: of every resource's inputs and outputs, and of the stack outputs.
    Judging and pricing read all of them, and a finding on one resource may quote another's."""

    def build() -> frozenset[str]:
        sources = [source for resource in graph.resources for source in _secret_sources(resource)]
        return secret_values([*sources, graph.outputs])

    return graph.derived("secret_texts", build)


def _alternative(text: str) -> str:
    escaped = re.escape(text)
    if len(text) < SHORT_SECRET_CHARS:
        if text.isdigit():  # a port of a range: `22-22`
            return f"(?:{_SHORT_BEFORE}|(?<=\\d-)){escaped}(?:{_SHORT_AFTER}|(?=-\\d))"
        return f"{_SHORT_BEFORE}{escaped}{_SHORT_AFTER}"
    before = f"(?<![{_WORD}])" if re.match(f"[{_WORD}]", text[0]) else ""
    after = f"(?![{_WORD}])" if re.match(f"[{_WORD}]", text[-1]) else ""
    return f"{before}{escaped}{after}"


def _spellings(texts: Iterable[str]) -> set[str]:
    """Each text as it is, and as it reads inside a JSON string (a quoted excerpt of a value)."""
    found: set[str] = set()
    for text in texts:
        found.add(text)
        found.add(json.dumps(text, ensure_ascii=False)[1:-1])
        found.add(json.dumps(text)[1:-1])
    return found


class Redactor:
    """Replaces the quoted secret texts of a stack in what is said about it with `[secret]`.

    A text is replaced on token boundaries only: `t3.micro` in `(t3.micro)` or `'t3.micro'`, never the
    `22` of `2222` nor the `admin` of `administrator`; a text shorter than `SHORT_SECRET_CHARS` only
    where it stands alone (`port 22`, `'*'`, not `10.0.0.22` nor `s3:*`). A text of `PREFIX_CHARS` or
    more is also replaced where only its beginning is quoted."""

    def __init__(self, texts: Iterable[str]) -> None:
        spelled = sorted(_spellings(texts), key=lambda t: (-len(t), t))
        self.texts = frozenset(spelled)
        self._pattern = re.compile("|".join(_alternative(t) for t in spelled)) if spelled else None
        self._prefixes = sorted({t for t in spelled if len(t) >= PREFIX_CHARS}, key=len, reverse=True)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, value: str) -> str:
        if self._pattern is None or not value:
            return value
        redacted = self._pattern.sub(REDACTED, value)
        for secret in self._prefixes:
            redacted = _cut_prefixes(redacted, secret)
        return redacted

    def value(self, value: _T) -> _T:
        """`value` with `text` applied to every string in it: dicts (values), lists, tuples and
        dataclasses (a copy; numbers, keys and anything else left as they are)."""
        if self._pattern is None:
            return value
        return self._value(value)  # type: ignore[no-any-return]

    def _value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self._value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._value(item) for item in value]
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            return tuple(self._value(item) for item in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for item in dataclasses.fields(value):
                if not item.init:
                    continue
                current = getattr(value, item.name)
                redacted = self._value(current)
                if redacted is not current and redacted != current:
                    changes[item.name] = redacted
            return dataclasses.replace(value, **changes) if changes else value
        return value


def _cut_prefixes(text: str, secret: str) -> str:
    """`text` with every run that starts with the first `PREFIX_CHARS` characters of `secret` and goes on
    as `secret` does replaced by `[secret]`."""
    head = secret[:PREFIX_CHARS]
    start = text.find(head)
    while start >= 0:
        end = start + len(head)
        while end < len(text) and end - start < len(secret) and text[end] == secret[end - start]:
            end += 1
        text = text[:start] + REDACTED + text[end:]
        start = text.find(head, start + len(REDACTED))
    return text


def redactor(graph: ResourceGraph) -> Redactor:
    """The `Redactor` of a stack's secret texts, built once per graph."""
    return graph.derived("redactor", lambda: Redactor(secret_texts(graph)))


__all__ = [
    "REDACTED",
    "Redactor",
    "redact",
    "redacted_graph",
    "redacted_json",
    "redactor",
    "secret_strings",
    "secret_texts",
    "secret_values",
]
