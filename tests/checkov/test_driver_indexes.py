"""The warm driver's indexes of checkov 3.3.30's quadratic searches (reference lookup, entity
contexts, plan configuration) and checkov's JSON path for plans: each gives checkov's own answer, so
the findings are the command's."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufleet.checkov import warm
from gpufleet.checkov.merge import judge
from gpufleet.graph import Resource, ResourceGraph
from tests.checkov.fixtures import fixture_graph


def _driver_module() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpufleet_checkov_driver", warm.DRIVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scan(by_name: dict[str, list[int]], name: str) -> list[int]:
    """checkov 3.3.30's fallback in `TerraformLocalGraph._get_possible_vertices`, as it is written."""
    indexed_prefix = f"{name}["
    for key, indices in by_name.items():
        if key.startswith(indexed_prefix):
            return indices
    return []


def test_the_bracket_index_answers_what_checkovs_scan_answers() -> None:
    driver = _driver_module()
    by_name: dict[str, list[int]] = {
        "aws_s3_bucket.data": [0],
        "aws_s3_bucket.logs[0]": [1],
        "aws_s3_bucket.logs[1]": [2],
        'aws_s3_bucket.each["a"]': [3],
        "aws_s3_bucket.each[0][1]": [4],
        "aws_s3_bucket.grid[0][1]": [],
        "aws_s3_bucket.grid[2]": [5],
        "aws_s3_bucket.odd[x].y[1]": [6],
    }
    names = [
        *by_name,
        "aws_s3_bucket.data.id",
        "aws_s3_bucket.logs",
        "aws_s3_bucket.each",
        "aws_s3_bucket.each[0]",
        "aws_s3_bucket.grid",
        "aws_s3_bucket.odd",
        "aws_s3_bucket.odd[x].y",
        "aws_s3_bucket",
        "",
        "missing",
    ]
    index = driver._by_bracket_prefix(by_name)
    for name in names:
        assert (
            index.get(name, []) is _scan(by_name, name) or index.get(name, []) == _scan(by_name, name) == []
        )
    # A name added later (checkov adds vertices while it builds the graph) is seen.
    by_name["aws_s3_bucket.late[0]"] = [7]
    assert driver._by_bracket_prefix(by_name).get("aws_s3_bucket.late") == [7]


