"""The files `gpufleet new` writes around the stack file when the directory holds no project yet.

The program is a shim: the fleet program itself is `gpufleet.components.program.run_fleet_program`, in the
installed package, the same call this repository's `infra/__main__.py` makes. The policy pack is a shim
too: it serves the installed `gpufleet.policies`. So a project made here carries no copy of gpufleet that
could fall behind the installed one.

Each entry is a path relative to the project directory and its text; `{project}` and `{requirement}` are
filled by `project_files`, and `{version}` in the workflow.
"""

from __future__ import annotations

import json

from gpufleet.components.clouds import ACCOUNT_CLOUD, cloud_parts, part_values

__all__ = ["PACK_DIR", "POLICY_CONFIG", "PROGRAM_DIR", "project_files"]

PROGRAM_DIR = "infra"
PACK_DIR = "gpufleet-pack"

PULUMI_YAML = """\
# The Pulumi project, made by `gpufleet new`. `pulumi install` creates .venv from requirements.txt.
name: {project}
description: GPU fleet built from gpufleet's golden templates
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: .venv
main: {program_dir}/
stackConfigDir: stacks
"""

REQUIREMENTS = """\
# The program, the policy pack and the `gpufleet` command all come from this one package.
{requirement}
"""

PROGRAM = '''\
"""The fleet program: the stack's `gpufleet:fleet` (a HybridGpuFleet) or `gpufleet:account` (the account
baseline). The program itself is in the installed gpufleet package; upgrade gpufleet to upgrade it."""

from gpufleet.components.program import run_fleet_program

run_fleet_program()
'''

PACK_YAML = """\
# The gpufleet policy pack, served from the installed package:
#   pulumi preview --policy-pack {pack_dir} --policy-pack-config policy-config.json
description: gpufleet guardrails, from the installed gpufleet package
runtime:
  name: python
  options:
    virtualenv: ../.venv          # the environment gpufleet is installed in
version: 0.1.0
"""

PACK_MAIN = """\
import runpy

runpy.run_module("gpufleet.policies", run_name="__main__")
"""

# Each cloud's part of the files: its principals, state backend and workflow inputs
# (gpufleet/templates/<cloud>.py).
_PARTS = cloud_parts("gpufleet.templates")

# The rules' settings, as this repository's own policy-config.json has them. `existing_principals`: the
# fleet keys name the Auto Scaling service-linked role, which the account-baseline stack creates
# (`gpufleet new account --from account-baseline`, deployed first: docs/first-deploy.md), so to a fleet
# stack it is a principal that exists before the fleet; without the entry GF-OPS-002 reports every key.
POLICY_CONFIG: dict[str, object] = {
    "resources-carry-cost-tags": {"required": ["project", "team", "cost-center", "env"]},
    "stack-has-budget-alert": {"alert_percent": 80},
    "gpu-pool-autoscaling-sane": {"min_cooldown_s": 300},
    "scale-in-respects-cooldown": {"min_cooldown_s": 300},
    "checkpoint-bucket-lifecycle": {"transition_days": 7, "expire_days": 30},
    "log-retention-minimum": {"min_days": 180},
    "policy-principals-exist": {
        "existing_principals": [
            p for names in part_values(_PARTS, "EXISTING_PRINCIPALS").values() for p in names
        ]
    },
    "onprem-egress-named-ports": {"anywhere": True},
}

# The caller of gpufleet's reusable workflow (.github/workflows/gpufleet-preview.yml, docs/ci.md): the
# release it names is the gpufleet of requirements.txt. `{{{{` and `}}}}` are the braces of `${{{{ }}}}`;
# `{backend}` and `{roles}` are the account cloud's state backend and every cloud's role inputs.
WORKFLOW = """\
# gpufleet on every pull request, through gpufleet's reusable workflow (docs/ci.md in gpufleet): every
# stack under stacks/ judged offline by the policy pack (--strict: a mandatory violation or anything the
# offline check could not judge fails it), previewed with the pack on hour-long credentials from
# GitHub's OIDC token (the roles of gpufleet's ci-access/; no cloud key is stored anywhere), findings in
# code scanning (SARIF) and in one PR comment, updated on every push.
#
# The reusable workflow is named by its release tag; pin it by that tag's commit SHA
# (`git ls-remote https://github.com/gpufleet/gpufleet 'refs/tags/v{version}^{{}}'`) and keep the two
# versions below in step with requirements.txt.
name: gpufleet

on:
  pull_request:
  push:
    branches: [main]

permissions: {{}}

jobs:
  gpufleet:
    # The most any of its jobs asks for: each job asks for its least (OIDC in the preview only, the
    # writes in the report job, which runs no code of the change).
    permissions:
      contents: read
      actions: read
      id-token: write
      security-events: write
      pull-requests: write
    uses: gpufleet/gpufleet/.github/workflows/gpufleet-preview.yml@v{version}
    with:
      gpufleet-version: "{version}"
      # Where the stacks' state lives, with no stored token: {backend}
      # role, or Pulumi Cloud through its OIDC exchange (the organization's name). Set one.
      backend-url: ${{{{ vars.GPUFLEET_BACKEND_URL }}}}
      pulumi-organization: ${{{{ vars.GPUFLEET_PULUMI_ORGANIZATION }}}}
      # The roles of ci-access/, for the clouds your stacks use (repository variables; none is a secret).
{roles}    # Only with Pulumi Cloud and a stored token instead (not recommended):
    # secrets:
    #   PULUMI_ACCESS_TOKEN: ${{{{ secrets.PULUMI_ACCESS_TOKEN }}}}
"""

GITIGNORE = """\
.venv/
__pycache__/
/reports/
"""


def _workflow_roles() -> str:
    """The workflow's `with:` lines of every cloud's ci-access role (WORKFLOW_INPUTS in
    gpufleet/templates/<cloud>.py), in registry order."""
    inputs = [pair for pairs in part_values(_PARTS, "WORKFLOW_INPUTS").values() for pair in pairs]
    return "".join(f"      {name}: ${{{{ vars.{variable} }}}}\n" for name, variable in inputs)


def project_files(project: str, requirement: str, version: str) -> dict[str, str]:
    """Path (relative, POSIX) -> text of every file of a new project but the stack file; `version` is the
    gpufleet release `requirement` installs, which the workflow names too."""
    return {
        "Pulumi.yaml": PULUMI_YAML.format(project=project, program_dir=PROGRAM_DIR),
        "requirements.txt": REQUIREMENTS.format(requirement=requirement),
        f"{PROGRAM_DIR}/__main__.py": PROGRAM,
        f"{PACK_DIR}/PulumiPolicy.yaml": PACK_YAML.format(pack_dir=PACK_DIR),
        f"{PACK_DIR}/__main__.py": PACK_MAIN,
        "policy-config.json": json.dumps(POLICY_CONFIG, indent=2) + "\n",
        ".github/workflows/gpufleet.yml": WORKFLOW.format(
            version=version, backend=_PARTS[ACCOUNT_CLOUD].STATE_BACKEND, roles=_workflow_roles()
        ),
        ".gitignore": GITIGNORE,
    }
