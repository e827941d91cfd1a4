"""Extract provider-schema constraints from the installed provider SDKs' docstrings.

The Python SDKs are generated from the bridged Terraform schemas' documentation, so a property's
docstring carries what the provider's validators hold ("Valid values: `a`, `b`", "Value range: [0,
86400]", "must be `2` to `128` characters in length"). This script reads the properties of every type
token in `SCOPE` (and of the nested input types under them), keeps only the phrasings it parses without
doubt, and writes `provider_schema.json` beside it:

    python -m gpufleet.policies.deploy.generate            # rewrite the committed file
    python -m gpufleet.policies.deploy.generate --check    # exit 1 when the committed file is out of step

Precision over recall: a description with two ranges, a conditional ("when", "if"), an "either ... or",
an inconsistent default, or a list that only "includes" values gives nothing. What the docstrings do not
say lives in `overrides.json`, by hand, each entry with its source.
"""

from __future__ import annotations

import argparse
import collections.abc
import importlib
import importlib.metadata
import json
import re
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gpufleet.components.clouds import PROFILES, cloud_parts, part_union

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "provider_schema.json"

# Python package of each provider, and the distribution whose version pins it.
PACKAGES: dict[str, tuple[str, str]] = {p.key: (p.sdk_package, p.sdk_package) for p in PROFILES.values()}

# The provider resources the fleet programs build: every type token of the shipped stacks, from each
# cloud's module of this package (`SCOPE` in `aws.py`, `alicloud.py`, ...).
PARTS = cloud_parts("gpufleet.policies.deploy")
SCOPE = tuple(sorted(part_union(PARTS, "SCOPE")))

# --- the phrasings kept ------------------------------------------------------------------------------

_BT_ITEM = r"`[^`\s|]+`"
_ENUM = re.compile(
    r"(?:Valid values(?: are)?|Valid Values|Allowed values(?: are)?|The allowed values are|"
    r"Possible values(?: are)?)"
    rf"\s*:?\s*({_BT_ITEM}(?:\s*(?:,|, and|,and| and| or|, or)\s*{_BT_ITEM})+)\s*(?=\.|$|\s\*\*NOTE)"
)
_NUM = r"`?(-?\d{1,3}(?:,\d{3})+|-?\d+)`?"
_TO = r"\s*(?:to|-|~)\s*"
_RANGES = (
    # Value range: [0, 86400] / Valid value range: [300, 86400] / Valid values: [1-3650] / [30~60]
    re.compile(
        r"(?:Value range|Valid value range|Valid value ranges|Valid values|range)\s*:?\s*"
        rf"\[\s*{_NUM}\s*(?:,|-|~)\s*{_NUM}\s*\]"
    ),
    # Valid values: `1` to `64` / Value range: 1-1000 / The value ranges from 60 to 604800
    re.compile(
        r"(?:Value range|Valid values|Valid range is|value ranges from|in the range of)\s*:?\s*"
        rf"{_NUM}{_TO}{_NUM}(?![\d.,]*\s*(?:KB|MB|GB|minutes|hours|days)\b)"
    ),
    # An integer from 0 to 43200 (12 hours) / from 60 (1 minute) to 1209600 (14 days)
    re.compile(rf"[Ii]nteger(?: representing seconds,)? from {_NUM}(?: \([^)]*\))? to {_NUM}(?! \w*bytes)"),
    # must be between `7` and `30` / Valid value is between `900` and `28800`
    re.compile(rf"(?:must be|[Vv]alid value is|[Vv]alues must be) between {_NUM} and {_NUM}(?! characters)"),
)
_LENGTHS = (
    re.compile(
        rf"(?:must be|can be|It can be|is a string of)\s*\[?{_NUM}(?:\s*to\s*|\s*,\s*){_NUM}\]?\s*characters"
    ),
    re.compile(rf"[Tt]he length of character is limited to {_NUM}-{_NUM}\b"),
    re.compile(rf"[Tt]he length is {_NUM} to {_NUM}\b"),
    re.compile(rf"must be between {_NUM} and {_NUM} characters"),
)
# A description that qualifies its values gives no constraint: they depend on something else.
_DOUBT = re.compile(
    r"\b(?:either|include|includes|such as|e\.g\.|etc|depends|depending|beta|when|unless|otherwise|only if|"
    r"if you|if message|varies|vary|deprecated)\b",
    re.IGNORECASE,
)
_DEFAULT = re.compile(r"(?:Default value|Defaults? to|default(?: value)? is)\s*:?\s*`?(-?\d[\d,]*)`?")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def enum_of(doc: str, kind: str) -> list[Any] | None:
    if _DOUBT.search(doc):
        return None
    found = [m.group(1) for m in _ENUM.finditer(doc)]
    if len(found) != 1:
        return None
    values = re.findall(r"`([^`]+)`", found[0])
    if len(set(values)) != len(values) or any(v.strip('"') != v for v in values):
        return None
    if kind == "int":
        if not all(re.fullmatch(r"-?\d+", v) for v in values):
            return None
        return [int(v) for v in values]
    if kind != "str" or any(v in ("true", "false", '""') for v in values):
        return None
    default = re.search(r"Default(?: value)?\s*:?\s*`([^`]+)`", doc)
    if default and default.group(1) not in values:
        return None
    return values


