"""`gpufleet check`: run each stack offline, judge it with the policies and checkov, price it and report."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from gpufleet import cli
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
    _stack_file,
    _stacks,
    app,
    fail,
    read_stack_references,
    write_stdout,
)
from gpufleet.cli.fleet_view import FleetView, load_fleet
from gpufleet.cli.judging import (
    Judging,
    _config_problem,
    default_format,
    judging_config,
    parse_formats,
    select_rules,
    stack_cost,
    stack_settings,
    with_estimates,
)
from gpufleet.engine import DEFAULT_TIMEOUT, UNISOLATED_NOTE
from gpufleet.graph import ResourceGraph
from gpufleet.helptext import examples
from gpufleet.project import Project
from gpufleet.redact import redactor
from gpufleet.sandbox import collector_paused

if TYPE_CHECKING:
    from gpufleet.allstacks import Outcome
    from gpufleet.checkov.merge import Judge
    from gpufleet.findings import StackResult
    from gpufleet.policies.rule import GfPolicy

_TEXT_STYLES = (
    (r"\bGF-[A-Z0-9]+-\d{3}\b", "bold cyan"),
    (r"\[mandatory\]", "bold red"),
    (r"\[advisory\]", "yellow"),
    (r"(?m)^  CRITICAL$", "bold white on red"),
    (r"(?m)^  HIGH$", "bold red"),
    (r"(?m)^  MEDIUM$", "bold yellow"),
    (r"(?m)^  LOW$", "bold blue"),
    (r"(?m)^stack \S+", "bold"),
    (r"passed: no policy violations", "green"),
    (r"(?m)^  cost: .*$", "magenta"),
)


def print_text_report(text: str, console: Console) -> None:
    """The text report, coloured for a terminal (plain when stdout is a pipe or a file)."""
    styled = Text(text)
    for pattern, style in _TEXT_STYLES:
        styled.highlight_regex(pattern, style)
    console.print(styled, end="", soft_wrap=True)


@app.command(
    epilog=examples(
        [
            ("gpufleet check -s dev", "text in a terminal, JSON when piped or redirected"),
            ("gpufleet check -s dev --format json > dev.json", "the format named, wherever stdout goes"),
            (
                "gpufleet check --all-stacks --jobs 2 --format sarif,junit,markdown --output-dir reports",
                "every stack, two at a time, three reports",
            ),
            (
                "gpufleet check -s dev --enforce GF-COST-004=advisory --set GF-AUD-002.min_days=365",
                "enforcement and rule config for one run",
            ),
            ("gpufleet check -s prod --rules 'GF-STOR-*,GF-KMS-001'", "quote wildcards from the shell"),
            (
                "gpufleet check -s prod --strict",
                "the CI gate: fail on components not looked inside and values unknown until apply",
            ),
        ],
        ["Exit status: 0 no mandatory violation, 1 a mandatory violation, 2 bad input."],
    ),
)
def check(  # noqa: PLR0917 - typer maps each parameter to an option
    project_dir: ProjectDir = Path(),
    stack: Annotated[str | None, typer.Option("--stack", "-s", help="Stack to check.")] = None,
    all_stacks: Annotated[bool, typer.Option("--all-stacks", help="Check every stack file.")] = False,
    list_stacks: Annotated[
        bool,
        typer.Option(
            "--list-stacks",
            help="Print every stack and the clouds it uses (--format json or text) and exit: the CI matrix.",
        ),
    ] = False,
    formats: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help="Comma-separated: json, text, sarif, junit, markdown (several need -o). Default: text "
            "when stdout is a terminal, else json.",
        ),
    ] = None,
    output_dir: Annotated[
        Path | None, typer.Option("--output-dir", "-o", help="Write each report to a file here.")
    ] = None,
    policy_config: Annotated[
        Path | None,
        typer.Option(
            "--policy-config",
            help="Policy pack config (Pulumi's JSON shape; YAML by extension). Default: the project's "
            "policy-config.json, if any.",
        ),
    ] = None,
    platform_config: Annotated[
        Path | None,
        typer.Option(
            "--platform-config",
            envvar="GPUFLEET_PLATFORM_CONFIG",
            help="The platform team's policy config (e.g. the base branch's policy-config.json): waivers, "
            "waiver settings, waivable and enforcement come from it alone; the repository's policy config "
            "may only make enforcement stricter. Env: GPUFLEET_PLATFORM_CONFIG.",
        ),
    ] = None,
    enforce: Annotated[
        list[str] | None,
        typer.Option(
            "--enforce",
            metavar="RULE=LEVEL",
            help="Enforcement level for a rule id or policy name, or all=LEVEL "
            "(advisory, mandatory, remediate, disabled). Repeatable.",
        ),
    ] = None,
    set_values: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="RULE.KEY=VALUE",
            help="A policy config value, JSON or a plain string (GF-AUD-002.min_days=365). Repeatable.",
        ),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option("--rules", help="Only these rules: ids or policy names, wildcards allowed (GF-COST-*)."),
    ] = None,
    stack_refs: StackRefs = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Fail (exit 1) on what could not be judged (the CI gate). A component that could not be "
            "looked inside offline (GF-ENGINE-001: remote components, Helm charts and releases, kustomize) "
            "is mandatory, as with --enforce GF-ENGINE-001=mandatory; a value unknown until apply (an "
            "output of another resource) that a mandatory rule could not judge is a mandatory finding of "
            "that rule naming the resource and property, not an advisory one.",
        ),
    ] = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
    checkov: Annotated[
        bool | None,
        typer.Option(
            "--checkov/--no-checkov",
            help="Also judge with checkov (run once for every stack). Default: when it is installed "
            "(.venv-checkov/, $GPUFLEET_CHECKOV or PATH); --checkov makes its absence an error.",
            show_default=False,
        ),
    ] = None,
    checkov_bin: Annotated[
        Path | None, typer.Option("--checkov-bin", help="The checkov executable to run.")
    ] = None,
    checkov_config: Annotated[
        Path | None,
        typer.Option(
            "--checkov-config",
            help="checkov checks to skip, each with its reason. Default: the project's checkov-config.json.",
        ),
    ] = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            help="With --all-stacks: check this many stacks at once, each in its own process "
            "(0, the default: one per CPU this process may use, counting a container's CPU limit; "
            "1: one after the other).",
        ),
    ] = 0,
    explain_overlap: Annotated[
        bool,
        typer.Option(
            "--explain-overlap",
            help="Show where each rule and its nearest checkov checks agree and disagree on the same "
            "resources.",
        ),
    ] = False,
) -> None:
    """Run the program offline and judge it with the guardrail policies and checkov, and price it."""
    # The policy pack is imported only when judging: `plan` stays quick to start.
    from gpufleet import allstacks
    from gpufleet.checkov import command as checkov_command
    from gpufleet.checkov.config import load_checkov_skips
    from gpufleet.policies.registry import default_registry
    from gpufleet.policy_config import PolicyConfigError

    formats = formats or default_format(output_dir)
    if list_stacks:
        _list_stacks(project_dir, formats, bool(stack) or all_stacks or output_dir is not None)
    try:
        selected = parse_formats(formats)
        _check_output_dir(selected, output_dir)
        project, names = _stacks(project_dir, stack, all_stacks)
        try:
            jobs = allstacks.parse_jobs(jobs)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        everything = list(default_registry())
        policies, engine_rule = select_rules(everything, rules)
        judging = judging_config(
            policy_config, project.root, everything, enforce or (), set_values or (), platform_config
        )
        run = _StackRun(
            project=project,
            references=read_stack_references(stack_refs),
            timeout=timeout,
            strict=strict,
            all_stacks=all_stacks,
            everything=everything,
            policies=policies,
            engine_rule=engine_rule,
            judging=judging,
        )
        checkov_binary = checkov_command.resolve(checkov, checkov_bin, project.root)
        checkov_skips = load_checkov_skips(checkov_config, project.root)
        checkov_judge = checkov_command.judge_for(checkov_binary, checkov_skips)
        outcomes = allstacks.check_stacks(
            names,
            functools.partial(_check_stack, run=run),
            project=project.name,
            jobs=jobs,
            on_outcome=functools.partial(_hand_to_checkov, checkov_judge),
        )
        results = [result for result, _ in outcomes]
        checked = [(result, graph) for result, graph in outcomes if graph is not None]
        checkov_command.attach(
            [result for result, _ in checked],
            [graph for _, graph in checked],
            checkov_binary,
            enabled=checkov,
            skips=checkov_skips,
            pack_seconds=[result.pack_seconds for result, _ in checked],
            overlap_rules=[(p.rule.id, p.rule.checkov) for p in policies] if explain_overlap else None,
            judge=checkov_judge,
        )
    except checkov_command.CheckovUnavailable as exc:
        raise fail(BadInput(str(exc))) from None
    except PolicyConfigError as exc:
        raise fail(_config_problem(exc)) from None
    except BadInput as exc:
        raise fail(exc) from None

    _write_reports(results, selected, output_dir, policies, project.root)
    _exit_for(results)


def _hand_to_checkov(judge: Judge | None, outcome: Outcome) -> None:
    """A stack's export to checkov as soon as its program has run; one that cannot be exported is
    exported again, and reported, when every stack has run (`checkov_command.attach`)."""
    _result, graph = outcome
    if judge is None or graph is None:
        return
    with contextlib.suppress(Exception):
        judge.add(graph)


def _check_output_dir(selected: list[str], output_dir: Path | None) -> None:
    """Several reports need a directory, and the directory must not be a file: checked before any
    stack runs so a mistyped path does not cost a whole evaluation."""
    if len(selected) > 1 and output_dir is None:
        raise BadInput(
            f"--format {','.join(selected)} names {len(selected)} reports and stdout takes one: "
            "pass --output-dir DIR to write each to its file there"
        )
    if output_dir is not None and output_dir.exists() and not output_dir.is_dir():
        raise BadInput(
            f"--output-dir {output_dir} is a file; pass a directory (created if missing) "
            "to write the reports in"
        )


@dataclass(frozen=True)
class _StackRun:
    """What every stack of one `check` is run and judged with."""

    project: Project
    references: Mapping[str, Mapping[str, Any]] | None
    timeout: float
    strict: bool
    all_stacks: bool
    everything: list[GfPolicy]
    policies: list[GfPolicy]
    engine_rule: bool
    judging: Judging


def _check_stack(name: str, run: _StackRun) -> Outcome:
    """One stack run offline, priced and judged; with --all-stacks, its bad input is its report entry."""
    from gpufleet import allstacks, evaluate

    config = run.judging.config
    try:
        # The program would stop at the first bad spec too, but folded into one paragraph: checking
        # the spec first lists each problem on its own line.
        fleet = load_fleet(run.project.root, name)
        graph = _run(run.project.root, name, run.references, run.timeout)
        if run.strict:
            _require_isolation(graph)
        stack_file = _stack_file(run.project, name)
        # Pricing and judging allocate much and free little: the collector would walk the whole
        # graph again and again for nothing.
        with collector_paused():
            block, estimates = stack_cost(graph, stack_file)
            started = time.perf_counter()
            result = evaluate.evaluate_stack(
                graph,
                run.policies,
                stack_settings(with_estimates(config, estimates), graph, run.project.root),
                strict=run.strict,
                engine_rule=run.engine_rule,
                waivers_from=run.judging.settings,
                ignored_waivers=run.judging.ignored,
            )
            result.pack_seconds = time.perf_counter() - started
    except BadInput as exc:
        if not run.all_stacks:
            raise
        return allstacks.error_result(name, run.project.name, str(exc), exc.details), None
    result.stack_file = stack_file
    result.cost = block
    if fleet is not None:
        _in_spec_terms(result, fleet, stack_file, run, graph)
    return result, graph


def _in_spec_terms(
    result: StackResult, fleet: FleetView, stack_file: str, run: _StackRun, graph: ResourceGraph
) -> None:
    """A fleet stack's findings told in the terms of its spec, and its secrets redacted."""
    from gpufleet import remediation_fields
    from gpufleet.findings import redact_secrets

    result.violations = remediation_fields.in_spec_terms(
        result.violations,
        remediation_fields.Context(
            fleet.spec,
            stack_file,
            remediation_fields.settings_of(run.everything, run.judging.config),
            monthly_estimate=(result.cost or {}).get("monthly_estimate"),
        ),
    )
    redact_secrets(result, redactor(graph))


