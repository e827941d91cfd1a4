"""`.github/workflows/gpufleet-preview.yml`, the reusable workflow adopters call: its security-relevant
parts pinned (who may ask for an OIDC token, what writes, pinned actions, nothing secret in a log)."""

from __future__ import annotations

import re
from typing import Any

from gpufleet import safe_yaml
from tests.cli.helpers import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "gpufleet-preview.yml"
TEXT = WORKFLOW.read_text()
DOC: dict[Any, Any] = safe_yaml.load(WORKFLOW, TEXT)
JOBS: dict[str, dict[str, Any]] = DOC["jobs"]
GUARDRAILS = (ROOT / ".github" / "workflows" / "guardrails.yml").read_text()

USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<comment>.*)$")
PINNED = re.compile(r"(?P<action>[\w.-]+/[\w.-]+(?:/[\w./-]+)?)@(?P<sha>[0-9a-f]{40})")
VERSION_COMMENT = re.compile(r"\s+# v\d+\.\d+\.\d+$")
FORK = "!github.event.pull_request.head.repo.fork"


def _steps(job: str) -> list[dict[str, Any]]:
    return list(JOBS[job]["steps"])


def _all_steps() -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name in JOBS for step in _steps(name)]


def _uses(action: str) -> list[tuple[str, dict[str, Any]]]:
    return [(job, s) for job, s in _all_steps() if str(s.get("uses", "")).split("@")[0] == action]


def test_it_is_called_never_triggered() -> None:
    triggers = DOC.get("on", DOC.get(True))
    assert list(triggers) == ["workflow_call"]
    call = triggers["workflow_call"]
    assert call["inputs"]["gpufleet-version"] == {
        "description": call["inputs"]["gpufleet-version"]["description"],
        "required": True,
        "type": "string",
    }
    # the one secret it can take is Pulumi Cloud's token, and only for want of a self-managed backend
    assert list(call["secrets"]) == ["PULUMI_ACCESS_TOKEN"]
    assert call["secrets"]["PULUMI_ACCESS_TOKEN"]["required"] is False
    assert call["inputs"]["backend-url"]["default"] == ""


def test_every_action_is_pinned_by_sha_as_in_the_guardrails_workflow() -> None:
    lines = [m for line in TEXT.splitlines() if (m := USES_LINE.match(line))]
    assert len(lines) == sum(1 for _, s in _all_steps() if "uses" in s) > 0
    for match in lines:
        pinned = PINNED.fullmatch(match["ref"])
        assert pinned is not None, f"{match['ref']} is not pinned by a full commit SHA"
        assert VERSION_COMMENT.fullmatch(match["comment"]), f"{match['ref']} has no `# vX.Y.Z` comment"
        action = pinned["action"]
        if action + "@" in GUARDRAILS:
            # one action, one pin across the repository's workflows
            assert f"{match['ref']}{match['comment']}" in GUARDRAILS, action
    assert {PINNED.fullmatch(m["ref"])["action"] for m in lines} == {  # type: ignore[index]
        "actions/checkout",
        "actions/setup-python",
        "actions/upload-artifact",
        "actions/download-artifact",
        "aws-actions/configure-aws-credentials",
        "aliyun/configure-aliyun-credentials-action",
        "pulumi/actions",
        "pulumi/auth-actions",
        "github/codeql-action/upload-sarif",
    }


