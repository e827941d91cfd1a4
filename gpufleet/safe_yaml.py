"""YAML for project and stack files, read with limits: hostile input is a clear error, fast.

A stack file is data a program gets as config, and every config value is JSON-encoded on its way to
the program. So a file is refused (with the field and line) when it could not be handed over
faithfully or cheaply: bytes that are not UTF-8, nesting deeper than `MAX_DEPTH`, more than
`MAX_NODES` values, or more than `MAX_EXPANDED` once aliases are expanded (an alias bomb expands
exponentially), an integer a JSON number cannot hold exactly, `.inf`/`.nan`, a value longer than
`MAX_VALUE_CHARS`, a key given twice in one mapping, a scalar that does not fit its explicit tag
(`!!timestamp 2024-02-30`, `!!float ""`).

Events come from libyaml when it is installed (PyYAML's own parser is about six times slower); the
nodes are composed here, counting depth and nodes as they are made, before anything is constructed.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver

try:
    from yaml._yaml import CParser as _EventParser
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml.parser import Parser as _PyParser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _EventParser(Reader, Scanner, _PyParser):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            _PyParser.__init__(self)


MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_VALUE_CHARS = 1024 * 1024
"""Longest string (or key) a file may hold: 1 MiB of characters."""
MAX_DEPTH = 64
MAX_NODES = 10_000
"""Values (scalars, lists, mappings, keys) written in a file; a large stack file holds a few hundred."""
MAX_EXPANDED = 100_000
"""Values once every alias is expanded: what the program's JSON-encoded config would hold."""
MAX_SAFE_INTEGER = 2**53
"""Beyond this a JSON number (a double, which is how the Pulumi engine carries numbers) is inexact."""
QUOTE_LIMIT = 200
_MAX_PROBLEMS = 10
# What PyYAML's constructors raise on a scalar that does not fit its tag (`!!float ""`, `!!int x`).
_CONSTRUCTION_ERRORS = (ValueError, TypeError, OverflowError, IndexError, KeyError, AttributeError)

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"


