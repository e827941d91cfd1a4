"""checkov kept warm: run by checkov's own Python (never imported by gpufleet; `warm.py` starts it), it
imports checkov at once, then answers requests, one at a time, in the order of their numbers.

    <checkov's python> driver.py DIRECTORY
    DIRECTORY/request-0.json  {"argv": ["-f", "plan.json", "--framework", ...]}   written by gpufleet
    DIRECTORY/answer-0.json   {"argv": [...], "reports": [...], "exit_code": 1} or {"error": "..."}
    DIRECTORY/request-1.json  ...
    DIRECTORY/request-N.json  {"end": true}: exit 0

Each request is run in a child forked from the process as it stood after the import: checkov keeps
state between runs in one process (its runners are created once, at import, and keep the definitions
they parsed), so a second run in the same process would judge the first one's files. The fork starts
every run from the same state, as a fresh `checkov` command would, without paying the import again.

The answer repeats the arguments checkov ran with: gpufleet takes it only when they are the ones it
sent under that number and this process exited 0 (a request or answer left by anyone else is then
not taken).

Each report keeps the keys of checkov's JSON output that gpufleet reads (`check_type`, the checks'
`check_id`, `check_name`, `severity`, `guideline`, `resource`, `file_path`, `check_result`, the
summary's `checkov_version`): the findings are checkov's own, run with the arguments of the `checkov`
command, minus what nothing here reads (printing the whole report, the debug log checkov keeps in
memory for its platform upload, a fork per framework). It exits when its parent does.

It must import nothing from gpufleet: checkov's environment does not have it.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import logging
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, cast

# Run as a script, this file's own directory is first on the path: gpufleet's checkov modules
# (`config.py`, `run.py`, `aws.py`, ...) would then shadow any top-level module of those names that
# checkov or its dependencies import. Nothing here is imported from that directory.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or os.curdir).resolve() != _HERE]

# One framework at a time in this process: a fork per framework costs more than it saves on two
# frameworks, and its results come back pickled.
os.environ.setdefault("CHECKOV_PARALLELIZATION_TYPE", "none")
os.environ.setdefault("BC_SKIP_MAPPING", "TRUE")
os.environ.setdefault("CHECKOV_NO_OUTPUT_TIPS", "true")
os.environ.setdefault("LOG_LEVEL", "ERROR")
# Plans read with json.loads rather than pyyaml (run.JSON_PLANS): read when checkov is imported.
os.environ.setdefault("CHECKOV_MAX_IAC_FILE_SIZE", "0")

RECORD_KEYS = ("check_id", "check_name", "guideline", "resource", "file_path")
RESULT_KEYS = ("result", "suppress_comment")
OUTCOMES = ("passed_checks", "failed_checks", "skipped_checks")


def _quiet_logging() -> None:
    """checkov sets the root logger to DEBUG and copies every record into an in-memory stream (for
    its platform upload, which never happens here): formatting those records is a good part of a run."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, logging.StreamHandler) and isinstance(handler.stream, io.StringIO):
            root.removeHandler(handler)
    root.setLevel(logging.ERROR)


def _severity(record: Any) -> Any:
    severity = getattr(record, "severity", None)
    return getattr(severity, "name", severity)


def _record(record: Any) -> dict[str, Any]:
    out = {key: getattr(record, key, None) for key in RECORD_KEYS}
    out["severity"] = _severity(record)
    result = getattr(record, "check_result", None) or {}
    out["check_result"] = {
        key: str(getattr(result[key], "value", result[key]))
        for key in RESULT_KEYS
        if result.get(key) is not None
    }
    return out


def _report(report: Any, version: str) -> dict[str, Any]:
    return {
        "check_type": report.check_type,
        "results": {key: [_record(r) for r in getattr(report, key)] for key in OUTCOMES},
        "summary": {**report.get_summary(), "checkov_version": version},
    }


