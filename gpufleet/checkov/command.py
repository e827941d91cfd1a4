"""`gpufleet check`'s checkov part: decide whether checkov runs, start it before the programs run (its
start-up takes seconds: `warm.py`), give it each stack's export as soon as that stack's program has
run (`judge_for`: checkov judges it while the next program runs), and put each stack's block into its
result.

`--checkov` (explicit) makes a missing checkov bad input (exit 2, with how to install it); by default
checkov runs when it is found and its absence is a note in the report; `--no-checkov` turns it off.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpufleet.checkov.merge import PASSED_KEY, Judge, empty_block
from gpufleet.checkov.overlap import explain
from gpufleet.checkov.run import INSTALL_HINT, CheckovNotFound, find_checkov
from gpufleet.checkov.warm import WarmCheckov
from gpufleet.checkov.warm import start as start_warm
from gpufleet.graph import ResourceGraph
from gpufleet.redact import redactor

if TYPE_CHECKING:
    from gpufleet.evaluate import StackResult

NOT_FOUND_NOTE = f"checkov was not run: it is not installed here; {INSTALL_HINT}"
DISABLED_NOTE = "checkov was not run: --no-checkov"
DEFAULT_VAR = "GPUFLEET_CHECKOV_DEFAULT"
"""`off` turns checkov off unless `--checkov` (or `--checkov-bin`) asks for it: the test suite sets it."""


_STARTED: dict[Path, WarmCheckov | None] = {}
"""The checkov that `resolve` started for a binary, waiting for `attach` to give it the exports."""


class CheckovUnavailable(Exception):
    """`--checkov` was asked for and there is no checkov to run (bad input: exit 2)."""


def resolve(enabled: bool | None, explicit: Path | None, project_root: Path) -> Path | None:
    """The checkov to run, or None when it is off or (by default) absent."""
    if enabled is False or (enabled is None and explicit is None and os.environ.get(DEFAULT_VAR) == "off"):
        return None
    try:
        binary = find_checkov(explicit, project_root)
    except CheckovNotFound as exc:
        raise CheckovUnavailable(str(exc)) from None
    if binary is None and enabled:
        raise CheckovUnavailable(f"--checkov: checkov is not installed here; {INSTALL_HINT}")
    if binary is not None:
        # checkov starts now, so that its start-up runs beside the programs; `attach` hands it the
        # exports (or it is stopped when the process ends without one).
        earlier = _STARTED.pop(binary, None)
        if earlier is not None:  # a check of this same process that ended before its `attach`
            earlier.close()
        _STARTED[binary] = warm_up(binary)
    return binary


def warm_up(binary: Path | None) -> WarmCheckov | None:
    """Start checkov now (its import takes seconds) so that it is ready when the programs have run;
    None when checkov is off."""
    return start_warm(binary)


def judge_for(binary: Path | None, skips: dict[str, str]) -> Judge | None:
    """The judge that takes each stack's export as its program ends, with the checkov `resolve`
    started for `binary`; None when checkov is off."""
    if binary is None:
        return None
    return Judge(binary, skip_checks=skips, warm=_STARTED.pop(binary, None))


def attach(
    results: Sequence[StackResult],
    graphs: Sequence[ResourceGraph],
    binary: Path | None,
    *,
    enabled: bool | None,
    skips: dict[str, str],
    pack_seconds: Sequence[float],
    overlap_rules: Sequence[tuple[str, Sequence[str]]] | None = None,
    warm: WarmCheckov | None = None,
    judge: Judge | None = None,
) -> None:
    """Fill each result's `checkov` block: by `judge` (`judge_for`, which has taken the exports as the
    programs ended), else by a checkov run over every stack now (by `warm`, or the checkov `resolve`
    started for `binary` beside the programs, when there is one). With `overlap_rules` ((rule id, its
    checkov ids), for --explain-overlap) each block gets an `overlap` list."""
    if judge is None and warm is None and binary is not None:
        warm = _STARTED.pop(binary, None)
    if binary is None:
        off = enabled is False or os.environ.get(DEFAULT_VAR) == "off"
        note = (
            (DISABLED_NOTE if enabled is False else f"checkov was not run: {DEFAULT_VAR}=off")
            if off
            else None
        )
        blocks = [
            empty_block("disabled", note) if off else empty_block("not-found", NOT_FOUND_NOTE) for _ in graphs
        ]
    else:
        if judge is None:
            judge = Judge(binary, skip_checks=skips, warm=warm)
        try:
            blocks = judge.blocks(graphs)
        except Exception as exc:
            # Whatever breaks here must not hide the policy pack's verdicts.
            note = f"checkov was not run: the export for it failed ({type(exc).__name__}: {exc})"
            blocks = [empty_block("error", note) for _ in graphs]
        finally:
            judge.close()
    for result, found, graph, seconds in zip(results, blocks, graphs, pack_seconds, strict=True):
        # checkov judges an export without the secrets; what it says is shown redacted all the same.
        block = redactor(graph).value(found)
        block.setdefault("seconds", {})["policy_pack"] = round(seconds, 3)
        passed = block.pop(PASSED_KEY, [])
        if overlap_rules is not None and block.get("status") == "ran":
            block["overlap"] = explain(
                overlap_rules,
                [(v.rule_id, v.urn) for v in result.violations],
                [(f["check_id"], f["urn"]) for f in block["findings"] if f["urn"]],
                passed,
            )
        result.checkov = block
