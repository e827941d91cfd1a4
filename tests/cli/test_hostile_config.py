"""Hostile stack files, secrets and shared report directories, through the command line."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gpufleet.cli import write_files_atomically
from tests.cli.helpers import DEV_STACK, ROOT, copy_project, invoke, replace_once
from tests.engine.projects import write_project
from tests.engine.test_project_hostile import ALIAS_BOMB

HOSTILE_STACKS: dict[str, tuple[bytes, str]] = {
    "not utf-8": (
        b"config:\n  aws:region: us-east-\xff1\n",
        "is not UTF-8 text: byte 0xff at line 2, column 23",
    ),
    "600 deep": (
        ("config:\n  gpufleet:fleet: " + "[" * 600 + "]" * 600 + "\n").encode(),
        ": line 2: values are nested more than 64 levels deep",
    ),
    "alias bomb": (ALIAS_BOMB.encode(), ": more than 100,000 values once its aliases (*name) are expanded"),
    "400 digits": (
        ("config:\n  gpufleet:fleet:\n    budget: {monthly: " + "7" * 400 + "}\n").encode(),
        ": config.gpufleet:fleet.budget.monthly (line 3): the integer '" + "7" * 40 + "'… (400 characters)",
    ),
    "infinity": (
        b"config:\n  gpufleet:fleet:\n    budget: {monthly: .inf}\n",
        ": config.gpufleet:fleet.budget.monthly (line 3): '.inf' is not a finite number",
    ),
    "NaN": (b"config:\n  x: .nan\n", ": config.x (line 2): '.nan' is not a finite number"),
    "over 1 MiB": (
        b"config:\n  blob: " + b"y" * (1024 * 1024 + 1) + b"\n",
        ": config.blob (line 2): a value of 1,048,577 characters; at most 1,048,576 are allowed",
    ),
    "pool twice": (
        replace_once(DEV_STACK, "    pools:\n", "    pools:\n      experiments: {size: {max: 1}}\n").encode(),
        ": config.gpufleet:fleet.pools.experiments (line ",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_STACKS))
@pytest.mark.parametrize("command", ["plan", "check", "cost"])
def test_hostile_stack_files_exit_2_fast_naming_file_and_field(
    tmp_path: Path, case: str, command: str
) -> None:
    text, expected = HOSTILE_STACKS[case]
    project = copy_project(tmp_path / "project", {})
    stack_file = project / "stacks" / "Pulumi.qa.yaml"
    stack_file.write_bytes(text)
    result = invoke(command, str(project), "-s", "qa")
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {stack_file}"), result.stderr
    assert expected in result.stderr
    assert len(result.stderr) < 1200  # one paragraph that quotes at most ~200 characters of the value


def test_a_pool_given_twice_names_both_lines(tmp_path: Path) -> None:
    text = replace_once(DEV_STACK, "    pools:\n", "    pools:\n      experiments: {size: {max: 1}}\n")
    project = copy_project(tmp_path / "project", {"qa": text})
    first = text.splitlines().index("      experiments: {size: {max: 1}}") + 1
    second = text.splitlines().index("      experiments:") + 1
    result = invoke("plan", str(project), "-s", "qa")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {project / 'stacks' / 'Pulumi.qa.yaml'}: config.gpufleet:fleet.pools.experiments (line "
        f"{second}): the key 'experiments' is given twice in one mapping, at lines {first} and {second}; "
        "keep one\n"
    )


def test_a_contradicting_env_tag_is_a_spec_error(tmp_path: Path) -> None:
    text = replace_once(DEV_STACK, "cost-center: cc-042}", "cost-center: cc-042, env: prod}")
    project = copy_project(tmp_path / "project", {"qa": text})
    result = invoke("check", str(project), "-s", "qa")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: stacks/Pulumi.qa.yaml: invalid gpufleet:fleet (1 problem):",
        "  stacks/Pulumi.qa.yaml: gpufleet:fleet.tags.env: must name the stack's environment (dev): one of "
        "dev, development, test, sandbox, or be left out (env is then set from environment); got 'prod'. The "
        "guardrails read the environment from this tag, so another one switches the wrong rules on and off",
    ]


# ------------------------------------------------------------------------------ no stack file


def test_a_stack_without_a_stack_file_runs_with_empty_config(tmp_path: Path) -> None:
    program = """\
        import pulumi
        import pulumi_aws as aws
        config = pulumi.Config()
        bucket = aws.s3.Bucket("photos", tags={"owner": config.get("owner") or "nobody"})
        pulumi.export("stack", pulumi.get_stack())
        """
    root = write_project(tmp_path / "example", program, stacks={})
    result = invoke("plan", str(root), "-s", "staging")
    assert result.exit_code == 0, result.stderr
    assert "aws:s3/bucket:Bucket photos" in result.stdout
    assert "│ stack │ staging" in result.stdout
    all_stacks = invoke("check", str(root), "--all-stacks")
    assert all_stacks.exit_code == 2
    assert all_stacks.stderr == f"error: no stack files (Pulumi.<stack>.yaml) in {root}\n"


# ------------------------------------------------------------------------------------ secrets

SECRET_PROGRAM = """\
    import pulumi
    import pulumi_aws as aws
    password = pulumi.Output.secret("hunter2")
    db = aws.rds.Instance(
        "db", instance_class="db.t3.micro", allocated_storage=20, engine="postgres", username="app",
        password=password,
    )
    bucket = aws.s3.Bucket("b", tags={"pw": password, "team": "data"})
    # The mocks derive plain outputs (arn, id) from a secret name: no secret marker survives there.
    named = aws.s3.Bucket("named", bucket=pulumi.Output.secret("bucket-hunter2"))
    pulumi.export("arn", named.arn)
    password.apply(lambda value: print("connecting with", value))
    pulumi.export("password", password)
    pulumi.export("db_password", db.password)
    pulumi.export("nested", {"a": password, "b": [password]})
    pulumi.export("derived", password.apply(lambda value: "prefix-" + value))
    """


def test_plan_never_shows_or_writes_a_secret(tmp_path: Path) -> None:
    root = write_project(tmp_path / "secrets", SECRET_PROGRAM)
    graph_file = tmp_path / "graph.json"
    result = invoke("plan", str(root), "-s", "dev", "--json", str(graph_file))
    assert result.exit_code == 0, result.stderr
    written = graph_file.read_text()
    assert "hunter2" not in written
    assert "hunter2" not in result.stdout
    graph = json.loads(written)
    assert graph["outputs"] == {
        "password": "[secret]",
        "db_password": "[secret]",
        "nested": {"a": "[secret]", "b": ["[secret]"]},
        "derived": "[secret]",
        "arn": graph["outputs"]["arn"],
    }
    assert graph["outputs"]["arn"].startswith("arn:aws:s3:::")
    assert "[secret]" in graph["outputs"]["arn"]
    resources = {r["name"]: r for r in graph["resources"]}
    assert resources["db"]["inputs"]["password"] == "[secret]"
    assert resources["db"]["inputs"]["username"] == "app"
    assert resources["b"]["inputs"]["tags"] == {"pw": "[secret]", "team": "data"}
    assert resources["named"]["inputs"]["bucket"] == "[secret]"
    assert "│ nested      │ a=[secret],b=[secret]" in result.stdout
    assert "note: program printed: connecting with [secret]" in result.stdout
    assert "program printed: connecting with [secret]" in graph["notes"]
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_plan_json_writes_non_finite_numbers_as_strings(tmp_path: Path) -> None:
    program = """\
        import pulumi
        pulumi.export("ratio", float("nan"))
        pulumi.export("limit", float("inf"))
        """
    root = write_project(tmp_path / "nan", program)
    graph_file = tmp_path / "graph.json"
    result = invoke("plan", str(root), "-s", "dev", "--json", str(graph_file))
    assert result.exit_code == 0, result.stderr
    text = graph_file.read_text()
    graph = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    assert graph["outputs"] == {"ratio": "NaN", "limit": "Infinity"}


# ------------------------------------------------------------------------------------ reports


def test_concurrent_writers_into_one_directory_never_collide(tmp_path: Path) -> None:
    targets = [tmp_path / "gpufleet.json", tmp_path / "gpufleet.sarif"]
    failures: list[BaseException] = []

    def writer(tag: str) -> None:
        try:
            for index in range(150):
                body = f"{tag} {index}\n" * 200
                write_files_atomically(dict.fromkeys(targets, body))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("one", "two", "three")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for target in targets:
        lines = target.read_text().splitlines()
        assert len(lines) == 200 and len(set(lines)) == 1  # one writer's whole file, never a mix
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gpufleet.json", "gpufleet.sarif"]


def test_two_check_processes_share_an_output_dir(tmp_path: Path) -> None:
    program = "import pulumi_aws as aws\naws.s3.Bucket('b')\n"
    root = write_project(tmp_path / "small", program, stacks={"dev": "config:\n  aws:region: us-east-1\n"})
    reports = tmp_path / "reports"
    command = [sys.executable, "-m", "gpufleet", "check", str(root), "-s", "dev", "-f", "json,sarif,junit"]
    runs = [
        subprocess.Popen(
            [*command, "-o", str(reports)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    for run in runs:
        _, stderr = run.communicate(timeout=300)
        assert run.returncode in (0, 1), stderr
        assert "Traceback" not in stderr
    assert sorted(p.name for p in reports.iterdir()) == [
        "gpufleet.json",
        "gpufleet.junit.xml",
        "gpufleet.sarif",
    ]
    assert json.loads((reports / "gpufleet.json").read_text())["stacks"][0]["stack"] == "dev"


def test_check_reports_keep_the_default_file_mode(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    reports = tmp_path / "reports"
    result = invoke("check", str(project), "-s", "dev", "-f", "json,markdown", "-o", str(reports))
    assert result.exit_code in (0, 1), result.stderr
    probe = tmp_path / "probe"
    probe.write_text("")
    for path in reports.iterdir():
        assert path.stat().st_mode & 0o777 == probe.stat().st_mode & 0o777, path


@pytest.mark.parametrize("root", [ROOT])
def test_the_repository_stacks_still_load(root: Path) -> None:
    assert invoke("plan", str(root), "-s", "dev").exit_code == 0


def test_redact_cuts_every_secret_form_and_spells_non_finite_numbers() -> None:
    from gpufleet.graph import SECRET_SIG_KEY, make_secret
    from gpufleet.redact import redact, secret_strings

    output_value = {
        SECRET_SIG_KEY: "d0e6a833031e9bbcd3f4e8bde6ca49a4",
        "value": "token-abcdef",
        "secret": True,
    }
    plain_output = {SECRET_SIG_KEY: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "value": "visible", "secret": False}
    document = {
        "a": make_secret({"nested": ["pass-word-1", 5]}),
        "b": output_value,
        "c": plain_output,
        "d": "url https://u:pass-word-1@host and pass-word-1-extended",
        "e": [float("nan"), float("-inf"), 1.5],
        "f": make_secret("short"),
        "g": "short stays: too short to cut out of other text",
    }
    secrets = secret_strings(document)
    assert secrets == {"pass-word-1", "token-abcdef"}
    assert redact(document, secrets) == {
        "a": "[secret]",
        "b": "[secret]",
        "c": plain_output,
        "d": "url https://u:[secret]@host and [secret]-extended",
        "e": ["NaN", "-Infinity", 1.5],
        "f": "[secret]",
        "g": "short stays: too short to cut out of other text",
    }
