""" "Did you mean" for names a user types: stack names here; spec fields in components/spec/messages.py."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from gpufleet.project import ProjectError, load_project


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """The candidates nearest `word` (difflib's ratio, at least 0.6), case-insensitively, best first."""
    by_lower: dict[str, str] = {}
    for candidate in candidates:
        by_lower.setdefault(candidate.lower(), candidate)
    return [by_lower[m] for m in difflib.get_close_matches(word.lower(), list(by_lower), n=n, cutoff=0.6)]


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`did you mean 'prod'?` (or `'prod' or 'prod-eu'`), or "" when nothing is close."""
    close = close_matches(word, candidates)
    return f"did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def stack_hint(project_dir: Path, stack: str) -> str:
    """For a stack without a stack file: the stacks that have one and whose names are close, as
    `; did you mean stack 'prod' (stacks/Pulumi.prod.yaml)?`, else ""."""
    try:
        project = load_project(project_dir)
    except ProjectError:
        return ""
    if project.stack_file(stack).exists():
        return ""
    close = close_matches(stack, project.stacks())
    if not close:
        return ""
    shown = " or ".join(
        f"stack {name!r} ({_relative(project.stack_file(name), project.root)})" for name in close
    )
    return f"; did you mean {shown}?"


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
