"""`gpufleet check --list-stacks`: the workflow's matrix, every stack with the clouds it uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.stacklist import spec_clouds, stack_clouds
from tests.cli.helpers import ROOT, invoke

ALICLOUD_STACK = """\
config:
  alicloud:region: cn-hangzhou
  gpufleet:fleet:
    environment: dev
    pools:
      train: {cloud: alicloud}
"""
HYBRID_STACK = """\
config:
  aws:region: us-east-1
  gpufleet:fleet:
    pools:
      a: {instance_types: [g5.xlarge]}
      b: {cloud: tencentcloud}
    links:
      alicloud:cn-hangzhou: {kind: vpn}
    onprem: {cluster: {kubeconfig_context: lab}}
"""
PLAIN_PROGRAM_STACK = "config:\n  kubernetes:context: lab\n  ml:replicas: 2\n"


def _project(tmp_path: Path, stacks: dict[str, str]) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: ml\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "__main__.py").write_text("")
    (tmp_path / "stacks").mkdir()
    for name, text in stacks.items():
        (tmp_path / "stacks" / f"Pulumi.{name}.yaml").write_text(text)
    return tmp_path


def test_the_repository_lists_every_stack_file_with_its_clouds() -> None:
    run = invoke("check", str(ROOT), "--list-stacks", "--format", "json")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.count("\n") == 1  # one line: $GITHUB_OUTPUT takes it as it is
    entries = json.loads(run.stdout)
    files = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))
    assert [e["name"] for e in entries] == files
    by_name = {e["name"]: e for e in entries}
    assert by_name["dev"] == {"name": "dev", "stack_file": "stacks/Pulumi.dev.yaml", "clouds": ["aws"]}
    assert by_name["account"]["clouds"] == ["aws"]


def test_clouds_come_from_provider_config_and_the_fleet_spec(tmp_path: Path) -> None:
    project = _project(tmp_path, {"cn": ALICLOUD_STACK, "hybrid": HYBRID_STACK, "k8s": PLAIN_PROGRAM_STACK})
    run = invoke("check", str(project), "--list-stacks", "--format", "json")
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout) == [
        {"name": "cn", "stack_file": "stacks/Pulumi.cn.yaml", "clouds": ["alicloud"]},
        {
            "name": "hybrid",
            "stack_file": "stacks/Pulumi.hybrid.yaml",
            "clouds": ["aws", "alicloud", "tencentcloud", "kubernetes"],
        },
        {"name": "k8s", "stack_file": "stacks/Pulumi.k8s.yaml", "clouds": ["kubernetes"]},
    ]
    text = invoke("check", str(project), "--list-stacks", "--format", "text")
    assert text.stdout.splitlines() == [
        "cn      alicloud  stacks/Pulumi.cn.yaml",
        "hybrid  aws,alicloud,tencentcloud,kubernetes  stacks/Pulumi.hybrid.yaml",
        "k8s     kubernetes  stacks/Pulumi.k8s.yaml",
    ]


def test_a_broken_fleet_spec_is_still_listed(tmp_path: Path) -> None:
    """Validation is the stack's own check job: one bad spec must not empty the whole matrix."""
    project = _project(tmp_path, {"bad": "config:\n  gpufleet:fleet: {pools: 7}\n", "ok": ALICLOUD_STACK})
    run = invoke("check", str(project), "--list-stacks")
    assert run.exit_code == 0, run.stderr
    assert [(e["name"], e["clouds"]) for e in json.loads(run.stdout)] == [("bad", []), ("ok", ["alicloud"])]


@pytest.mark.parametrize(
    ("fleet", "clouds"),
    [
        ({"pools": {"a": {}}}, {"aws"}),
        ('{"pools": {"a": {"cloud": "tencentcloud"}}}', {"tencentcloud"}),
        ({"pools": {"a": {"cloud": "gcp"}}, "links": {"azure:x": {}}}, set()),
        ("not json", set()),
        ({"pools": ["a"], "links": "x"}, set()),
    ],
)
def test_spec_clouds_read_leniently(fleet: object, clouds: set[str]) -> None:
    assert spec_clouds(fleet) == clouds


def test_account_baseline_runs_on_aws() -> None:
    assert stack_clouds({"gpufleet:account": {}, "pulumi:tags": {}}) == ("aws",)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "sarif"], "--format 'sarif' is not allowed with --list-stacks; allowed: json, text"),
        (["-s", "dev"], "--list-stacks lists every stack on stdout: drop -s/--all-stacks/--output-dir"),
        (["--all-stacks"], "--list-stacks lists every stack on stdout: drop -s/--all-stacks/--output-dir"),
    ],
)
def test_bad_combinations_exit_2(args: list[str], message: str) -> None:
    run = invoke("check", str(ROOT), "--list-stacks", *args)
    assert run.exit_code == 2
    assert run.stdout == ""
    assert message in " ".join(run.stderr.split())


def test_a_project_without_stacks_exits_2(tmp_path: Path) -> None:
    project = _project(tmp_path, {})
    run = invoke("check", str(project), "--list-stacks")
    assert run.exit_code == 2
    assert "no stack files (Pulumi.<stack>.yaml) in" in run.stderr
    assert "matrix would be empty" in " ".join(run.stderr.split())


def test_a_bad_stack_file_exits_2_naming_it(tmp_path: Path) -> None:
    project = _project(tmp_path, {"dev": "config: [1, 2\n"})
    run = invoke("check", str(project), "--list-stacks")
    assert run.exit_code == 2
    assert "Pulumi.dev.yaml is not valid YAML" in " ".join(run.stderr.split())


def test_a_stack_name_a_shell_would_read_is_refused(tmp_path: Path) -> None:
    """The workflow loops over the names in bash: only [A-Za-z0-9_.-] may reach it."""
    project = _project(tmp_path, {"ok": ALICLOUD_STACK, "a$(id)": "config: {}\n"})
    run = invoke("check", str(project), "--list-stacks")
    assert run.exit_code == 2
    assert run.stdout == ""
    assert "stack name 'a$(id)' is not valid: use letters, digits, '-', '_' and '.'" in " ".join(
        run.stderr.split()
    )