# The checkov release whose reference lookup `_indexed_lookup` repeats (requirements-checkov.txt pins it);
# any other release runs as it is.
INDEXED_LOOKUP_VERSION = "3.3.30"
_PREFIXES: dict[int, tuple[Any, int, dict[str, Any]]] = {}


def _by_bracket_prefix(by_name: Any) -> dict[str, Any]:
    """For each `p` such that some name of `by_name` starts with `p + "["`, the vertices of the first
    such name in `by_name`'s order: what checkov's fallback scan finds, without the scan. Rebuilt when
    the map grows; the map itself is kept, so its id names it for as long as the entry lives."""
    entry = _PREFIXES.get(id(by_name))
    if entry is not None and entry[0] is by_name and entry[1] == len(by_name):
        return entry[2]
    index: dict[str, Any] = {}
    for key, vertices in by_name.items():
        at = key.find("[")
        while at != -1:
            index.setdefault(key[:at], vertices)
            at = key.find("[", at + 1)
    _PREFIXES[id(by_name)] = (by_name, len(by_name), index)
    return index


def _indexed_lookup() -> bool:
    """Give checkov 3.3.30's `TerraformLocalGraph._get_possible_vertices` an index for its last step.

    checkov resolves each reference of a plan (`aws_s3_bucket.data.id`) by trying the whole reference as
    a resource name first; when no resource is named so, it scans every name of that block type for one
    starting with `<reference>[` (a `count` index). A plan references one attribute per edge, so the
    scan runs once per reference over every resource: quadratic (60 s of CPU at 10,000 resources, most of
    its run). The index answers exactly what the scan answers: the vertices of the first name, in the
    map's order, that starts with `<reference>[`. The first two steps are checkov's own, unchanged."""
    from checkov.version import version

    if version != INDEXED_LOOKUP_VERSION:
        return False
    from checkov.terraform.graph_builder import local_graph

    graph = local_graph.TerraformLocalGraph
    left_quoted, left = local_graph.LEFT_BRACKET_WITH_QUOTATION, local_graph.LEFT_BRACKET
    right_quoted, right = local_graph.RIGHT_BRACKET_WITH_QUOTATION, local_graph.RIGHT_BRACKET

    def get_possible_vertices(self: Any, module: Any, block_type: str, name: str) -> list[int]:
        by_name = self.vertices_by_module_dependency_by_name.get(module, {}).get(block_type, {})
        if not by_name:  # checkov's scan of an empty map finds nothing; no index kept for a temporary {}
            return []
        found: list[int] = by_name.get(name, [])
        if found:
            return found
        found = by_name.get(name.replace(left_quoted, left).replace(right_quoted, right), [])
        if found:
            return found
        return _by_bracket_prefix(by_name).get(name, [])  # type: ignore[no-any-return]

    graph._get_possible_vertices = get_possible_vertices
    _indexed_entity_context()
    _indexed_plan_configuration()
    return True


_CONTEXTS: dict[tuple[int, str], tuple[Any, int, dict[tuple[Any, Any], Any] | None]] = {}


def _addresses_by_name(
    resources: Any, resource_type: str, address_key: str
) -> dict[tuple[Any, Any], Any] | None:
    """(name, address) -> the last resource definition of `resource_type` in `resources` that is named
    so and carries that address: what checkov's scan in `get_entity_context` returns. None when some
    resource of the type has another shape than `{type: {name: {...}}}` (then checkov's own scan runs)."""
    found: dict[tuple[Any, Any], Any] = {}
    for resource in resources:
        by_name = resource.get(resource_type)
        if not by_name:
            continue
        if not isinstance(by_name, dict) or address_key in by_name:
            return None
        for name, definition in by_name.items():
            if not isinstance(definition, dict):
                return None
            if definition:
                key = (name, definition.get(address_key))
                if key in found:  # checkov would build a context for each: let it
                    return None
                found[key] = definition
    return found


