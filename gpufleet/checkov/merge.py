"""checkov's findings mapped back to Pulumi URNs, one `checkov` block per stack.

The block keeps the output contract's keys (`passed`, `failed`, `findings`) and adds: `status` (`ran`,
`disabled`, `not-found`, `error`), `note`, `version`, `exported` (how much of the graph checkov saw),
`skipped_checks` (from the checkov config, with reasons), `skipped` and `skipped_on_resources` (checks
that a resource skips itself, such as a Kubernetes object's `checkov.io/skip1` annotation, each with
its reason) and `seconds` (export, checkov's single run over every stack, and the policy pack's
judging of this stack).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

import yaml

from gpufleet import finite
from gpufleet.checkov.export import Export, Origin, export_graph
from gpufleet.checkov.naming import tf_identifier
from gpufleet.checkov.run import DEFAULT_TIMEOUT, CheckovRun, run_checkov
from gpufleet.checkov.warm import WarmCheckov
from gpufleet.graph import ResourceGraph

PLAN_SUFFIX = ".tfplan.json"
PASSED_KEY = "_passed"
MANIFEST_SUFFIX = ".k8s.yaml"


def empty_block(status: str, note: str | None = None) -> dict[str, Any]:
    return {
        "passed": 0,
        "failed": 0,
        "skipped": 0,
        "findings": [],
        "skipped_on_resources": [],
        "status": status,
        "note": note,
    }


@dataclass
class _StackFiles:
    export: Export
    plan: str
    manifests: str | None


def write_exports(exports: Sequence[Export], directory: Path) -> dict[str, _StackFiles]:
    """Each stack's plan (and manifests, if any) under a file name of its own: file base name -> files."""
    by_file: dict[str, _StackFiles] = {}
    for index, export in enumerate(exports):
        files = write_export(index, export, directory)
        by_file[files.plan] = files
        if files.manifests:
            by_file[files.manifests] = files
    return by_file


def write_export(index: int, export: Export, directory: Path) -> _StackFiles:
    """One stack's plan (and manifests, if any), named after its place in the check and its stack."""
    stem = f"{index:03d}-{tf_identifier(export.stack)}"
    plan = stem + PLAN_SUFFIX
    (directory / plan).write_text(finite.dumps(export.plan), encoding="utf-8")
    manifests = None
    if export.manifests:
        manifests = stem + MANIFEST_SUFFIX
        text = yaml.safe_dump_all(export.manifests, sort_keys=False)
        (directory / manifests).write_text(text, encoding="utf-8")
    return _StackFiles(export, plan, manifests)


def _judged(files: _StackFiles) -> list[str]:
    """The file names of a stack to give checkov: none when nothing in it is of a type checkov judges."""
    if not (files.export.addresses or files.export.objects):
        return []
    return [files.plan, *([files.manifests] if files.manifests else [])]


def _origin(files: _StackFiles, framework: str, resource: str) -> Origin | None:
    if framework != "kubernetes":
        return files.export.addresses.get(resource)
    exact = files.export.objects.get(resource)
    if exact is not None:
        return exact
    # An object checkov derives from another (a Deployment's pod template is judged as
    # `Pod.<namespace>.<name>.<labels>`): the object of that namespace and name.
    derived = resource.partition(".")[2]
    matches = [
        (len(key), origin)
        for key, origin in files.export.objects.items()
        if derived.startswith(key.partition(".")[2] + ".")
    ]
    return max(matches, key=lambda m: m[0])[1] if matches else None


def _finding(check: Mapping[str, Any], framework: str, origin: Origin | None) -> dict[str, Any]:
    return {
        "check_id": check.get("check_id"),
        "check_name": check.get("check_name"),
        "severity": check.get("severity"),
        "guideline": check.get("guideline"),
        "framework": framework,
        "resource": check.get("resource"),
        "urn": origin.urn if origin else None,
        "name": origin.name if origin else None,
        "resource_type": origin.type if origin else None,
    }


