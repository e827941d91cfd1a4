"""`--help` that reads well in an 80-column terminal: flags shown as flags, examples never wrapped
mid-command (a long one is split at a word with a shell line continuation, so it still pastes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.markup import escape
from typer.core import TyperOption

COMMAND_WIDTH = 72
"""Widest example line: the help's 1-column padding, 2 of indent and ` \\` fit in 80 columns."""

_typed = TyperOption.display_type_rich


def _flag_aware(self: TyperOption, ctx: Any) -> str | None:
    """A boolean flag takes no value: typer 0.29 still prints `<bool>` beside it."""
    if self.is_flag and self.metavar is None:
        return None
    return _typed(self, ctx)


TyperOption.display_type_rich = _flag_aware  # type: ignore[method-assign,assignment]


def command_lines(command: str, width: int = COMMAND_WIDTH) -> list[str]:
    """The command as lines of at most `width` characters, split between words, each but the last
    ending in ` \\`. A single word longer than the width stays whole on its own line."""
    lines: list[str] = []
    current = ""
    for word in command.split(" "):
        if current and len(current) + 1 + len(word) + 2 > width:
            lines.append(current + " \\")
            current = "    " + word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return lines


def examples(items: Sequence[tuple[str, str]], notes: Sequence[str] = ()) -> str:
    """An epilog: `Examples:`, then each command on lines of its own with what it does beneath, then the
    notes (prose, which may wrap anywhere)."""
    blocks = []
    for command, what in items:
        text = "\n".join(f"  [bold]{escape(line)}[/]" for line in command_lines(command))
        blocks.append(text + (f"\n      {escape(what)}" if what else ""))
    return "\n\n".join(["Examples:", *blocks, *notes])
