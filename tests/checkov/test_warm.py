"""checkov started beside the programs (gpufleet/checkov/warm.py, driver.py): the same findings as the
`checkov` command, the command where the warm process cannot answer, and no run where nothing is
exported."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufleet.checkov import warm
from gpufleet.checkov.merge import Judge, judge
from gpufleet.graph import Resource, ResourceGraph
from tests.checkov.fixtures import fixture_graph, urn


def _script(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _outcomes(block: dict[str, Any]) -> dict[str, Any]:
    return {
        key: block[key]
        for key in (
            "status",
            "note",
            "version",
            "passed",
            "failed",
            "skipped",
            "findings",
            "skipped_on_resources",
        )
    }


@pytest.mark.checkov
def test_the_warm_checkov_finds_what_the_command_finds(checkov_bin: Path) -> None:
    assert warm.checkov_python(checkov_bin) is not None, "the .venv-checkov script names its Python"
    (command_block,) = judge([fixture_graph()], checkov_bin, skip_checks={"CKV_AWS_24": "fixture"})
    started = warm.start(checkov_bin)
    assert started is not None and started.process is not None
    (warm_block,) = judge([fixture_graph()], checkov_bin, skip_checks={"CKV_AWS_24": "fixture"}, warm=started)
    assert started.process is None and started.directory is None, "stopped and cleaned up after its run"
    assert _outcomes(warm_block) == _outcomes(command_block)
    assert warm_block["status"] == "ran" and warm_block["failed"] > 0
    assert "CKV_AWS_24" not in {f["check_id"] for f in warm_block["findings"]}


def test_a_checkov_that_is_not_a_python_script_runs_as_the_command(tmp_path: Path) -> None:
    fake = _script(tmp_path / "ck", "#!/bin/sh\necho '[]'\nexit 0\n")
    assert warm.checkov_python(fake) is None
    started = warm.start(fake)
    assert started is not None and started.process is None
    (block,) = judge([fixture_graph()], fake, warm=started)
    assert (block["status"], block["passed"], block["failed"]) == ("ran", 0, 0)


def test_a_driver_that_cannot_answer_falls_back_to_the_command(tmp_path: Path) -> None:
    # A Python with no checkov in it: the driver fails at its import and leaves no answer; the
    # command (a stand-in here) then runs and its verdict is the block's.
    fake = _script(tmp_path / "ck", f"#!{sys.executable}\nprint('[]')\n")
    started = warm.start(fake)
    assert started is not None and started.process is not None
    (block,) = judge([fixture_graph()], fake, warm=started)
    assert (block["status"], block["note"]) == (
        "ran",
        "not exported (no Terraform type known): aws:lambda/function:Function",
    )
    assert started.process is None


def test_nothing_exported_runs_no_checkov(tmp_path: Path) -> None:
    seen = tmp_path / "ran"
    fake = _script(tmp_path / "ck", f"#!/bin/sh\ntouch {seen}\necho '[]'\n")
    lambda_only = ResourceGraph(
        project="proj",
        stack="fixture",
        resources=[
            Resource(
                urn=urn("aws:lambda/function:Function", "fn"),
                type="aws:lambda/function:Function",
                name="fn",
                custom=True,
                inputs={"runtime": "python3.12"},
            )
        ],
    )
    (block,) = judge([lambda_only], fake)
    assert not seen.exists()
    assert (block["status"], block["passed"], block["failed"], block["findings"]) == ("ran", 0, 0, [])
    assert block["exported"]["resources"] == 0
    # A stack that has something is still given to checkov beside it.
    judge([lambda_only, fixture_graph()], fake)
    assert seen.exists()


def test_closing_stops_the_process_and_removes_its_directory(tmp_path: Path) -> None:
    fake = _script(tmp_path / "ck", f"#!{sys.executable}\nprint('[]')\n")
    started = warm.start(fake)
    assert started is not None and started.process is not None
    pid, directory = started.process.pid, started.directory
    started.close()
    assert started.process is None and directory is not None and not directory.exists()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)


def test_warm_is_off_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _script(tmp_path / "ck", f"#!{sys.executable}\nprint('[]')\n")
    monkeypatch.setenv(warm.DISABLE_VAR, "off")
    started = warm.start(fake)
    assert started is not None and started.process is None


def test_check_starts_checkov_when_it_resolves_it_and_hands_it_the_exports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpufleet.checkov import command
    from gpufleet.evaluate import StackResult

    monkeypatch.delenv(command.DEFAULT_VAR, raising=False)
    fake = _script(tmp_path / "ck", f"#!{sys.executable}\nprint('[]')\n")
    assert command.resolve(None, fake, tmp_path) == fake
    started = command._STARTED[fake]
    assert started is not None and started.process is not None
    result = StackResult(stack="fixture", project="proj", resources=14, cost=None)
    command.attach([result], [fixture_graph()], fake, enabled=None, skips={}, pack_seconds=[0.0])
    assert fake not in command._STARTED
    assert started.process is None, "the process resolve started is the one attach used and stopped"
    assert result.checkov is not None and result.checkov["status"] == "ran"


def test_an_answer_left_beside_a_dead_driver_is_not_taken(tmp_path: Path) -> None:
    # The driver ends without answering (no checkov in this Python, as if killed); an answer with no
    # findings is left in its directory. The command runs instead, and its failure is the verdict.
    fake = _script(tmp_path / "ck", f"#!{sys.executable}\nprint('not json')\n")
    started = warm.start(fake)
    assert started is not None and started.process is not None and started.directory is not None
    started.process.wait(timeout=60)
    (started.directory / warm.answer_name(0)).write_text('{"reports": []}', encoding="utf-8")
    (block,) = judge([fixture_graph()], fake, warm=started)
    assert block["status"] == "error"
    assert block["failed"] == 0 and block["findings"] == []


@pytest.mark.checkov
def test_a_request_written_by_another_process_does_not_decide_the_findings(
    checkov_bin: Path, tmp_path: Path
) -> None:
    # A request with arguments of its own (an empty directory: nothing found) reaches the driver first;
    # its answer is not the one to gpufleet's arguments, so checkov runs as the command.
    (command_block,) = judge([fixture_graph()], checkov_bin)
    started = warm.start(checkov_bin)
    assert started is not None and started.process is not None and started.directory is not None
    empty = tmp_path / "empty"
    empty.mkdir()
    forged = {"argv": ["-d", str(empty), "--framework", "terraform_plan", "-o", "json"]}
    (started.directory / warm.request_name(0)).write_text(json.dumps(forged), encoding="utf-8")
    (started.directory / warm.request_name(1)).write_text('{"end": true}', encoding="utf-8")
    assert started.process.wait(timeout=300) == 0
    (warm_block,) = judge([fixture_graph()], checkov_bin, warm=started)
    assert _outcomes(warm_block) == _outcomes(command_block)
    assert warm_block["status"] == "ran" and warm_block["failed"] > 0


def _second_stack() -> ResourceGraph:
    """The fixture graph under another stack name, with only its open security group."""
    graph = fixture_graph()
    sg = next(r for r in graph.resources if r.type == "aws:ec2/securityGroup:SecurityGroup")
    return ResourceGraph(project="proj", stack="second", resources=[sg])


@pytest.mark.checkov
def test_each_stack_handed_over_as_it_ends_is_judged_on_its_own_files(checkov_bin: Path) -> None:
    # Two requests to one warm checkov, one per stack: each is judged in a child forked from the
    # state after the import, so the second is not answered with the first one's definitions (which a
    # second run in one checkov process would be).
    first, second = fixture_graph(), _second_stack()
    command_blocks = judge([first, second], checkov_bin)
    started = warm.start(checkov_bin)
    assert started is not None and started.process is not None
    streamed = Judge(checkov_bin, warm=started)
    streamed.add(first)
    assert len(started.sent) == 1, "handed to checkov when its program ended"
    streamed.add(second)
    assert len(started.sent) == 2
    warm_blocks = streamed.blocks([first, second])
    assert [_outcomes(b) for b in warm_blocks] == [_outcomes(b) for b in command_blocks]
    assert warm_blocks[1]["failed"] > 0
    assert warm_blocks[1]["failed"] < warm_blocks[0]["failed"]
    assert {f["urn"] for f in warm_blocks[1]["findings"]} == {second.resources[0].urn}


def test_a_stack_that_ran_unisolated_is_handed_over_only_when_every_program_has_run(
    tmp_path: Path,
) -> None:
    from gpufleet.engine import UNISOLATED_NOTE

    fake = _script(tmp_path / "ck", f"#!{sys.executable}\nprint('[]')\n")
    started = warm.start(fake)
    assert started is not None and started.process is not None
    graph = fixture_graph()
    graph.notes.append(f"{UNISOLATED_NOTE}: user namespaces are disabled")
    held = Judge(fake, warm=started)
    held.add(graph)
    assert started.sent == [], "a later program could reach its files: not handed over yet"
    assert [p.name for p in held.held] == ["000-fixture.tfplan.json", "000-fixture.k8s.yaml"]
    (block,) = held.blocks([graph])
    assert block["status"] == "ran"
    # Judged afresh by the command: the warm checkov is stopped without being asked anything.
    assert started.sent == [] and started.process is None


def test_after_an_unisolated_program_checkov_judges_exports_written_again_not_the_files_left(
    tmp_path: Path,
) -> None:
    from gpufleet.engine import UNISOLATED_NOTE

    seen = tmp_path / "seen.json"
    # A checkov that records what it was given and what those files held, and finds nothing.
    body = (
        "import json, sys\n"
        "paths = [a for i, a in enumerate(sys.argv) if i and sys.argv[i - 1] == '-f']\n"
        f"json.dump({{p: open(p).read() for p in paths}}, open({str(seen)!r}, 'w'))\n"
        "print('[]')\n"
    )
    fake = _script(tmp_path / "ck", f"#!{sys.executable}\n{body}")
    started = warm.start(fake)
    assert started is not None and started.directory is not None
    first, later = fixture_graph(), fixture_graph()
    later.notes.append(f"{UNISOLATED_NOTE}: user namespaces are disabled")
    judge_ = Judge(fake, warm=started)
    judge_.add(first)
    assert len(started.sent) == 1
    # What a later program running as the user could do: rewrite the export, and leave the warm
    # checkov an answer with no findings and an end request.
    (judge_.directory / "000-fixture.tfplan.json").write_text('{"forged": true}', encoding="utf-8")
    (started.directory / warm.answer_name(0)).write_text(
        json.dumps({"argv": [], "reports": [], "exit_code": 0}), encoding="utf-8"
    )
    (started.directory / warm.request_name(1)).write_text('{"end": true}', encoding="utf-8")
    judge_.add(later)
    blocks = judge_.blocks([first, later])
    assert [b["status"] for b in blocks] == ["ran", "ran"]
    given = json.loads(seen.read_text(encoding="utf-8"))
    assert sorted(Path(p).name for p in given) == [
        "000-fixture.k8s.yaml",
        "000-fixture.tfplan.json",
        "001-fixture.k8s.yaml",
        "001-fixture.tfplan.json",
    ]
    assert all(Path(p).parent != judge_.directory for p in given), "a new directory, not the one left"
    plan = next(text for p, text in given.items() if p.endswith("000-fixture.tfplan.json"))
    assert "forged" not in plan and '"planned_values"' in plan
    assert started.process is None


def test_the_driver_answers_each_numbered_request_and_stops_at_the_end_request(tmp_path: Path) -> None:
    # A stand-in checkov module (the driver imports checkov.main and checkov.version, and reads the
    # reports off the Checkov object): the driver's protocol alone, without checkov.
    package = tmp_path / "site" / "checkov"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "version.py").write_text("version = '0.0.test'\n", encoding="utf-8")
    (package / "main.py").write_text(
        "class Checkov:\n"
        "    def __init__(self, argv):\n"
        "        self.argv = argv\n"
        "        self.scan_reports = []\n"
        "    def run(self):\n"
        "        return 0\n",
        encoding="utf-8",
    )
    directory = tmp_path / "warm"
    directory.mkdir()
    for index, argv in enumerate((["-f", "a.json"], ["-f", "b.json"])):
        (directory / warm.request_name(index)).write_text(json.dumps({"argv": argv}), encoding="utf-8")
    (directory / warm.request_name(2)).write_text('{"end": true}', encoding="utf-8")
    import subprocess

    done = subprocess.run(
        [sys.executable, str(warm.DRIVER), str(directory)],
        env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads((directory / warm.answer_name(i)).read_text(encoding="utf-8")) for i in (0, 1)]
    assert [a["argv"] for a in answers] == [["-f", "a.json"], ["-f", "b.json"]]
    assert all(a["reports"] == [] and a["exit_code"] == 0 for a in answers)
    assert not (directory / warm.answer_name(2)).exists()


def test_the_driver_does_not_put_gpufleets_checkov_modules_on_checkovs_path(tmp_path: Path) -> None:
    # A `config` module of checkov's environment must not be shadowed by gpufleet/checkov/config.py.
    site = tmp_path / "site"
    (site / "checkov").mkdir(parents=True)
    (site / "config.py").write_text("WHOSE = 'site'\n", encoding="utf-8")
    (site / "checkov" / "__init__.py").write_text("", encoding="utf-8")
    (site / "checkov" / "version.py").write_text("version = '0.0.test'\n", encoding="utf-8")
    (site / "checkov" / "main.py").write_text(
        "import config\n"
        "class Checkov:\n"
        "    def __init__(self, argv):\n"
        "        self.scan_reports = []\n"
        "        self.whose = config.WHOSE\n"
        "    def run(self):\n"
        "        if self.whose != 'site':\n"
        "            raise RuntimeError(self.whose)\n"
        "        return 0\n",
        encoding="utf-8",
    )
    directory = tmp_path / "warm"
    directory.mkdir()
    (directory / warm.request_name(0)).write_text(json.dumps({"argv": ["-f", "a.json"]}), encoding="utf-8")
    (directory / warm.request_name(1)).write_text('{"end": true}', encoding="utf-8")
    import subprocess

    done = subprocess.run(
        [sys.executable, str(warm.DRIVER), str(directory)],
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads((directory / warm.answer_name(0)).read_text(encoding="utf-8"))
    assert answer.get("error") is None and answer["exit_code"] == 0


def test_check_hands_each_stack_to_checkov_before_the_next_program_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `gpufleet check --all-stacks --jobs 1`: each stack's export reaches checkov's judge right after
    # its own evaluation, before the next stack's program runs (not all of them at the end).
    from typer.testing import CliRunner

    from gpufleet import evaluate
    from gpufleet.checkov import merge
    from gpufleet.cli import app
    from tests.engine.projects import PHOTO_ARCHIVE

    events: list[tuple[str, str]] = []
    real_evaluate, real_add = evaluate.evaluate_stack, merge.Judge.add

    def evaluated(graph: ResourceGraph, *args: Any, **kwargs: Any) -> Any:
        events.append(("judged", graph.stack))
        return real_evaluate(graph, *args, **kwargs)

    def added(self: merge.Judge, graph: ResourceGraph) -> None:
        events.append(("to checkov", graph.stack))
        real_add(self, graph)

    monkeypatch.setattr(evaluate, "evaluate_stack", evaluated)
    monkeypatch.setattr(merge.Judge, "add", added)
    fake = _script(tmp_path / "ck", "#!/bin/sh\necho '[]'\n")
    result = CliRunner().invoke(
        app,
        [
            "check",
            str(PHOTO_ARCHIVE),
            "--all-stacks",
            "--jobs",
            "1",
            "--checkov-bin",
            str(fake),
            "--format",
            "json",
        ],
    )
    assert result.exit_code in (0, 1), result.output
    # (At the end every graph is offered again, and taken once: `Judge.add` skips one it has.)
    assert events[:4] == [
        ("judged", "dev"),
        ("to checkov", "dev"),
        ("judged", "prod"),
        ("to checkov", "prod"),
    ]
    assert {s["checkov"]["status"] for s in json.loads(result.stdout)["stacks"]} == {"ran"}
