"""The files `gpufleet new` writes around the stack file when the directory holds no project yet.

The program is a shim: the fleet program itself is `gpufleet.components.program.run_fleet_program`, in the
installed package, the same call this repository's `infra/__main__.py` makes. The policy pack is a shim
too: it serves the installed `gpufleet.policies`. So a project made here carries no copy of gpufleet that
could fall behind the installed one.

Each entry is a path relative to the project directory and its text; `{project}` and `{requirement}` are
filled by `project_files`.
"""

from __future__ import annotations

import json

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
    "policy-principals-exist": {"existing_principals": ["AWSServiceRoleForAutoScaling"]},
    "onprem-egress-named-ports": {"anywhere": True},
}

# Pinned actions, as in this repository's .github/workflows/guardrails.yml (docs/ci.md).
WORKFLOW = """\
# gpufleet on every pull request: every stack under stacks/ judged offline by the policy pack (no cloud
# credentials, so fork pull requests get it too) and priced; --strict fails the job on a mandatory
# violation and on anything the offline check could not judge (docs/ci.md). The findings go to code
# scanning (SARIF) and the job summary. Actions are pinned by commit SHA; the token can do nothing a job
# did not ask for.
name: gpufleet

on:
  pull_request:
  push:
    branches: [main]

permissions: {{}}

jobs:
  check:
    name: gpufleet check
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
        with:
          persist-credentials: false
      - uses: actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97 # v7.0.0
        with:
          python-version: "3.12"
      - run: python -m pip install -r requirements.txt
      # The judged program runs in user namespaces of its own; Ubuntu 24.04 restricts them through
      # AppArmor, and --strict refuses a run without them.
      - name: Allow the program's sandbox
        run: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true
      - name: gpufleet check --all-stacks --strict
        run: |
          set +e
          gpufleet check --all-stacks --strict --format sarif,markdown,text --output-dir reports
          status=$?
          [ ! -f reports/gpufleet.md ] || cat reports/gpufleet.md >> "$GITHUB_STEP_SUMMARY"
          exit "$status"
      - uses: actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0
        if: ${{{{ !cancelled() }}}}
        with:
          name: gpufleet-reports
          path: reports/

  sarif:
    name: code scanning
    needs: [check]
    # A fork's pull request gets a read-only token: its results stay in the job summary and artifact.
    if: ${{{{ !cancelled() && !github.event.pull_request.head.repo.fork }}}}
    runs-on: ubuntu-latest
    timeout-minutes: 15
    permissions:
      contents: read
      actions: read
      security-events: write
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
        with:
          persist-credentials: false
      - uses: actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c # v8.0.1
        with:
          name: gpufleet-reports
          path: reports
      - uses: github/codeql-action/upload-sarif@8aad20d150bbac5944a9f9d289da16a4b0d87c1e # v4.36.2
        with:
          sarif_file: reports/gpufleet.sarif
          category: gpufleet
"""

GITIGNORE = """\
.venv/
__pycache__/
/reports/
"""


def project_files(project: str, requirement: str) -> dict[str, str]:
    """Path (relative, POSIX) -> text of every file of a new project but the stack file."""
    return {
        "Pulumi.yaml": PULUMI_YAML.format(project=project, program_dir=PROGRAM_DIR),
        "requirements.txt": REQUIREMENTS.format(requirement=requirement),
        f"{PROGRAM_DIR}/__main__.py": PROGRAM,
        f"{PACK_DIR}/PulumiPolicy.yaml": PACK_YAML.format(pack_dir=PACK_DIR),
        f"{PACK_DIR}/__main__.py": PACK_MAIN,
        "policy-config.json": json.dumps(POLICY_CONFIG, indent=2) + "\n",
        ".github/workflows/gpufleet.yml": WORKFLOW.format(),
        ".gitignore": GITIGNORE,
    }