def _indexed_entity_context() -> None:
    """Give checkov 3.3.30's `plan_utils.get_entity_context` an index. For each resource of a plan it
    scans every resource of the file for the first with its name and address, so
    building the contexts is quadratic in the plan. The index holds, per resource type, the definition
    that scan returns; a type with any other shape, or a call the index does not cover, runs checkov's
    own function."""
    from checkov.terraform import plan_utils

    original: Any = plan_utils.get_entity_context
    address_key = plan_utils.TF_PLAN_RESOURCE_ADDRESS

    def get_entity_context(  # noqa: PLR0917 - checkov's own signature
        definitions: Any,
        definitions_raw: Any,
        definition_path: list[str],
        full_file_path: str,
        entity_id: str,
        block_type: str = "resource",
    ) -> dict[str, Any]:
        resources = (
            definitions.get(full_file_path, {}).get(block_type) if full_file_path in definitions else None
        )
        if not isinstance(resources, list) or len(definition_path) < 2:
            return cast(
                "dict[str, Any]",
                original(
                    definitions, definitions_raw, definition_path, full_file_path, entity_id, block_type
                ),
            )
        key = (id(resources), definition_path[0])
        entry = _CONTEXTS.get(key)
        if entry is None or entry[0] is not resources or entry[1] != len(resources):
            entry = (
                resources,
                len(resources),
                _addresses_by_name(resources, definition_path[0], address_key),
            )
            _CONTEXTS[key] = entry
        index = entry[2]
        if index is None:
            return cast(
                "dict[str, Any]",
                original(
                    definitions, definitions_raw, definition_path, full_file_path, entity_id, block_type
                ),
            )
        definition = index.get((definition_path[1], entity_id))
        if definition is None:
            return {}
        context: dict[str, Any] = plan_utils.build_entity_context(definition)
        context["code_lines"] = definitions_raw[full_file_path][context["start_line"] : context["end_line"]]
        return context

    plan_utils.get_entity_context = get_entity_context


def _first_configuration(resources: Any) -> dict[tuple[Any, Any], Any] | None:
    """(type, name) -> the first configuration entry with them, in the list's order: what checkov's
    scan finds. None when an entry is not a mapping with both keys (checkov's scan then runs, and
    fails or not where it would)."""
    first: dict[tuple[Any, Any], Any] = {}
    for entry in resources:
        if not isinstance(entry, dict) or "type" not in entry or "name" not in entry:
            return None
        try:
            first.setdefault((entry["type"], entry["name"]), entry)
        except TypeError:  # an unhashable type or name
            return None
    return first


def _indexed_plan_configuration() -> None:
    """Give checkov 3.3.30's `plan_parser.parse_tf_plan` an index. For each planned resource it scans
    the plan's `configuration` for the first entry of its type and name: quadratic in the plan. This is
    that function with the scan replaced by a lookup of the same entry; a configuration of any other
    shape runs checkov's own function. `plan_utils` imported the function by name, so both are set."""
    from checkov.terraform import plan_parser, plan_utils

    original: Any = plan_parser.parse_tf_plan

    def parse_tf_plan(tf_plan_file: str, out_parsing_errors: dict[str, str]) -> tuple[Any, Any]:
        template, template_lines = plan_parser.parse(tf_plan_file, out_parsing_errors)
        if not template:
            return None, None
        configured = template.get("configuration", {}).get("root_module", {}).get("resources", [])
        first = _first_configuration(configured)
        if first is None:
            return cast("tuple[Any, Any]", original(tf_plan_file, out_parsing_errors))
        tf_definition: dict[str, Any] = {"provider": [], "resource": [], "data": []}
        tf_definition["provider"] = plan_parser._get_providers(template=template)
        resource_changes = plan_parser._get_resource_changes(template=template)
        for resource in template.get("planned_values", {}).get("root_module", {}).get("resources", []):
            conf = first.get((resource["type"], resource["name"]))
            resource_block, block_type, prepared = plan_parser._prepare_resource_block(
                resource=resource, conf=conf, resource_changes=resource_changes
            )
            if prepared is True:
                if block_type == "resource":
                    tf_definition["resource"].append(resource_block)
                elif block_type == "data":
                    tf_definition["data"].append(resource_block)
        child_modules = template.get("planned_values", {}).get("root_module", {}).get("child_modules", [])
        root_module_conf = template.get("configuration", {}).get("root_module", {})
        module_blocks = plan_parser._find_child_modules(
            child_modules=child_modules, resource_changes=resource_changes, root_module_conf=root_module_conf
        )
        for block_type, resource_blocks in module_blocks.items():
            tf_definition[block_type].extend(resource_blocks)
        return tf_definition, template_lines

    plan_parser.parse_tf_plan = parse_tf_plan
    plan_utils.parse_tf_plan = parse_tf_plan


