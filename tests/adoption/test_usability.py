"""A newcomer's rough edges: "did you mean", --help at 80 columns, advise's JSON version, cost tables
that fit the terminal, and `cost --compare` that names usage and schedule changes without rounding noise."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpufleet import cli
from gpufleet.cost import estimate_stack, pool_table
from gpufleet.costview import fitted
from gpufleet.helptext import command_lines
from gpufleet.suggest import close_matches, did_you_mean
from tests.cli.helpers import DEV_STACK, ROOT, copy_project, invoke, replace_once

# -- did you mean ------------------------------------------------------------------------------------


def test_unknown_spec_field_and_cloud_get_a_suggestion(tmp_path: Path) -> None:
    stack = replace_once(DEV_STACK, "spot_percent: 100", "spot_pecent: 100")
    stack = replace_once(stack, "cloud: aws", "cloud: asw")
    project = copy_project(tmp_path / "p", {"dev": stack})
    run = invoke("check", str(project), "-s", "dev")
    assert run.exit_code == 2
    lines = run.stderr.splitlines()
    assert lines[0] == "error: stacks/Pulumi.dev.yaml: invalid gpufleet:fleet (2 problems):"
    assert (
        "  stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.experiments.cloud: must be one of aws, alicloud, "
        "tencentcloud, got 'asw'; did you mean 'aws'?"
    ) in lines
    assert (
        "  stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.experiments: unknown field 'spot_pecent'; "
        "did you mean 'spot_percent'? allowed: cloud, region, instance_types,"
    ) in [line.split(" size,")[0] for line in lines]


def test_a_field_nothing_like_any_other_gets_no_guess(tmp_path: Path) -> None:
    stack = replace_once(DEV_STACK, "spot_percent: 100", "spot_percent: 100\n        zzzz: 1")
    run = invoke("check", str(copy_project(tmp_path / "p", {"dev": stack})), "-s", "dev")
    assert run.exit_code == 2
    assert "unknown field 'zzzz'; allowed: cloud," in run.stderr
    assert "did you mean" not in run.stderr


def test_a_mistyped_stack_name_names_the_stack_files_close_to_it() -> None:
    run = invoke("plan", str(ROOT), "-s", "prdo")
    assert run.exit_code == 2
    assert run.stderr.endswith("; did you mean stack 'prod' (stacks/Pulumi.prod.yaml)?\n")
    far = invoke("plan", str(ROOT), "-s", "staging")
    assert far.exit_code == 2
    assert "did you mean" not in far.stderr


def test_suggestions_are_case_insensitive_and_keep_the_spelling() -> None:
    assert close_matches("PROD", ["dev", "prod", "prod-eu"]) == ["prod", "prod-eu"]
    assert did_you_mean("acount", ["account", "dev"]) == "did you mean 'account'?"
    assert did_you_mean("xyz", ["account", "dev"]) == ""


# -- --help -------------------------------------------------------------------------------------------

COMMANDS = [["plan"], ["check"], ["cost"], ["rules"], ["new"], ["advise", "buy-vs-rent"]]


def _help(command: list[str]) -> str:
    result = CliRunner().invoke(cli.app, [*command, "--help"], prog_name="gpufleet", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_at_80_columns_shows_flags_as_flags_and_whole_examples(command: list[str]) -> None:
    text = _help(command)
    assert "<bool>" not in text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    examples = text[text.index("Examples:") :].splitlines()
    commands = [line.strip() for line in examples if line.strip().startswith("gpufleet ")]
    assert commands, text
    for start, first in enumerate(examples):
        if first.strip().startswith("gpufleet "):
            # A command line ends complete, or with a shell continuation and goes on indented below.
            at, line = start, first.rstrip()
            while line.endswith(" \\"):
                at += 1
                line = examples[at].rstrip()
                assert line.startswith("       "), examples


def test_check_help_lists_boolean_flags_without_a_value() -> None:
    rows = {line.split()[1]: line for line in _help(["check"]).splitlines() if line.startswith("│ --")}
    assert re.match(r"│ --all-stacks\s+Check every stack", rows["--all-stacks"])
    assert re.match(r"│ --strict\s+Fail \(exit 1\)", rows["--strict"])
    assert re.match(r"│ --jobs\s+-j\s+<int>\s+With", rows["--jobs"])


def test_long_example_commands_split_between_words_with_a_continuation() -> None:
    lines = command_lines(
        "gpufleet new ml-dev --from dev-sandbox --project vision --team ml-platform " * 2, 40
    )
    assert all(len(line) <= 40 for line in lines)
    assert all(line.endswith(" \\") for line in lines[:-1])
    assert (
        " ".join(line.removesuffix(" \\").strip() for line in lines)
        == ("gpufleet new ml-dev --from dev-sandbox --project vision --team ml-platform " * 2).strip()
    )


# -- advise JSON --------------------------------------------------------------------------------------


def test_advise_json_carries_the_report_version_like_check_and_cost() -> None:
    run = invoke("advise", "buy-vs-rent", str(ROOT), "-s", "dev", "-f", "json")
    assert run.exit_code == 0, run.stderr
    document = json.loads(run.stdout)
    assert document["version"] == 1
    assert document["stack"] == "dev"
    assert document["currency"] == "USD"
    assert [row["pool"] for row in document["pools"]] == ["experiments"]


# -- cost tables that fit -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def prod_report():  # type: ignore[no-untyped-def]
    graph = cli._run(ROOT, "prod")
    return estimate_stack(graph, source="stacks/Pulumi.prod.yaml")


def _terminal(width: int) -> Console:
    return Console(file=io.StringIO(), width=width, force_terminal=True, record=True)


def test_cost_tables_fit_an_80_column_terminal_and_name_what_they_leave_out(prod_report) -> None:  # type: ignore[no-untyped-def]
    console = _terminal(80)
    cli.print_cost_text(prod_report, console)
    shown = console.export_text()
    table_lines = shown[: shown.index("\ntotal: ")].splitlines()
    assert max(len(line.rstrip()) for line in table_lines if not line.startswith("left out")) <= 80
    # Every figure shown is whole: the pool rows keep name, size and the month in full.
    (train,) = [line for line in table_lines if line.startswith("train-a100 ")]
    cells = dict(zip(pool_table(prod_report).header, pool_table(prod_report).rows[1], strict=True))
    assert cells["pool"] == "train-a100"
    assert train.split()[-1] == cells["monthly est"] == "27,635.62"
    assert "envelope/mo" not in shown[: shown.index("left out")]
    assert "left out to fit 80 columns: envelope/mo, sched h/mo, inst-h/mo, hourly min," in shown
    assert "(--wide: every column)" in shown


def test_wide_and_pipes_get_every_column(prod_report) -> None:  # type: ignore[no-untyped-def]
    from gpufleet.cost import render_text

    wide = _terminal(80)
    cli.print_cost_text(prod_report, wide, wide=True)
    assert wide.export_text() == render_text(prod_report)
    piped = Console(file=io.StringIO(), width=80, force_terminal=False, record=True)
    cli.print_cost_text(prod_report, piped)
    assert piped.export_text() == render_text(prod_report)
    run = invoke("cost", str(ROOT), "-s", "prod", "--wide")
    assert run.exit_code == 0
    assert "envelope/mo" in run.stdout


def test_a_table_that_fits_loses_nothing(prod_report) -> None:  # type: ignore[no-untyped-def]
    _, dropped = fitted(pool_table(prod_report), 400)
    assert dropped == []
    _, dropped = fitted(pool_table(prod_report), 80)
    assert dropped[:3] == ["envelope/mo", "sched h/mo", "inst-h/mo"]


# -- cost --compare -----------------------------------------------------------------------------------


def test_compare_names_usage_and_schedule_changes(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    base_run = invoke("cost", str(ROOT), "-s", "dev", "-f", "json")
    base.write_text(base_run.stdout)
    stack = replace_once(
        DEV_STACK, "usage: {hours_per_day: 8, average_size: 2}", "usage: {hours_per_day: 10, average_size: 3}"
    )
    stack = replace_once(stack, "weekends: true", "weekends: false")
    project = copy_project(tmp_path / "p", {"dev": stack})
    run = invoke("cost", str(project), "-s", "dev", "--compare", str(base), "-f", "json")
    assert run.exit_code == 0, run.stderr
    rows = {row["key"]: row for row in json.loads(run.stdout)["rows"]}
    detail = rows["pool:experiments"]["detail"]
    assert rows["pool:experiments"]["change"] == "changed"
    assert "usage 2 x 8 h/day -> 3 x 10 h/day" in detail
    assert "scheduled h 260.71 -> 365" in detail


def test_compare_across_currencies_reports_no_rounding_noise(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    base.write_text(invoke("cost", str(ROOT), "-s", "prod", "-f", "json", "--currency", "CNY").stdout)
    run = invoke("cost", str(ROOT), "-s", "prod", "--compare", str(base), "-f", "json")
    assert run.exit_code == 0, run.stderr
    document = json.loads(run.stdout)
    assert [row for row in document["rows"] if row["change"] != "unchanged"] == []
    assert document["delta"] == pytest.approx(0.0, abs=0.05)
