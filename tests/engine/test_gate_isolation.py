"""The program `gpufleet check` judges cannot forge, stop or outlive the judge.

Each program here is what a hostile author of a pull request would write against the gate: every one
ends with a verdict the program did not choose, or exit 2 and one paragraph, never a hang, a traceback,
exit 0 or code of the program running in the judge.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpufleet import sandbox, sandbox_child, sandbox_protocol
from tests.engine.projects import write_project

ROOT = Path(__file__).resolve().parents[2]
SSH_OPEN = (
    "import pulumi_aws as aws\n"
    "aws.ec2.SecurityGroup('open', ingress=[{'protocol': 'tcp', 'from_port': 22, 'to_port': 22, "
    "'cidr_blocks': ['0.0.0.0/0']}])\n"
)

namespaces = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the judge is isolated by Linux namespaces"
)


def _project(root: Path, program: str) -> Path:
    return write_project(root, program, stacks={"dev": "config:\n  aws:region: us-east-1\n"})


def _check(root: Path, *extra: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufleet", "check", str(root), "-s", "dev", "--no-checkov", *extra],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _ssh_rule_failed(completed: subprocess.CompletedProcess[str]) -> bool:
    report = json.loads(completed.stdout)
    return any(v["rule_id"] == "GF-ACC-001" for v in report["stacks"][0]["violations"])


@namespaces
def test_a_program_cannot_plant_a_result_that_runs_code_in_the_judge(tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    program = SSH_OPEN + (
        "import glob, os, pickle\n"
        "class Evil:\n"
        "    def __reduce__(self):\n"
        f"        return (os.system, ('touch {planted}',))\n"
        "for d in glob.glob('/tmp/gpufleet-run-*'):\n"
        "    try:\n"
        "        open(d + '/result.pickle', 'wb').write(pickle.dumps(('ok', Evil())))\n"
        "    except OSError:\n"
        "        pass\n"
    )
    completed = _check(_project(tmp_path / "p", program))
    assert not planted.exists()
    assert completed.returncode == 1, completed.stderr
    assert _ssh_rule_failed(completed)


@namespaces
def test_a_forged_result_on_the_channel_is_data_and_is_refused(tmp_path: Path) -> None:
    """The program writes its own JSON on every descriptor and exits: nothing it wrote is a verdict."""
    program = SSH_OPEN + (
        "import json, os\n"
        "forged = json.dumps({'kind': 'ok', 'value': {'resources': 'none'}}).encode()\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, forged)\n"
        "    except OSError:\n"
        "        pass\n"
        "os.closerange(3, 64)\n"
    )
    completed = _check(_project(tmp_path / "p", program))
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert "Traceback" not in completed.stderr
    assert completed.stderr.startswith("error: the run of the program __main__.py sent back a result")


@namespaces
@pytest.mark.parametrize("sig", ["SIGSTOP", "SIGTERM", "SIGKILL"])
def test_the_program_cannot_signal_the_judge(sig: str, tmp_path: Path) -> None:
    program = SSH_OPEN + (
        "import os, signal\n"
        f"for target in (os.getppid(), 1, -1):\n"
        "    try:\n"
        f"        os.kill(target, signal.{sig})\n"
        "    except OSError:\n"
        "        pass\n"
    )
    completed = _check(_project(tmp_path / "p", program), timeout=60)
    assert completed.returncode == 1, completed.stderr
    assert _ssh_rule_failed(completed)


@namespaces
def test_closing_every_descriptor_is_exit_2_with_a_message(tmp_path: Path) -> None:
    completed = _check(_project(tmp_path / "p", SSH_OPEN + "import os\nos.closerange(0, 1024)\n"))
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.splitlines() == [
        "error: the program __main__.py ended the process running it (exit status 0) before it finished; "
        "nothing is reported"
    ]


@namespaces
def test_the_program_cannot_rewrite_what_the_judge_reads_after_it(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", SSH_OPEN)
    config = root / "policy-config.json"
    config.write_text("{}\n")
    program = SSH_OPEN + (f"open({str(config)!r}, 'w').write('{{\"all\": \"disabled\"}}')\n")
    (root / "__main__.py").write_text(program)
    completed = _check(root)
    assert config.read_text() == "{}\n"
    assert completed.returncode == 2
    assert "Read-only file system" in completed.stderr


@namespaces
def test_the_program_sees_none_of_the_judges_processes(tmp_path: Path) -> None:
    program = (
        "import os\nimport pulumi\n"
        "pulumi.export('pids', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "pulumi.export('ppid', os.getppid())\n"
    )
    from gpufleet.engine import run_program

    graph = run_program(_project(tmp_path / "p", program), "dev", timeout=60)
    # Its parent is the namespace's init, process 1; nothing outside the namespace is listed.
    assert graph.outputs["ppid"] == 1
    assert graph.outputs["pids"] == [1, 2]
    assert sandbox.isolation().namespaces


def test_sigterm_to_the_judge_is_exit_2_with_a_message(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", "import time\ntime.sleep(600)\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "gpufleet", "check", str(root), "-s", "dev", "--no-checkov"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    time.sleep(8)  # past the imports, into the run
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 2
    assert stdout == ""
    assert stderr.splitlines() == [
        "error: gpufleet was stopped by SIGTERM while the program __main__.py ran; the program and every "
        "process it started were killed and nothing was judged"
    ]


def test_without_namespaces_the_run_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufleet.engine import run_program

    monkeypatch.setenv(sandbox_child.ISOLATION_ENV, "off")
    graph = run_program(_project(tmp_path / "p", SSH_OPEN), "dev", timeout=60)
    assert not sandbox.isolation().namespaces
    assert f"the program ran without isolation: {sandbox_child.ISOLATION_ENV}=off" in graph.notes


def test_a_result_nested_too_deep_is_refused_before_parsing() -> None:
    deep = b"[" * (sandbox_protocol.MAX_DEPTH + 1) + b"]" * (sandbox_protocol.MAX_DEPTH + 1)
    with pytest.raises(sandbox.BadResult, match="nested deeper than 200 levels"):
        sandbox_protocol.parse_json(deep)
    assert sandbox_protocol.parse_json(b'{"a": ["[[[["]}') == {"a": ["[[[["]}


def test_strict_refuses_a_program_that_ran_without_isolation(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", SSH_OPEN)
    completed = subprocess.run(
        [sys.executable, "-m", "gpufleet", "check", str(root), "-s", "dev", "--no-checkov", "--strict"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), sandbox_child.ISOLATION_ENV: "off"},
    )
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.startswith(
        "error: --strict judges a program only when it runs isolated from the judge, and this one could "
        "not be (GPUFLEET_ISOLATION=off): on Linux allow unprivileged user namespaces"
    )


@namespaces
def test_the_program_has_no_network_and_no_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpufleet.engine import run_program

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-for-the-program")
    monkeypatch.setenv("GITHUB_TOKEN", "not-for-the-program")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    program = (
        "import os, socket\nimport pulumi\n"
        "pulumi.export('interfaces', [name for _, name in socket.if_nameindex()])\n"
        "pulumi.export('environment', sorted(k for k in os.environ if k.startswith(('AWS_', 'GITHUB_'))))\n"
    )
    graph = run_program(_project(tmp_path / "p", program), "dev", timeout=60)
    assert graph.outputs["interfaces"] == ["lo"]
    assert "AWS_REGION" in graph.outputs["environment"]
    assert not {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"} & set(graph.outputs["environment"])