def _write_reports(
    results: list[StackResult],
    selected: list[str],
    output_dir: Path | None,
    policies: list[GfPolicy],
    root: Path,
) -> None:
    """The reports on stdout (one) or as files in `output_dir` (each), with a summary line."""
    from gpufleet import report

    try:
        rendered = report.write_reports(results, selected, None, policies=policies, repo_root=root)
        if output_dir is not None:
            output_dir.mkdir(parents=True, exist_ok=True)
            write_files_atomically({output_dir / report.FILE_NAMES[fmt]: rendered[fmt] for fmt in selected})
    except OSError as exc:
        raise fail(BadInput(f"cannot write the reports to {output_dir}: {exc.strerror or exc}")) from None
    if output_dir is None:
        text = rendered[selected[0]]
        if selected[0] == "text":
            print_text_report(text, cli.out)
        else:
            write_stdout(text)
        return
    for fmt in selected:
        cli.out.print(f"wrote {escape(str(output_dir / report.FILE_NAMES[fmt]))}", soft_wrap=True)
    total = [f for r in results for f in r.violations]
    mandatory = sum(1 for f in total if f.enforcement == "mandatory")
    cli.out.print(
        f"{len(results)} stack{'' if len(results) == 1 else 's'}: {mandatory} mandatory, "
        f"{len(total) - mandatory} advisory violations"
    )