def test_the_token_grants_nothing_unless_a_job_asks_and_only_the_preview_gets_oidc() -> None:
    assert DOC["permissions"] == {}
    assert {name: job["permissions"] for name, job in JOBS.items()} == {
        "stacks": {"contents": "read"},
        "check": {"contents": "read"},
        "preview": {"contents": "read", "id-token": "write"},
        "report": {
            "contents": "read",
            "actions": "read",
            "security-events": "write",
            "pull-requests": "write",
        },
    }
    # the job that writes runs nothing of the change: it reads reports, uploads and comments
    report_runs = [s["run"] for s in _steps("report") if "run" in s]
    assert len(report_runs) == 1 and "gh api" in report_runs[0]
    assert not re.search(r"\bpip\b|\bpulumi\b|gpufleet\" check|python", report_runs[0])
    # the comment is written with the job's own token, found by its marker and edited, never a second one
    [comment] = [s for s in _steps("report") if "run" in s]
    assert comment["if"] == "${{ github.event_name == 'pull_request' }}"
    assert comment["env"] == {
        "GH_TOKEN": "${{ github.token }}",
        "PR": "${{ github.event.pull_request.number }}",
    }
    run = comment["run"]
    assert "marker='<!-- gpufleet-preview -->'" in run
    assert 'gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F body=@comment.md' in run
    assert 'gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$PR/comments" -F body=@comment.md' in run
    assert run.index('if [ -n "$id" ]') < run.index("--method PATCH") < run.index("--method POST")


def test_every_checkout_leaves_no_token_behind() -> None:
    checkouts = _uses("actions/checkout")
    assert {job for job, _ in checkouts} == set(JOBS)
    assert all(step["with"]["persist-credentials"] is False for _, step in checkouts)


def test_the_three_clouds_sign_in_through_oidc_for_an_hour_each_only_where_the_stack_uses_them() -> None:
    (aws,) = _uses("aws-actions/configure-aws-credentials")
    (alicloud,) = _uses("aliyun/configure-aliyun-credentials-action")
    assert aws[0] == alicloud[0] == "preview"
    assert aws[1]["if"] == "${{ contains(matrix.stack.clouds, 'aws') }}"
    assert aws[1]["with"]["role-to-assume"] == "${{ inputs.aws-role-arn }}"
    assert aws[1]["with"]["role-duration-seconds"] == 3600
    assert alicloud[1]["if"] == "${{ contains(matrix.stack.clouds, 'alicloud') }}"
    assert alicloud[1]["with"] == {
        "role-to-assume": "${{ inputs.alicloud-role-arn }}",
        "oidc-provider-arn": "${{ inputs.alicloud-oidc-provider-arn }}",
        "audience": "sts.aliyuncs.com",
        "role-session-name": "gpufleet-preview-${{ github.run_id }}",
        "role-session-expiration": 3600,
    }
    (tencent,) = [s for s in _steps("preview") if "CAM" in str(s.get("name"))]
    assert tencent["if"] == "${{ contains(matrix.stack.clouds, 'tencentcloud') }}"
    run = tencent["run"]
    assert "audience=sts.tencentcloudapi.com" in run
    assert "TENCENTCLOUD_ASSUME_ROLE_SESSION_DURATION=3600" in run
    # the token is masked before it is written anywhere, and never echoed to the log
    assert run.index('echo "::add-mask::$token"') < run.index("TENCENTCLOUD_ASSUME_ROLE_WEB_IDENTITY_TOKEN")
    assert 'echo "TENCENTCLOUD_ASSUME_ROLE_WEB_IDENTITY_TOKEN=$token"' in run
    assert run.count("$token") == 4  # two emptiness tests, masked, written to GITHUB_ENV
    names = [s.get("name") for s in _steps("preview")]
    assert names.index(tencent["name"]) == names.index("pulumi preview with the policy pack") - 1


def test_no_secret_reaches_a_log() -> None:
    runs = [s["run"] for _, s in _all_steps() if "run" in s]
    assert not any(re.search(r"set -x|set -o xtrace|\benv\b\s*$|printenv", run, re.M) for run in runs)
    # a Pulumi token, exchanged or stored, reaches only the two steps that log in and preview, through env
    holders = [(job, s.get("name")) for job, s in _all_steps() if "secrets." in str(s)]
    assert holders == [("preview", "The state backend"), ("preview", "pulumi preview with the policy pack")]
    for _, step in _all_steps():
        if "secrets." in str(step):
            assert step["env"]["PULUMI_ACCESS_TOKEN"] == (
                "${{ steps.pulumi-token.outputs.pulumi-access-token || secrets.PULUMI_ACCESS_TOKEN }}"
            )
    # values reach scripts through env, never pasted in (template injection)
    assert [run for run in runs if "${{" in run] == []