class YamlLimitError(Exception):
    """A file that cannot be read safely; the message names the file, the field and the line."""


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text`, cut to `limit` characters with the full length said, for quoting input in messages."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """`repr` of a value, at most about `limit` characters."""
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}… ({len(value):,} characters)"
    return clip(repr(value), limit)


class _StackResolver(BaseResolver):
    """Plain scalars typed as the Pulumi CLI types them (Go's yaml.v2), not as PyYAML's YAML 1.1 does:
    `12:30` stays the string "12:30" (PyYAML reads base 60: 750), dates and times stay the text
    written (PyYAML makes `datetime` objects), and `1e3` is a number."""


for _tag, _pattern, _first in (
    ("bool", r"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF", "yYnNtTfFoO"),
    ("int", r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+", "-+0123456789"),
    (
        "float",
        r"[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+0123456789.",
    ),
    ("merge", r"<<", "<"),
    ("null", r"~|null|Null|NULL|", "~nN"),
):
    _StackResolver.add_implicit_resolver(
        f"tag:yaml.org,2002:{_tag}",
        re.compile(f"^(?:{_pattern})$"),
        [*_first, *([""] if _tag == "null" else [])],
    )


class _LimitedLoader(Composer, _EventParser, SafeConstructor, _StackResolver):
    """libyaml events, composed here with a depth and node budget, constructed as `yaml.safe_load` does."""

    def __init__(self, text: str) -> None:
        _EventParser.__init__(self, text)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        _StackResolver.__init__(self)
        self.depth = 0
        self.nodes = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        self.depth += 1
        self.nodes += 1
        try:
            if self.depth > MAX_DEPTH or self.nodes > MAX_NODES:
                event = self.peek_event()
                mark = event.start_mark if event is not None else None
                line = f"line {mark.line + 1}: " if mark is not None else ""
                if self.depth > MAX_DEPTH:
                    raise YamlLimitError(f"{line}values are nested more than {MAX_DEPTH} levels deep")
                raise YamlLimitError(f"{line}more than {MAX_NODES:,} values in one file")
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _line(node: Node) -> int:
    return int(node.start_mark.line) + 1


def _key_text(node: Node) -> str:
    if isinstance(node, ScalarNode):
        text = str(node.value)
        # A key with a line break or other control character is shown escaped: messages stay one line.
        return clip(text if text.isprintable() else repr(text), 60)
    return "<a complex key>"


def _expanded_size(root: Node) -> tuple[int, int]:
    """(values, depth) of the document with every alias expanded, without expanding it: each node's
    size is computed once. A node that contains itself (`&a [*a]`) raises YamlLimitError."""
    size: dict[int, tuple[int, int]] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            total, depth = 1, 0
            for child in _children(node):
                child_total, child_depth = size[id(child)]
                total += child_total
                depth = max(depth, child_depth)
                if total > MAX_EXPANDED:
                    break
            size[key] = (total, depth + 1)
            continue
        if key in size:
            continue
        if key in open_nodes:
            raise YamlLimitError(f"line {_line(node)}: an alias refers to the value that contains it")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in size)
    return size[id(root)]


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [item for pair in node.value for item in pair]
    return []


class _Checker:
    """Walks the composed document once (a node reached again through an alias is not re-checked)."""

    def __init__(self, loader: _LimitedLoader) -> None:
        self.loader = loader
        self.problems: list[str] = []
        self.seen: set[int] = set()

    def add(self, path: str, node: Node, message: str) -> None:
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append(f"{path or 'the document'} (line {_line(node)}): {message}")

    def walk(self, node: Node, path: str) -> None:
        if id(node) in self.seen:
            return
        self.seen.add(id(node))
        if isinstance(node, ScalarNode):
            self.scalar(node, path)
        elif isinstance(node, SequenceNode):
            for index, item in enumerate(node.value):
                self.walk(item, f"{path}[{index}]")
        elif isinstance(node, MappingNode):
            first_line: dict[tuple[str, str], int] = {}
            for key_node, value_node in node.value:
                name = _key_text(key_node)
                child = f"{path}.{name}" if path else name
                self.walk(key_node, child)
                if isinstance(key_node, ScalarNode) and key_node.tag != _MERGE:
                    ident = (key_node.tag, key_node.value)
                    if ident in first_line:
                        self.add(
                            child,
                            key_node,
                            f"the key {quote(key_node.value, 60)} is given twice in one mapping, at lines "
                            f"{first_line[ident]} and {_line(key_node)}; keep one",
                        )
                    else:
                        first_line[ident] = _line(key_node)
                self.walk(value_node, child)

    def scalar(self, node: ScalarNode, path: str) -> None:
        text = str(node.value)
        if len(text) > MAX_VALUE_CHARS:
            self.add(
                path, node, f"a value of {len(text):,} characters; at most {MAX_VALUE_CHARS:,} are allowed"
            )
            return
        if node.tag in (_INT, _FLOAT, _TIMESTAMP):
            try:
                self.number(node, path, text)
            except _CONSTRUCTION_ERRORS as exc:
                kind = {_INT: "an integer", _FLOAT: "a number", _TIMESTAMP: "a date"}[node.tag]
                self.add(
                    path, node, f"{quote(text, 40)} is tagged as {kind} but is not one ({clip(str(exc), 80)})"
                )

    def number(self, node: ScalarNode, path: str, text: str) -> None:
        if node.tag == _INT:
            digits = text.lstrip("+-").replace("_", "")
            value = self.loader.construct_yaml_int(node) if len(digits) <= 64 else None
            if value is None or abs(value) > MAX_SAFE_INTEGER:
                self.add(
                    path,
                    node,
                    f"the integer {quote(text, 40)} is too large: a config number is carried as a double, "
                    f"exact only up to 2^53 ({MAX_SAFE_INTEGER:,}); quote it to pass it as a string",
                )
        elif node.tag == _FLOAT:
            number = self.loader.construct_yaml_float(node)
            if not math.isfinite(number):
                self.add(
                    path,
                    node,
                    f"{quote(text, 40)} is not a finite number (JSON has no infinity or NaN); "
                    "give a number, or quote it to pass it as a string",
                )
        else:
            self.loader.construct_yaml_timestamp(node)


def load(path: Path, text: str) -> Any:
    """The document in `text` (read from `path`), checked against the limits above."""
    loader = _LimitedLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except YamlLimitError as exc:
            raise YamlLimitError(f"{path}: {exc}") from None
        if node is None:
            return None
        try:
            total, depth = _expanded_size(node)
        except YamlLimitError as exc:
            raise YamlLimitError(f"{path}: {exc}") from None
        if total > MAX_EXPANDED:
            raise YamlLimitError(
                f"{path}: more than {MAX_EXPANDED:,} values once its aliases (*name) are expanded; a stack "
                "file this size is almost certainly an alias bomb"
            )
        if depth > MAX_DEPTH:
            raise YamlLimitError(
                f"{path}: values are nested more than {MAX_DEPTH} levels deep once its aliases are expanded"
            )
        checker = _Checker(loader)
        checker.walk(node, "")
        if checker.problems:
            count = len(checker.problems)
            more = " (first 10 shown)" if count >= _MAX_PROBLEMS else ""
            raise YamlLimitError(f"{path}: {'; '.join(checker.problems)}{more}")
        try:
            return loader.construct_document(node)
        except _CONSTRUCTION_ERRORS as exc:
            raise YamlLimitError(f"{path}: a value cannot be read: {clip(str(exc))}") from None
    finally:
        loader.dispose()


def read_text(path: Path) -> str:
    """The file as UTF-8 text; a file too large or not UTF-8 raises YamlLimitError (OSError passes)."""
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise YamlLimitError(
            f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; a stack file is config"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise YamlLimitError(
            f"{path} is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line}, column {column} "
            "cannot be decoded; save the file as UTF-8"
        ) from None


__all__ = [
    "MAX_DEPTH",
    "MAX_EXPANDED",
    "MAX_NODES",
    "MAX_SAFE_INTEGER",
    "MAX_VALUE_CHARS",
    "YamlLimitError",
    "clip",
    "load",
    "quote",
    "read_text",
]