def _exit_for(results: list[StackResult]) -> NoReturn:
    """Each stack that could not be checked on stderr (exit 2), else exit 1 on a mandatory violation."""
    from gpufleet import report

    broken = [result for result in results if result.error is not None]
    for result in broken:
        error = result.error or {}
        fail(BadInput(str(error.get("message")), error.get("details") or ()))
    if broken:
        raise typer.Exit(EXIT_BAD_INPUT)
    raise typer.Exit(EXIT_VIOLATION if report.exit_code(results) else EXIT_OK)


def _list_stacks(project_dir: Path, fmt: str, other_selection: bool) -> None:
    from gpufleet import stacklist

    try:
        if other_selection:
            raise BadInput("--list-stacks lists every stack on stdout: drop -s/--all-stacks/--output-dir")
        write_stdout(stacklist.render(stacklist.list_stacks(project_dir), fmt))
    except stacklist.StackListError as exc:
        raise fail(BadInput(str(exc))) from None
    except BadInput as exc:
        raise fail(exc) from None
    raise typer.Exit(EXIT_OK)


def _require_isolation(graph: ResourceGraph) -> None:
    """`--strict` is the gate: a program that ran without namespaces could have signalled or rewritten
    the judge (docs/security.md), so its verdict is refused, exit 2."""
    for note in graph.notes:
        if note.startswith(UNISOLATED_NOTE):
            reason = note.split(": ", 1)[-1]
            raise BadInput(
                f"--strict judges a program only when it runs isolated from the judge, and this one could "
                f"not be ({reason}): on Linux allow unprivileged user namespaces (Ubuntu 24.04: sysctl "
                f"kernel.apparmor_restrict_unprivileged_userns=0; Debian: sysctl "
                f"kernel.unprivileged_userns_clone=1), or check without --strict outside the gate "
                f"(docs/security.md)"
            )
