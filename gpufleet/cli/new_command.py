"""`gpufleet new`: a new stack file from a golden template (a whole project in an empty directory)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpufleet import cli
from gpufleet.cli.common import EXIT_OK, BadInput, ProjectDir, app, fail
from gpufleet.components.clouds import DEFAULT_CLOUD, PROFILES, profile
from gpufleet.helptext import examples

# The cloud whose region --region names when the template leaves no other cloud's open.
_HOME = profile(DEFAULT_CLOUD).name
# The templates are on different clouds: the region is in the form of the template's cloud.
_REGION_HELP = (
    "Region of the fleet, on the template's cloud (e.g. "
    + ", ".join(f"{p.default_region} on {p.name}" for p in PROFILES.values())
    + ")."
)


def _shell_arg(value: str) -> str:
    import shlex

    return shlex.quote(value)


@app.command(
    "new",
    epilog=examples(
        [
            ("gpufleet new --list", "the golden templates"),
            (
                "gpufleet new ml-dev --from dev-sandbox --project vision --team ml-platform "
                "--cost-center cc-042 --budget 3000 --region us-east-1",
                "",
            ),
            ("gpufleet new llm-train --from training ... --region us-east-1 --replica-region us-west-2", ""),
            (
                "gpufleet new dev vision-fleet --from dev-sandbox ...",
                "a whole project in a directory without Pulumi.yaml",
            ),
        ],
        [
            "Nothing is asked interactively: every value is an option, so CI can run it.",
            "The fleet is priced before it is written: a --budget below its monthly estimate is refused.",
            "Exit status: 0 written, 2 bad input (nothing written).",
        ],
    ),
)
def new(  # noqa: PLR0917 - typer maps each parameter to an option
    stack: Annotated[
        str | None, typer.Argument(help="Name of the new stack (Pulumi.<stack>.yaml).", show_default=False)
    ] = None,
    project_dir: ProjectDir = Path(),
    template: Annotated[
        str | None, typer.Option("--from", metavar="TEMPLATE", help="Golden template (see --list).")
    ] = None,
    list_templates: Annotated[
        bool, typer.Option("--list", help="List the templates with a one-line description and exit.")
    ] = False,
    project: Annotated[str | None, typer.Option("--project", help="Cost tag `project`.")] = None,
    team: Annotated[str | None, typer.Option("--team", help="Cost tag `team`.")] = None,
    cost_center: Annotated[str | None, typer.Option("--cost-center", help="Cost tag `cost-center`.")] = None,
    budget: Annotated[
        float | None, typer.Option("--budget", help="Monthly budget in USD (alerts at 80%).")
    ] = None,
    region: Annotated[str | None, typer.Option("--region", help=_REGION_HELP)] = None,
    replica_region: Annotated[
        str | None,
        typer.Option(
            "--replica-region", help=f"Second {_HOME} region for the checkpoint replica (training)."
        ),
    ] = None,
    timezone: Annotated[
        str | None,
        typer.Option("--timezone", help="IANA zone of the off-hours schedule. Default: the region's."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing stack file.")] = False,
) -> None:
    """Write a new stack file from a golden template, validated and priced before it is written.

    In a directory without Pulumi.yaml (empty, or not there yet) it makes the whole project: Pulumi.yaml,
    the program, the stack, a policy pack shim, policy-config.json and a CI workflow."""
    from gpufleet import new as templates

    if list_templates:
        rows = templates.list_templates()
        width = max(len(t.name) for t in rows)
        for row in rows:
            cli.out.print(f"{row.name.ljust(width)}  {row.description}", markup=False, soft_wrap=True)
            needs = ", ".join(row.required_options)
            cli.out.print(f"{'':{width}}  needs {needs}", markup=False, soft_wrap=True)
        raise typer.Exit(EXIT_OK)
    try:
        if stack is None:
            raise BadInput("pass the new stack's name: gpufleet new STACK --from TEMPLATE, or --list")
        if template is None:
            known = ", ".join(t.name for t in templates.list_templates())
            raise BadInput(f"pass --from TEMPLATE; known templates: {known}")
        values: dict[str, str | float | None] = {
            "project": project,
            "team": team,
            "cost_center": cost_center,
            "budget": budget,
            "region": region,
            "replica_region": replica_region,
            "timezone": timezone,
        }
        try:
            created = templates.create_stack(project_dir, stack, template, values, force=force)
        except templates.NewStackError as exc:
            raise BadInput(str(exc), exc.details) from None
    except BadInput as exc:
        raise fail(exc) from None
    where = "" if project_dir == Path() else f" {_shell_arg(str(project_dir))}"
    name = _shell_arg(stack)
    cwd = f" --cwd{where}" if where else ""
    steps = [
        (f"gpufleet plan{where} -s {name}", "see what it builds, every default filled in"),
        (f"gpufleet check{where} -s {name}", "judge it against the guardrails and price it"),
        (f"pulumi stack init {name}{cwd}", "then pulumi up, where the CLI and credentials are"),
    ]
    if created.project_files:
        steps.insert(2, (f"pulumi install{cwd}", "creates .venv with gpufleet (requirements.txt)"))
    width = max(len(command) for command, _ in steps)
    lines = [f"wrote {created.relative} from template {template}"]
    if created.monthly_estimate is not None:
        lines.append(f"  estimated {created.monthly_estimate:,.2f} {created.currency} a month")
    if created.project_files:
        lines.append(f"made a new project in {project_dir} around it:")
        lines += [f"  {relative}" for relative in created.project_files]
    lines.append("next:")
    lines += [f"  {command.ljust(width)}   {why}" for command, why in steps]
    for line in lines:
        cli.out.print(line, markup=False, highlight=False, soft_wrap=True)