def blocks_from_run(by_file: Mapping[str, _StackFiles], run: CheckovRun) -> dict[str, dict[str, Any]]:
    """Stack name -> its checkov block, from one run's reports."""
    blocks = {f.export.stack: empty_block("ran") for f in by_file.values()}
    for stack_files in by_file.values():
        block = blocks[stack_files.export.stack]
        block["version"] = run.version
    for report in run.reports:
        framework = str(report.get("check_type") or "")
        results = report.get("results") or {}
        for outcome, key in (
            ("passed", "passed_checks"),
            ("failed", "failed_checks"),
            ("skipped", "skipped_checks"),
        ):
            for check in results.get(key) or []:
                name = PurePath(str(check.get("file_path") or "")).name
                files = by_file.get(name)
                if files is None:
                    continue
                block = blocks[files.export.stack]
                block[outcome] += 1
                origin = _origin(files, framework, str(check.get("resource") or ""))
                if outcome == "failed":
                    block["findings"].append(_finding(check, framework, origin))
                elif outcome == "skipped":
                    # Skipped on the resource itself (an annotation or comment), never silently: with why.
                    result = check.get("check_result") or {}
                    reason = result.get("suppress_comment") if isinstance(result, Mapping) else None
                    skipped = _finding(check, framework, origin)
                    skipped["reason"] = str(reason or "no reason given")
                    block["skipped_on_resources"].append(skipped)
                elif origin is not None:
                    # Kept for --explain-overlap, then dropped (command.attach): not part of the report.
                    block.setdefault(PASSED_KEY, []).append((str(check.get("check_id")), origin.urn))
    for block in blocks.values():
        for key in ("findings", "skipped_on_resources"):
            block[key].sort(key=lambda f: (str(f["check_id"]), str(f["urn"] or f["resource"])))
    return blocks