def _one_pair(patterns: tuple[re.Pattern[str], ...], doc: str) -> tuple[int, int] | None:
    pairs = {(_number(m.group(1)), _number(m.group(2))) for p in patterns for m in p.finditer(doc)}
    if len(pairs) != 1:
        return None
    low, high = pairs.pop()
    return (low, high) if low <= high else None


def range_of(doc: str, kind: str) -> tuple[int, int] | None:
    if kind not in ("int", "float") or _DOUBT.search(doc):
        return None
    pair = _one_pair(_RANGES, doc)
    if pair is None:
        return None
    for default in _DEFAULT.finditer(doc):
        if not pair[0] <= _number(default.group(1)) <= pair[1]:
            return None
    return pair


def length_of(doc: str, kind: str) -> tuple[int, int] | None:
    if kind != "str" or _DOUBT.search(doc) or "bytes" in doc:
        return None
    return _one_pair(_LENGTHS, doc)


# --- walking the SDK ---------------------------------------------------------------------------------


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def module_of(token: str) -> tuple[str, str, str]:
    """(module, resource class, file relative to the package) of a type token."""
    provider, middle, name = token.split(":")
    module, resource = middle.split("/")
    package = PACKAGES[provider][0]
    folder = module.lower()
    if folder in ("as", "lambda", "is"):
        folder += "_"
    return f"{package}.{folder}.{_snake(resource)}", name, f"{folder}/{_snake(resource)}.py"


def _leaves(annotation: Any, in_list: bool = False) -> Iterator[tuple[Any, bool]]:
    """The leaf types of an SDK annotation (Input[...] unions of values, awaitables and outputs)."""
    if isinstance(annotation, typing.ForwardRef):
        yield annotation.__forward_arg__, in_list
        return
    if isinstance(annotation, str):
        yield annotation, in_list
        return
    origin = typing.get_origin(annotation)
    if origin is None:
        yield annotation, in_list
        return
    if origin in (collections.abc.Mapping, dict):
        yield "map", in_list
        return
    if origin is collections.abc.Awaitable:
        return
    listed = in_list or origin in (collections.abc.Sequence, list)
    for argument in typing.get_args(annotation):
        yield from _leaves(argument, listed)


def _optional(annotation: Any) -> bool:
    return any(leaf is type(None) for leaf, _ in _leaves(annotation))


