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
        stem = f"{index:03d}-{tf_identifier(export.stack)}"
        plan = stem + PLAN_SUFFIX
        (directory / plan).write_text(finite.dumps(export.plan), encoding="utf-8")
        manifests = None
        if export.manifests:
            manifests = stem + MANIFEST_SUFFIX
            text = yaml.safe_dump_all(export.manifests, sort_keys=False)
            (directory / manifests).write_text(text, encoding="utf-8")
        files = _StackFiles(export, plan, manifests)
        by_file[plan] = files
        if manifests:
            by_file[manifests] = files
    return by_file


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


def judge(
    graphs: Sequence[ResourceGraph],
    binary: Path,
    *,
    skip_checks: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    warm: WarmCheckov | None = None,
) -> list[dict[str, Any]]:
    """Export every stack, run checkov once over all of them (by `warm`, started while the programs
    ran, when given), and return one block per graph."""
    skips = dict(skip_checks or {})
    exports: list[Export] = []
    export_seconds: list[float] = []
    for graph in graphs:
        start = time.perf_counter()
        exports.append(export_graph(graph))
        export_seconds.append(time.perf_counter() - start)
    with tempfile.TemporaryDirectory(prefix="gpufleet-checkov-") as tmp:
        directory = Path(tmp)
        by_file = write_exports(exports, directory)
        # A stack with nothing checkov judges (no resource of a mapped type, no Kubernetes object) is not
        # given to it: its block is what checkov's empty report makes of it. With nothing at all, checkov
        # does not run (the warm one is stopped).
        files = [directory / name for name, f in by_file.items() if f.export.addresses or f.export.objects]
        if not files:
            if warm is not None:
                warm.close()
            run = CheckovRun()
        elif warm is not None:
            run = warm.run(files, skip_checks=sorted(skips), timeout=timeout)
        else:
            run = run_checkov(binary, files, skip_checks=sorted(skips), timeout=timeout)
    if run.error is not None:
        blocks = {e.stack: empty_block("error", run.error) for e in exports}
    else:
        blocks = blocks_from_run(by_file, run)
    out = []
    for export, seconds in zip(exports, export_seconds, strict=True):
        block = blocks[export.stack]
        block["exported"] = {
            "resources": len(export.addresses),
            "kubernetes_objects": len(export.objects),
            "unmapped_types": dict(sorted(export.unmapped.items())),
        }
        block["skipped_checks"] = dict(sorted(skips.items()))
        # checkov runs once for every stack: its time is the whole run's, the same in each block.
        block["seconds"] = {"export": round(seconds, 3), "checkov_all_stacks": round(run.seconds, 3)}
        if export.unmapped and block.get("note") is None:
            block["note"] = "not exported (no Terraform type known): " + ", ".join(sorted(export.unmapped))
        out.append(block)
    return out