POLL_SECONDS = 0.02
MAX_WAIT_SECONDS = 6 * 3600.0
MAX_REQUESTS = 4096


def request_name(index: int) -> str:
    return f"request-{index}.json"


def answer_name(index: int) -> str:
    return f"answer-{index}.json"


def _wait_for(request: Path, parent: int) -> bool:
    """True once `request` is there; False when the parent is gone or it never comes."""
    deadline = time.monotonic() + MAX_WAIT_SECONDS
    while not request.exists():
        if os.getppid() != parent or time.monotonic() > deadline:
            return False
        time.sleep(POLL_SECONDS)
    return True


def _answer(request: Path, version: str) -> dict[str, Any]:
    from checkov.main import Checkov

    try:
        argv = [str(a) for a in json.loads(request.read_text(encoding="utf-8"))["argv"]]
        checkov = Checkov(argv=argv)
        _quiet_logging()
        # The reports are taken from the object: checkov's own printing is what is skipped.
        checkov.print_results = lambda *args, **kwargs: 0  # type: ignore[method-assign]
        with contextlib.redirect_stdout(sys.stderr):
            exit_code = checkov.run()
        reports = [_report(r, version) for r in checkov.scan_reports]
        return {"argv": argv, "reports": reports, "exit_code": exit_code}
    except Exception as exc:  # every failure is an answer (gpufleet then runs the command), never a hang
        return {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-2000:]}
    except SystemExit as exc:  # checkov exits on arguments it refuses
        return {"error": f"checkov exited with status {exc.code}"}


def _is_end(request: Path) -> bool:
    try:
        data = json.loads(request.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("end") is True


def _write(path: Path, answer: dict[str, Any]) -> None:
    staged = path.with_name(path.name + ".tmp")
    staged.write_text(json.dumps(answer, default=str), encoding="utf-8")
    staged.replace(path)


def _answer_in_child(directory: Path, index: int, version: str) -> None:
    """Run request `index` in a child forked from the state after the import, and wait for it."""
    child = os.fork()
    if child == 0:
        status = 1
        try:
            _write(directory / answer_name(index), _answer(directory / request_name(index), version))
            status = 0
        finally:
            os._exit(status)
    os.waitpid(child, 0)


def main() -> int:
    directory = Path(sys.argv[1])
    parent = os.getppid()
    # The cyclic collector is off for the whole life of this process and its children: during the
    # import it walks every object created so far again and again (about half the import's CPU), and
    # each child runs one request and exits. What the import created is then frozen, so that no
    # collector (nor a copy-on-write page fault in a child) touches it again.
    gc.disable()
    import checkov.main  # noqa: F401 - the start-up this process exists to do early
    from checkov.version import version

    _indexed_lookup()
    gc.freeze()
    _quiet_logging()
    for index in range(MAX_REQUESTS):
        request = directory / request_name(index)
        if not _wait_for(request, parent) or _is_end(request):
            return 0
        _answer_in_child(directory, index, version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
