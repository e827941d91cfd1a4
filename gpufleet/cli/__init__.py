"""The `gpufleet` command line: see what a Pulumi program builds, check it and price it, without a cloud
account.

One module per command (`plan_command`, `check_command`, `preflight_command`, `waivers_command`,
`rules_command`, `cost_command`, `advise_command`, `new_command`, `simulate_command`); what they share is
in `common` (the app, the consoles, bad input and exit statuses, shared options), `judging` (what `check`
judges with),
`price_options` (the options of the commands that price a stack), `fleet_view` and `plan_settings` (what
`plan` shows). Importing the package registers every command on `app`, in the order `--help` lists them.

`out` and `err` (the consoles every command prints to) and `run_program` (the engine's entry point) are
looked up here when a command runs: set `gpufleet.cli.out` to another rich Console to change where (and
how wide) the output goes, or `gpufleet.cli.run_program` to reuse the runs of a program.
"""

from __future__ import annotations

from gpufleet.atomic import write_files_atomically
from gpufleet.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_VIOLATION,
    BadInput,
    ProjectDir,
    StackRefs,
    Timeout,
    _run,
    app,
    err,
    fail,
    out,
    read_stack_references,
    write_atomically,
    write_stdout,
)
from gpufleet.cli.fleet_view import FleetView, load_fleet, render_fleet
from gpufleet.cli.plan_settings import KEY_SETTINGS, key_settings
from gpufleet.engine import run_program

# The command modules register their commands on `app` as they are imported: this order is the order
# `gpufleet --help` lists them in.
# isort: off
from gpufleet.cli.plan_command import plan, render_plan, write_graph_json
from gpufleet.cli.judging import BUDGET_POLICY, parse_formats, select_rules, stack_cost, with_estimates
from gpufleet.cli.check_command import check, print_text_report
from gpufleet.cli.preflight_command import preflight, render_preflight
from gpufleet.cli.waivers_command import waivers
from gpufleet.cli.rules_command import render_rules_table, rules
from gpufleet.cli.price_options import Currency, OutputFile, PriceFormat
from gpufleet.cli.cost_command import cost, print_cost_text, read_cost_json, render_cost, render_cost_diff
from gpufleet.cli.advise_command import advise_app, buy_vs_rent
from gpufleet.cli.new_command import new
from gpufleet.cli.simulate_command import simulate
# isort: on

__all__ = [
    "BUDGET_POLICY",
    "EXIT_BAD_INPUT",
    "EXIT_OK",
    "EXIT_VIOLATION",
    "KEY_SETTINGS",
    "BadInput",
    "Currency",
    "FleetView",
    "OutputFile",
    "PriceFormat",
    "ProjectDir",
    "StackRefs",
    "Timeout",
    "_run",
    "advise_app",
    "app",
    "buy_vs_rent",
    "check",
    "cost",
    "err",
    "fail",
    "key_settings",
    "load_fleet",
    "main",
    "new",
    "out",
    "parse_formats",
    "plan",
    "preflight",
    "print_cost_text",
    "print_text_report",
    "read_cost_json",
    "read_stack_references",
    "render_cost",
    "render_cost_diff",
    "render_fleet",
    "render_plan",
    "render_preflight",
    "render_rules_table",
    "rules",
    "run_program",
    "select_rules",
    "simulate",
    "stack_cost",
    "waivers",
    "with_estimates",
    "write_atomically",
    "write_files_atomically",
    "write_graph_json",
    "write_stdout",
]


def main() -> None:
    app(prog_name="gpufleet")