def test_pulumi_cloud_gets_an_hour_long_token_through_oidc_not_a_stored_one() -> None:
    ((job, exchange),) = _uses("pulumi/auth-actions")
    assert job == "preview"
    assert exchange["if"] == "${{ inputs.backend-url == '' && inputs.pulumi-organization != '' }}"
    assert exchange["with"] == {
        "organization": "${{ inputs.pulumi-organization }}",
        "requested-token-type": "urn:pulumi:token-type:access_token:organization",
        "token-expiration": 3600,
        "export-environment-variables": False,
    }
    names = [s.get("name") for s in _steps("preview")]
    assert names.index(exchange["name"]) < names.index("The state backend")


def test_a_self_managed_backend_needs_no_pulumi_token() -> None:
    (login,) = [s for s in _steps("preview") if s.get("name") == "The state backend"]
    assert login["env"]["BACKEND_URL"] == "${{ inputs.backend-url }}"
    run = login["run"]
    assert run.index('pulumi login "$BACKEND_URL"') < run.index("pulumi login\n")
    assert 'if [ -n "$BACKEND_URL" ]; then' in run


def test_every_stack_is_checked_and_previewed_with_the_pinned_pack_and_the_base_config() -> None:
    (listing,) = [s for s in _steps("stacks") if s.get("id") == "list"]
    assert '"$RUNNER_TEMP/judge/venv/bin/gpufleet" check --list-stacks --format json' in listing["run"]
    assert JOBS["preview"]["strategy"]["matrix"] == {"stack": "${{ fromJSON(needs.stacks.outputs.matrix) }}"}
    (check,) = [s for s in _steps("check") if s.get("id") == "check"]
    assert (
        '"$RUNNER_TEMP/judge/venv/bin/gpufleet" check --all-stacks --strict "${platform[@]}"' in check["run"]
    )
    assert "git show HEAD^1:./policy-config.json" in check["run"]
    (preview,) = [s for s in _steps("preview") if s.get("id") == "preview"]
    assert '--policy-pack "$RUNNER_TEMP/judge/pack"' in preview["run"]
    assert '--policy-pack-config "$RUNNER_TEMP/judge/policy-config.json"' in preview["run"]
    (pack,) = [s for s in _steps("preview") if "pinned policy pack" in str(s.get("name"))]
    # the pack runs in the judge's environment, never the change's .venv
    assert "'    virtualenv: ../venv'" in pack["run"]
    assert 'runpy.run_module("gpufleet.policies", run_name="__main__")' in pack["run"]
    for job in ("stacks", "check", "preview"):
        assert "gpufleet @ git+https://github.com/gpufleet/gpufleet@v$GPUFLEET_VERSION" in str(JOBS[job])
    assert DOC["env"]["GPUFLEET_VERSION"] == "${{ inputs.gpufleet-version }}"


def test_forks_get_the_offline_check_only() -> None:
    assert "if" not in JOBS["stacks"] and "if" not in JOBS["check"]
    assert FORK in " ".join(JOBS["preview"]["if"].split())
    assert FORK in JOBS["report"]["if"]


def test_sarif_and_exactly_one_comment_updated_on_re_runs() -> None:
    assert [job for job, _ in _uses("github/codeql-action/upload-sarif")] == ["report"]
    (upload,) = [s for _, s in _uses("github/codeql-action/upload-sarif")]
    assert upload["with"] == {"sarif_file": "reports/gpufleet-check/gpufleet.sarif", "category": "gpufleet"}
    (comment,) = [s for s in _steps("report") if s.get("name") == "The PR comment"]
    run = comment["run"]
    assert "marker='<!-- gpufleet-preview -->'" in run
    assert 'select(.body | startswith(\\"$marker\\")) | .id" | head -n 1' in run
    assert 'gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F body=@comment.md' in run
    assert 'gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$PR/comments" -F body=@comment.md' in run
    assert run.count("--method POST") == 1