def test_another_checkov_release_runs_without_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "checkov"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "version.py").write_text("version = '0.0.test'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for loaded in [m for m in sys.modules if m == "checkov" or m.startswith("checkov.")]:
        monkeypatch.delitem(sys.modules, loaded)
    assert _driver_module()._indexed_lookup() is False


def _referencing_graph(buckets: int) -> ResourceGraph:
    """Buckets, every other one with a public access block that names it by id (a reference the export
    writes as `aws_s3_bucket.<name>.id`, the form checkov first looks up by the whole name)."""
    from tests.checkov.fixtures import resource

    resources: list[Resource] = []
    for n in range(buckets):
        bucket = resource("aws:s3/bucket:Bucket", f"b{n}", {"tags": {"n": str(n)}}, id=f"bucket-{n}")
        resources.append(bucket)
        if n % 2 == 0:
            block = {"bucket": f"bucket-{n}", "blockPublicAcls": True, "blockPublicPolicy": True}
            resources.append(
                resource(
                    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
                    f"b{n}-pab",
                    {**block, "ignorePublicAcls": True, "restrictPublicBuckets": True},
                    deps={"bucket": [bucket.urn]},
                )
            )
    return ResourceGraph(project="p", stack="dev", resources=resources, config={"aws:region": "us-east-1"})


@pytest.mark.checkov
def test_the_indexed_lookup_builds_the_same_edges_as_checkov(checkov_bin: Path) -> None:
    graph = _referencing_graph(40)
    (command_block,) = judge([graph], checkov_bin, skip_checks={})
    (warm_block,) = judge([_referencing_graph(40)], checkov_bin, skip_checks={}, warm=warm.start(checkov_bin))
    assert warm_block["status"] == command_block["status"] == "ran"

    def findings(block: dict[str, Any]) -> list[str]:
        return sorted(json.dumps(f, sort_keys=True) for f in block["findings"])

    assert findings(warm_block) == findings(command_block)
    assert (warm_block["passed"], warm_block["failed"]) == (command_block["passed"], command_block["failed"])
    # The graph check that needs the reference resolved: a bucket without a block fails it, one with passes.
    unblocked = {f["resource"] for f in warm_block["findings"] if f["check_id"] == "CKV2_AWS_6"}
    assert unblocked == {f"aws_s3_bucket.b{n}" for n in range(1, 40, 2)}


_CONTEXTS_SCRIPT = """
import json, sys, importlib.util
spec = importlib.util.spec_from_file_location("driver", sys.argv[1])
driver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(driver)
import checkov.main
from checkov.terraform import plan_utils
definitions, raw = plan_utils.create_definitions(root_folder=None, files=sys.argv[2:])
scanned = plan_utils.build_definitions_context(definitions, raw)
assert driver._indexed_lookup(), "the pinned release takes the indexes"
indexed = plan_utils.build_definitions_context(definitions, raw)
print(json.dumps([scanned, indexed], sort_keys=True, default=str))
"""


def _scanned_and_indexed(
    checkov_bin: Path, tmp_path: Path, script: str, env: dict[str, str] | None = None
) -> tuple[list[Any], list[str], Any, Any]:
    """The exports of the flawed fixture and a referencing graph, their plans' paths, and what `script`
    (run by checkov's Python with the driver's path and the plans) prints: checkov's own answer, then
    the indexed one."""
    import subprocess

    from gpufleet.checkov.export import export_graph
    from gpufleet.checkov.merge import write_export

    exports = [export_graph(graph) for graph in (fixture_graph(), _referencing_graph(12))]
    plans = [
        str(tmp_path / write_export(index, export, tmp_path).plan) for index, export in enumerate(exports)
    ]
    python = warm.checkov_python(checkov_bin)
    assert python is not None
    done = subprocess.run(
        [str(python), "-c", script, str(warm.DRIVER), *plans],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    scanned, indexed = json.loads(done.stdout.strip().splitlines()[-1])
    return exports, plans, scanned, indexed


@pytest.mark.checkov
@pytest.mark.parametrize("max_size", ["0", "50000000"], ids=["json-plans", "yaml-plans"])
def test_the_indexed_entity_contexts_are_checkovs_own(
    checkov_bin: Path, tmp_path: Path, max_size: str
) -> None:
    # Both of checkov's ways of reading a plan: json.loads (gpufleet's, run.JSON_PLANS) and pyyaml
    # (an environment that sets CHECKOV_MAX_IAC_FILE_SIZE above the plan's size).
    exports, plans, scanned, indexed = _scanned_and_indexed(
        checkov_bin, tmp_path, _CONTEXTS_SCRIPT, {"CHECKOV_MAX_IAC_FILE_SIZE": max_size}
    )
    assert indexed == scanned
    # Every exported resource has its context, found the indexed way: with its lines in the plan when
    # pyyaml read it, line 0 on checkov's JSON path.
    for plan, export in zip(plans, exports, strict=True):
        contexts = next(c for path, c in indexed.items() if path.endswith(Path(plan).name))
        assert set(export.addresses) <= set(contexts)
        assert all(contexts[address]["address"] == address for address in export.addresses)
        lines = {contexts[address]["start_line"] > 0 for address in export.addresses}
        assert lines == ({False} if max_size == "0" else {True})


@pytest.mark.checkov
@pytest.mark.parametrize(
    "graph", [fixture_graph, lambda: _referencing_graph(20)], ids=["flaws", "references"]
)
def test_plans_read_as_json_give_the_findings_pyyaml_gives(
    checkov_bin: Path, monkeypatch: pytest.MonkeyPatch, graph: Any
) -> None:
    # checkov reads a plan with json.loads when it is larger than CHECKOV_MAX_IAC_FILE_SIZE (run.JSON_PLANS
    # sets 0: every plan); with the default 50 MB it reads it with pyyaml, for line numbers.
    monkeypatch.setenv("CHECKOV_MAX_IAC_FILE_SIZE", "50000000")
    (yaml_block,) = judge([graph()], checkov_bin, skip_checks={})
    monkeypatch.delenv("CHECKOV_MAX_IAC_FILE_SIZE")
    (json_block,) = judge([graph()], checkov_bin, skip_checks={})

    def verdicts(block: dict[str, Any]) -> tuple[Any, ...]:
        findings = sorted(json.dumps(f, sort_keys=True) for f in block["findings"])
        return block["status"], block["passed"], block["failed"], findings

    assert verdicts(json_block) == verdicts(yaml_block)
    assert json_block["failed"] > 0 and json_block["passed"] > 0


def test_checkovs_environment_reads_plans_as_json_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpufleet.checkov.run import checkov_env

    monkeypatch.delenv("CHECKOV_MAX_IAC_FILE_SIZE", raising=False)
    env = checkov_env()
    assert (env["CHECKOV_MAX_IAC_FILE_SIZE"], env["BC_SKIP_MAPPING"], env["LOG_LEVEL"]) == (
        "0",
        "TRUE",
        "ERROR",
    )
    monkeypatch.setenv("CHECKOV_MAX_IAC_FILE_SIZE", "50000000")
    assert checkov_env()["CHECKOV_MAX_IAC_FILE_SIZE"] == "50000000"


_PLAN_SCRIPT = """
import json, sys, importlib.util
spec = importlib.util.spec_from_file_location("driver", sys.argv[1])
driver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(driver)
import checkov.main
from checkov.terraform import plan_parser, plan_utils
scanned = [plan_parser.parse_tf_plan(path, {}) for path in sys.argv[2:]]
assert driver._indexed_lookup(), "the pinned release takes the indexes"
assert plan_utils.parse_tf_plan is plan_parser.parse_tf_plan
indexed = [plan_utils.parse_tf_plan(path, {}) for path in sys.argv[2:]]
print(json.dumps([scanned, indexed], sort_keys=True, default=str))
"""


@pytest.mark.checkov
def test_the_indexed_plan_configuration_gives_checkovs_own_definitions(
    checkov_bin: Path, tmp_path: Path
) -> None:
    # checkov 3.3.30 finds each planned resource's configuration by a scan of every entry (quadratic);
    # the driver's index must find the very same entry for each.
    exports, _plans, scanned, indexed = _scanned_and_indexed(checkov_bin, tmp_path, _PLAN_SCRIPT)
    assert all(export.plan["configuration"]["root_module"]["resources"] for export in exports)
    assert indexed == scanned
    assert all(definitions["resource"] for definitions, _lines in indexed)