def _kind(annotation: Any) -> tuple[str, bool, str | None]:
    """(scalar kind, is a list, nested Args class) of a property's annotation."""
    kinds: set[tuple[str, bool, str | None]] = set()
    for leaf, in_list in _leaves(annotation):
        if leaf is type(None) or (isinstance(leaf, str) and leaf.startswith("Output")):
            continue
        if isinstance(leaf, str) and re.fullmatch(r"\w+Args", leaf):
            kinds.add(("object", in_list, leaf))
        elif leaf in (str, int, float, bool):
            kinds.add((leaf.__name__, in_list, None))
        elif leaf == "map":
            kinds.add(("map", in_list, None))
        else:
            kinds.add(("other", in_list, None))
    return kinds.pop() if len(kinds) == 1 else ("other", False, None)


def properties(
    cls: type, module: Any, prefix: str = "", seen: frozenset[str] = frozenset()
) -> Iterator[tuple[str, str, str, str, bool]]:
    """(wire path, kind, Python path, docstring, required) of every property under an Args class."""
    from pulumi._types import _PULUMI_NAME

    for attribute, value in vars(cls).items():
        if not isinstance(value, property):
            continue
        wire = getattr(value.fget, _PULUMI_NAME, None)
        if not wire:
            continue
        annotation = value.fget.__annotations__.get("return")
        kind, is_list, nested = _kind(annotation)
        path = prefix + wire
        doc = " ".join((value.fget.__doc__ or "").split())
        required = not _optional(annotation)
        where = f"{cls.__name__}.{attribute}"
        if nested is None:
            yield (path + "[]" if is_list else path), kind, where, doc, required
        else:
            if required:
                yield path, kind, where, doc, True
            if nested in seen:
                continue
            sub = getattr(module, nested, None) or getattr(
                importlib.import_module(module.__name__.rsplit(".", 1)[0] + "._inputs"), nested
            )
            yield from properties(sub, module, path + ("[]." if is_list else "."), seen | {nested})


def constraints_of(token: str) -> list[dict[str, Any]]:
    module_name, _, file = module_of(token)
    module = importlib.import_module(module_name)
    provider = token.split(":", maxsplit=1)[0]
    package = PACKAGES[provider][0]
    found: list[dict[str, Any]] = []
    # The resource's own Args class (a nested input type of another resource may share its name).
    own = [
        value
        for name, value in vars(module).items()
        if isinstance(value, type) and value.__module__ == module.__name__ and name.endswith("Args")
    ]
    if len(own) != 1:
        raise LookupError(f"{token}: {module_name} defines {len(own)} Args classes, expected 1")
    for path, kind, where, doc, required in properties(own[0], module):
        source = f"{package} {file} {where}"
        if required:
            # An argument the SDK's type makes required: the provider's Check refuses the resource
            # without it (within a nested block: every block given must carry it).
            found.append(
                {"path": path.removesuffix("[]"), "kind": "required", "source": f"{source} (required)"}
            )
            if kind == "object":
                continue
        values = enum_of(doc, kind)
        if values is not None:
            found.append({"path": path, "kind": "enum", "values": values, "source": source})
        pair = range_of(doc, kind)
        if pair is not None:
            found.append({"path": path, "kind": "range", "min": pair[0], "max": pair[1], "source": source})
        length = length_of(doc, kind)
        if length is not None:
            found.append(
                {"path": path, "kind": "length", "min": length[0], "max": length[1], "source": source}
            )
    return sorted(found, key=lambda c: (c["path"], c["kind"]))


def generate() -> dict[str, Any]:
    versions = {dist: importlib.metadata.version(dist) for _, dist in PACKAGES.values()}
    table = {token: constraints_of(token) for token in sorted(SCOPE)}
    return {
        "generated_by": "python -m gpufleet.policies.deploy.generate",
        "sdks": dict(sorted(versions.items())),
        "constraints": {token: entries for token, entries in table.items() if entries},
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed file differs")
    args = parser.parse_args(argv)
    text = render(generate())
    if args.check:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(
                f"{OUTPUT} is out of step with the installed SDKs: "
                "run python -m gpufleet.policies.deploy.generate"
            )
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
