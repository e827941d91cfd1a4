"""Rendering a run in the formats asked for, and writing the reports together."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from gpufleet.atomic import write_files_atomically
from gpufleet.evaluate import StackResult
from gpufleet.policies.rule import GfPolicy
from gpufleet.report.jsondoc import render_json
from gpufleet.report.junit import render_junit
from gpufleet.report.markdown import render_markdown
from gpufleet.report.model import FILE_NAMES, FORMATS
from gpufleet.report.sarif import render_sarif
from gpufleet.report.text import render_text


def render(
    results: Sequence[StackResult],
    fmt: str,
    policies: Iterable[GfPolicy] | None = None,
    *,
    repo_root: Path | None = None,
) -> str:
    if fmt == "json":
        return render_json(results)
    if fmt == "text":
        return render_text(results)
    if fmt == "sarif":
        return render_sarif(results, policies, repo_root=repo_root)
    if fmt == "junit":
        return render_junit(results, policies)
    if fmt == "markdown":
        return render_markdown(results, policies)
    raise ValueError(f"unknown report format {fmt!r}; allowed: {', '.join(FORMATS)}")


def parse_formats(value: str | Sequence[str]) -> list[str]:
    """`"sarif,junit"` or ["sarif", "junit"] -> validated, de-duplicated list; `md` means markdown."""
    items = value.split(",") if isinstance(value, str) else [p for v in value for p in v.split(",")]
    formats: list[str] = []
    aliases = {"md": "markdown", "xml": "junit", "txt": "text"}
    for raw in (i.strip().lower() for i in items):
        if not raw:
            continue
        item = aliases.get(raw, raw)
        if item not in FORMATS:
            raise ValueError(f"unknown report format {item!r}; allowed: {', '.join(FORMATS)}")
        if item not in formats:
            formats.append(item)
    return formats or ["text"]


def write_reports(
    results: Sequence[StackResult],
    formats: Sequence[str],
    output_dir: Path | None,
    *,
    policies: Iterable[GfPolicy] | None = None,
    repo_root: Path | None = None,
) -> dict[str, str]:
    """Render every format; with `output_dir`, also write each to its file.

    Every report is rendered and staged in a temporary file before the first one is renamed into place,
    so a failure while rendering or writing leaves the previous reports (if any) untouched.
    Returns format -> rendered text; without an output dir the caller prints the one it wants.
    """
    policy_list = list(policies) if policies is not None else None
    rendered = {fmt: render(results, fmt, policy_list, repo_root=repo_root) for fmt in parse_formats(formats)}
    if output_dir is not None:
        output_dir.mkdir(parents=True, exist_ok=True)
        write_files_atomically({output_dir / FILE_NAMES[fmt]: text for fmt, text in rendered.items()})
    return rendered