class Judge:
    """checkov over every stack of one `check`: each stack's export is written when its program has
    run (`add`) and, with a warm checkov, handed to it at once, so that checkov judges one stack while
    the next program runs; `blocks` waits for the last answer and returns one block per graph.

    When any program ran without isolation (no namespaces: the note `engine.UNISOLATED_NOTE`), nothing
    of this directory nor of the warm checkov's is trusted: such a program runs as the user and could
    have rewritten an export, or left an answer and an end request for the warm checkov to stop on. At
    `blocks`, every export is written again, from the graphs kept in memory, into a new private
    directory, the warm checkov is stopped unheard, and the `checkov` command judges the fresh files.
    Under isolation the sandbox sees these directories read-only."""

    def __init__(
        self,
        binary: Path,
        *,
        skip_checks: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        warm: WarmCheckov | None = None,
    ) -> None:
        self.binary = binary
        self.skips = dict(skip_checks or {})
        self.timeout = timeout
        self.warm = warm
        self._tmp = tempfile.TemporaryDirectory(prefix="gpufleet-checkov-")
        self.directory = Path(self._tmp.name)
        self.by_file: dict[str, _StackFiles] = {}
        self.added: dict[int, tuple[ResourceGraph, _StackFiles, float]] = {}
        """By the graph's id (the graph is kept, so its id is not reused): it, its files, its export time."""
        self.held: list[Path] = []
        """Files not handed to checkov yet (no warm checkov, or a stack that ran unisolated)."""

    def add(self, graph: ResourceGraph) -> None:
        """Export `graph` now, and hand it to the warm checkov when that is safe (above). An export
        that fails raises here and again at `blocks`, where the check reports it."""
        if id(graph) in self.added:
            return
        start = time.perf_counter()
        export = export_graph(graph)
        files = write_export(len(self.added), export, self.directory)
        self.added[id(graph)] = (graph, files, time.perf_counter() - start)
        names = _judged(files)
        for name in names:
            self.by_file[name] = files
        paths = [self.directory / name for name in names]
        if not paths:
            return
        if self.warm is not None and not _unisolated(graph):
            self.warm.submit(paths, skip_checks=sorted(self.skips))
        else:
            self.held.extend(paths)

    def blocks(self, graphs: Sequence[ResourceGraph]) -> list[dict[str, Any]]:
        """One block per graph (each added now if it was not), once checkov has judged them all."""
        try:
            for graph in graphs:
                self.add(graph)
            run = self._run()
            if run.error is not None:
                found = {id(files): empty_block("error", run.error) for _, files, _ in self.added.values()}
            else:
                by_stack = blocks_from_run(self.by_file, run)
                found = {
                    id(files): by_stack.get(files.export.stack) or _empty_ran(run)
                    for _, files, _ in self.added.values()
                }
            return [self._block(found, graph, run) for graph in graphs]
        finally:
            self.close()

    def _run(self) -> CheckovRun:
        if any(_unisolated(graph) for graph, _, _ in self.added.values()):
            return self._run_afresh()
        sent = self.warm is not None and bool(self.warm.sent)
        if not self.held and not sent:
            # Nothing checkov judges in any stack: checkov does not run (the warm one is stopped).
            if self.warm is not None:
                self.warm.close()
            return CheckovRun()
        if self.warm is not None:
            if self.held:
                self.warm.submit(self.held, skip_checks=sorted(self.skips))
            return self.warm.collect(self.timeout)
        return run_checkov(self.binary, self.held, skip_checks=sorted(self.skips), timeout=self.timeout)

    def _run_afresh(self) -> CheckovRun:
        """The `checkov` command over every export written again now, after the last program ran."""
        if self.warm is not None:
            self.warm.close()
        with tempfile.TemporaryDirectory(prefix="gpufleet-checkov-") as fresh:
            directory = Path(fresh)
            paths: list[Path] = []
            for index, (graph, _, _) in enumerate(self.added.values()):
                paths += [
                    directory / name for name in _judged(write_export(index, export_graph(graph), directory))
                ]
            if not paths:
                return CheckovRun()
            return run_checkov(self.binary, paths, skip_checks=sorted(self.skips), timeout=self.timeout)

    def _block(
        self, found: Mapping[int, dict[str, Any]], graph: ResourceGraph, run: CheckovRun
    ) -> dict[str, Any]:
        _, files, seconds = self.added[id(graph)]
        export = files.export
        block = found[id(files)]
        block["exported"] = {
            "resources": len(export.addresses),
            "kubernetes_objects": len(export.objects),
            "unmapped_types": dict(sorted(export.unmapped.items())),
        }
        block["skipped_checks"] = dict(sorted(self.skips.items()))
        # checkov runs once for every stack: its time is the whole run's, the same in each block.
        block["seconds"] = {"export": round(seconds, 3), "checkov_all_stacks": round(run.seconds, 3)}
        if export.unmapped and block.get("note") is None:
            block["note"] = "not exported (no Terraform type known): " + ", ".join(sorted(export.unmapped))
        return block

    def close(self) -> None:
        if self.warm is not None:
            self.warm.close()
        self._tmp.cleanup()


def _empty_ran(run: CheckovRun) -> dict[str, Any]:
    block = empty_block("ran")
    block["version"] = run.version
    return block


def _unisolated(graph: ResourceGraph) -> bool:
    from gpufleet.engine import UNISOLATED_NOTE

    return any(note.startswith(UNISOLATED_NOTE) for note in graph.notes)


def judge(
    graphs: Sequence[ResourceGraph],
    binary: Path,
    *,
    skip_checks: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    warm: WarmCheckov | None = None,
) -> list[dict[str, Any]]:
    """Export every stack, run checkov over them (by `warm`, started while the programs ran, when
    given), and return one block per graph."""
    return Judge(binary, skip_checks=skip_checks, timeout=timeout, warm=warm).blocks(graphs)
