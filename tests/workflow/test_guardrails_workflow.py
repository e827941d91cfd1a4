"""`.github/workflows/guardrails.yml` follows the rules the product sells: pinned actions, no standing
token permissions, short-lived cloud credentials, every stack from `gpufleet check --list-stacks`."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpufleet import safe_yaml
from tests.cli.helpers import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "guardrails.yml"
TEXT = WORKFLOW.read_text()
DOC: dict[Any, Any] = safe_yaml.load(WORKFLOW, TEXT)
JOBS: dict[str, dict[str, Any]] = DOC["jobs"]

USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<comment>.*)$")
PINNED = re.compile(r"(?P<action>[\w.-]+/[\w.-]+(?:/[\w./-]+)?)@(?P<sha>[0-9a-f]{40})")
VERSION_COMMENT = re.compile(r"\s+# v\d+\.\d+\.\d+$")

# Long-lived cloud key names: none may be configured, passed or documented as the way in.
KEY_NAMES = re.compile(
    r"AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|aws-access-key-id|aws-secret-access-key|ALICLOUD_ACCESS_KEY"
    r"|ALICLOUD_SECRET_KEY|ALIBABA_CLOUD_ACCESS_KEY_(?:ID|SECRET)|TENCENTCLOUD_SECRET_(?:ID|KEY)",
    re.IGNORECASE,
)

EXPECTED_PERMISSIONS = {
    "stacks": {"contents": "read"},
    "test": {"contents": "read"},
    "check": {"contents": "read"},
    "cost": {"contents": "read"},
    "sarif": {"contents": "read", "actions": "read", "security-events": "write"},
    "comment": {"pull-requests": "write"},
    "preview": {"contents": "read", "id-token": "write"},
}
FORK = "!github.event.pull_request.head.repo.fork"


def _steps() -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in JOBS.items() for step in job.get("steps", [])]


def _uses(action: str) -> list[tuple[str, dict[str, Any]]]:
    return [(job, s) for job, s in _steps() if str(s.get("uses", "")).split("@")[0] == action]


def test_every_action_is_pinned_by_full_sha_with_its_version() -> None:
    lines = [m for line in TEXT.splitlines() if (m := USES_LINE.match(line))]
    assert len(lines) == sum(1 for _, s in _steps() if "uses" in s) > 0
    versions: dict[str, set[tuple[str, str]]] = {}
    for match in lines:
        pinned = PINNED.fullmatch(match["ref"])
        assert pinned is not None, f"{match['ref']} is not pinned by a full commit SHA"
        assert VERSION_COMMENT.fullmatch(match["comment"]), f"{match['ref']} has no `# vX.Y.Z` comment"
        versions.setdefault(pinned["action"], set()).add((pinned["sha"], match["comment"].strip()))
    # one action, one pin: the same release everywhere it is used
    assert {action: len(pins) for action, pins in versions.items()} == dict.fromkeys(versions, 1)
    assert set(versions) == {
        "actions/checkout",
        "actions/setup-python",
        "actions/cache",
        "actions/upload-artifact",
        "actions/download-artifact",
        "github/codeql-action/upload-sarif",
        "aws-actions/configure-aws-credentials",
        "pulumi/actions",
    }


def test_no_standing_token_permissions_and_each_job_asks_for_its_least() -> None:
    assert DOC["permissions"] == {}
    assert {name: job.get("permissions") for name, job in JOBS.items()} == EXPECTED_PERMISSIONS
    writers = {
        (name, scope) for name, job in JOBS.items() for scope, level in job["permissions"].items()
        if level == "write"
    }  # fmt: skip
    assert writers == {("comment", "pull-requests"), ("sarif", "security-events"), ("preview", "id-token")}
    # the SARIF upload is the sarif job's alone, the comment the comment job's alone
    assert [job for job, _ in _uses("github/codeql-action/upload-sarif")] == ["sarif"]
    assert [name for name, s in _steps() if "gh pr comment" in str(s.get("run", ""))] == ["comment"]


def test_every_checkout_leaves_no_token_behind() -> None:
    checkouts = _uses("actions/checkout")
    # every job but the comment one checks out, once
    assert sorted(job for job, _ in checkouts) == sorted(job for job in JOBS if job != "comment")
    assert all(step.get("with", {}).get("persist-credentials") is False for _, step in checkouts)


def test_the_preview_signs_in_through_oidc_only() -> None:
    preview = JOBS["preview"]
    (credentials,) = [step for job, step in _uses("aws-actions/configure-aws-credentials")]
    assert [job for job, _ in _uses("aws-actions/configure-aws-credentials")] == ["preview"]
    assert credentials["with"]["role-to-assume"] == "${{ vars.GPUFLEET_PREVIEW_ROLE_ARN }}"
    assert credentials["with"]["role-duration-seconds"] == 3600
    assert not {"aws-access-key-id", "aws-secret-access-key", "aws-session-token"} & set(credentials["with"])
    steps = preview["steps"]
    pulumi = next(i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("pulumi/actions@"))
    assert steps.index(credentials) < pulumi
    assert steps[pulumi]["with"]["command"] == "preview"
    # The pack and its config come from the base branch, checked out beside the change.
    assert steps[pulumi]["with"]["policyPacks"] == "${{ runner.temp }}/judge/policies"
    assert steps[pulumi]["with"]["policyPackConfigs"] == "${{ runner.temp }}/judge/policy-config.json"
    # the only secret the workflow reads is the Pulumi token, in the preview job
    secrets = re.findall(r"secrets\.(\w+)", TEXT)
    assert secrets == ["PULUMI_ACCESS_TOKEN"]
    assert "secrets." in str(steps[pulumi].get("env"))


def test_no_long_lived_cloud_key_in_workflows_or_docs() -> None:
    files = [
        *ROOT.glob(".github/**/*"),
        ROOT / "README.md",
        *ROOT.glob("docs/**/*.md"),
        *ROOT.glob("ci-access/*"),
    ]
    # docs/rules.md is generated from the rules; GF-K8S-005 lists these names as what it refuses.
    found = {
        path.relative_to(ROOT).as_posix(): KEY_NAMES.findall(path.read_text())
        for path in files
        if path.is_file()
        and path.name != "rules.md"
        and path.suffix in {".md", ".yml", ".yaml", ".py", ".sh"}
    }
    # docs/hybrid.md names the keys of the Kubernetes Secret the Tencent cluster-autoscaler reads its CAM
    # key from (components/baseline/autoscalers/tencentcloud.py): the operator creates that Secret, so the
    # doc must name them, and it says the key never goes in the spec or the stack's state. Those two, there
    # only.
    autoscaler_keys = ["tencentcloud_secret_id", "tencentcloud_secret_key"]
    from gpufleet.components.baseline.autoscaler_common import secret_env
    from gpufleet.components.baseline.autoscalers import tencentcloud

    read = secret_env("operator-secret", tencentcloud.SECRET_KEYS, "REGION", "ap-guangzhou")
    refs = [e["valueFrom"]["secretKeyRef"] for e in read if "valueFrom" in e]
    assert all({"name": "operator-secret", "key": name} in refs for name in autoscaler_keys)
    found["docs/hybrid.md"] = [n for n in found.get("docs/hybrid.md", []) if n not in autoscaler_keys]
    # docs/commands.md says which variables `gpufleet preflight` reads the user's own credentials from
    # (a workstation's, to read quotas): those two names, there only.
    preflight_keys = ["ALIBABA_CLOUD_ACCESS_KEY_ID", "TENCENTCLOUD_SECRET_ID"]
    assert "gpufleet preflight" in (ROOT / "docs" / "commands.md").read_text()
    found["docs/commands.md"] = [n for n in found.get("docs/commands.md", []) if n not in preflight_keys]
    assert {path: names for path, names in found.items() if names} == {}
    assert (ROOT / "docs" / "ci.md").is_file()


def test_the_stacks_come_from_list_stacks_never_a_literal_list() -> None:
    (listing,) = [s for s in JOBS["stacks"]["steps"] if s.get("id") == "list"]
    assert ".venv/bin/gpufleet check --list-stacks --format json" in listing["run"]
    assert JOBS["stacks"]["outputs"] == {
        "matrix": "${{ steps.list.outputs.matrix }}",
        "preview": "${{ steps.list.outputs.preview }}",
    }
    matrices = {name: job["strategy"]["matrix"] for name, job in JOBS.items() if "strategy" in job}
    assert matrices == {
        "check": {"stack": "${{ fromJSON(needs.stacks.outputs.matrix) }}"},
        "sarif": {"stack": "${{ fromJSON(needs.stacks.outputs.matrix) }}"},
        "preview": {"stack": "${{ fromJSON(needs.stacks.outputs.preview) }}"},
    }
    # the cost diff walks the same list: every stack is priced
    cost_runs = " ".join(str(s.get("run", "")) for s in JOBS["cost"]["steps"])
    assert JOBS["cost"]["env"] == {"STACKS": "${{ needs.stacks.outputs.matrix }}"}
    assert cost_runs.count("""done < <(jq -r '.[].name' <<<"$STACKS")""") == 2
    assert "--compare" in cost_runs
    assert not re.search(r"\b(dev|prod)\b", cost_runs + str(JOBS["check"]) + str(JOBS["preview"]))


@pytest.mark.parametrize("job", ["stacks", "test", "check", "cost"])
def test_fork_pull_requests_still_get_the_offline_check(job: str) -> None:
    assert "fork" not in str(JOBS[job].get("if", ""))
    assert "secrets." not in str(JOBS[job])


@pytest.mark.parametrize("job", ["preview", "sarif", "comment"])
def test_fork_pull_requests_skip_what_needs_credentials_or_a_writing_token(job: str) -> None:
    assert FORK in " ".join(str(JOBS[job]["if"]).split())


def test_no_expression_is_pasted_into_a_script() -> None:
    """`${{ }}` inside `run:` is template injection (a branch name is attacker-controlled): use env."""
    scripts = [(name, s["run"]) for name, s in _steps() if "run" in s]
    assert [(name, run) for name, run in scripts if "${{" in run] == []


def test_triggers_are_ones_where_a_fork_cannot_get_secrets() -> None:
    # PyYAML reads the bare key `on` as the boolean True (YAML 1.1)
    triggers = DOC.get("on", DOC.get(True))
    assert set(triggers) == {"pull_request", "push"}
    assert "pull_request_target" not in TEXT and "workflow_run" not in TEXT


def test_a_pull_request_is_judged_with_the_base_branch_policy_config() -> None:
    """The change under review must not loosen its own gate (docs/waivers.md): for a pull request the
    check reads waivers and enforcement from the base branch's policy-config.json, the merge commit's
    first parent."""
    (checkout,) = [
        s for s in JOBS["check"]["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")
    ]
    assert checkout["with"]["fetch-depth"] == 2
    (step,) = [s for s in JOBS["check"]["steps"] if s.get("id") == "check"]
    assert step["env"]["EVENT"] == "${{ github.event_name }}"
    run = step["run"]
    assert 'if [ "$EVENT" = pull_request ]; then' in run
    assert 'git show HEAD^1:policy-config.json > "$RUNNER_TEMP/platform/policy-config.json"' in run
    assert 'platform=(--platform-config "$RUNNER_TEMP/platform/policy-config.json")' in run
    assert (
        '"$JUDGE/.venv/bin/gpufleet" check "$GITHUB_WORKSPACE" -s "$STACK" --strict "${platform[@]}"' in run
    )


def test_a_pull_request_is_judged_by_the_base_branch_gpufleet() -> None:
    """The change under review may edit the policies, the engine or the gpufleet it pins: the judge is
    installed from the base branch (the merge commit's first parent), the judged tree is the checkout."""
    (step,) = [s for s in JOBS["check"]["steps"] if s.get("name") == "The judge, from the base branch"]
    assert step["env"]["EVENT"] == "${{ github.event_name }}"
    run = step["run"]
    assert 'git worktree add --detach "$judge" HEAD^1' in run
    assert 'make -C "$judge" install checkov' in run
    assert 'echo "JUDGE=$judge" >> "$GITHUB_ENV"' in run
    names = [s.get("name") for s in JOBS["check"]["steps"]]
    assert names.index("The judge, from the base branch") < names.index("Policy pack and checkov")
    (check,) = [s for s in JOBS["check"]["steps"] if s.get("id") == "check"]
    assert '--checkov-bin "$JUDGE/.venv-checkov/bin/checkov"' in check["run"]
    assert "make install" not in " ".join(str(s.get("run", "")) for s in JOBS["check"]["steps"])


def test_the_check_job_is_the_strict_gate() -> None:
    """What the offline check could not judge (a component not looked inside, a value unknown until
    apply on a mandatory rule) fails the pull request: `check --strict`."""
    (step,) = [s for s in JOBS["check"]["steps"] if s.get("id") == "check"]
    assert re.search(
        r"/\.venv/bin/gpufleet\" check \"\$GITHUB_WORKSPACE\" -s \"\$STACK\" --strict ", step["run"]
    )
