"""`gpufleet waivers`: every waiver in force, with its age and expiry."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpufleet.cli.common import BadInput, ProjectDir, Timeout, _run, _stacks, app, fail, write_stdout
from gpufleet.cli.judging import _config_problem, judging_config
from gpufleet.engine import DEFAULT_TIMEOUT
from gpufleet.sandbox import collector_paused


@app.command(
    epilog="Examples:\n\n"
    "  [bold]gpufleet waivers[/]                    every waiver in force, every stack\n\n"
    "  [bold]gpufleet waivers -s prod --expired --format json[/]",
)
def waivers(  # noqa: PLR0917 - typer maps each parameter to an option
    project_dir: ProjectDir = Path(),
    stack: Annotated[str | None, typer.Option("--stack", "-s", help="Only this stack.")] = None,
    expired: Annotated[bool, typer.Option("--expired", help="List expired and refused waivers too.")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    policy_config: Annotated[
        Path | None, typer.Option("--policy-config", help="Policy pack config (default: policy-config.json).")
    ] = None,
    platform_config: Annotated[
        Path | None,
        typer.Option(
            "--platform-config",
            envvar="GPUFLEET_PLATFORM_CONFIG",
            help="The platform team's policy config: waivers and waiver settings come from it alone.",
        ),
    ] = None,
    timeout: Timeout = DEFAULT_TIMEOUT,
) -> None:
    """List every waiver in force (policy-config.json and gpufleet:waive:* tags) with its age and expiry."""
    from gpufleet import evaluate
    from gpufleet import waivers as waiver_list
    from gpufleet.policies.registry import default_registry
    from gpufleet.policy_config import PolicyConfigError

    try:
        if fmt not in ("text", "json"):
            raise BadInput(f"--format {fmt!r} is not a waivers format; allowed: text, json")
        project, names = _stacks(project_dir, stack, all_stacks=stack is None)
        policies = list(default_registry())
        judging = judging_config(policy_config, project.root, policies, (), (), platform_config)
        results = []
        for name in names:
            graph = _run(project.root, name, None, timeout)
            with collector_paused():
                results.append(
                    evaluate.evaluate_stack(
                        graph,
                        policies,
                        judging.config,
                        waivers_from=judging.settings,
                        ignored_waivers=judging.ignored,
                    )
                )
    except PolicyConfigError as exc:
        raise fail(_config_problem(exc)) from None
    except BadInput as exc:
        raise fail(exc) from None
    rows = waiver_list.listing(results, project.root, expired=expired)
    write_stdout(waiver_list.render_listing(rows, fmt))
