from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gpufleet.components.pools.aws import GpuPool
from gpufleet.components.pools.aws_userdata import AGENT_CONFIG_PATH, AGENT_CTL, render_user_data

from .builders import STACK, pool_args
from .conftest import Runner

GOLDEN = Path(__file__).parent / "golden" / "user_data.sh"
LOG_GROUP = "/gpufleet/gpufleet-dev/agent"
AGENT_ROOT = "/opt/aws/amazon-cloudwatch-agent"


def _config(script: str) -> dict[str, object]:
    config: dict[str, object] = json.loads(
        script.split("<<'AGENT_CONFIG'\n", 1)[1].split("\nAGENT_CONFIG\n", 1)[0]
    )
    return config


def test_user_data_matches_the_golden_script() -> None:
    assert render_user_data(LOG_GROUP, STACK) == GOLDEN.read_text()


def test_agent_config_publishes_the_metric_the_alarms_read() -> None:
    script = render_user_data(LOG_GROUP, STACK)
    metrics = _config(script)["metrics"]
    assert isinstance(metrics, dict)
    # The stack's own namespace, the only one its role may publish to (not the shared CWAgent).
    assert metrics["namespace"] == "gpufleet/gpufleet/test"
    # The group name comes from the instance's tags (ec2:DescribeTags); the stack is written in.
    assert metrics["append_dimensions"] == {"AutoScalingGroupName": "${aws:AutoScalingGroupName}"}
    gpu = metrics["metrics_collected"]["nvidia_gpu"]
    assert gpu["append_dimensions"] == {"Stack": "gpufleet/test"}
    assert "utilization_gpu" in gpu["measurement"]
    # The rolled-up series the alarms read carries both, so two stacks never share one.
    assert metrics["aggregation_dimensions"] == [["AutoScalingGroupName", "Stack"]]
    logs = _config(script)["logs"]
    assert isinstance(logs, dict)
    assert logs["logs_collected"]["files"]["collect_list"][0]["log_group_name"] == LOG_GROUP
    assert f"-c file:{AGENT_CONFIG_PATH}" in script


def test_no_step_can_abort_the_boot() -> None:
    script = render_user_data(LOG_GROUP, STACK)
    assert "set -e" not in script.replace("No set -e", "")
    assert "set -uo pipefail" in script


def test_pool_launch_template_carries_the_encoded_script(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: GpuPool("pool", pool_args(agent_log_group_name=LOG_GROUP)))
    lt = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt").inputs
    assert base64.b64decode(lt["userData"]).decode() == GOLDEN.read_text()


# --- the script run for real, with the agent's directory moved under a temporary root ---------------

FAKE_CTL = '#!/bin/bash\necho "$@" > "$(dirname "$0")/ctl-called"\n'


def _boot(tmp_path: Path, *, ships_agent: bool, dnf: str | None) -> subprocess.CompletedProcess[str]:
    root = tmp_path / "agent"
    (root / "bin").mkdir(parents=True)
    if ships_agent:
        ctl = root / "bin" / "amazon-cloudwatch-agent-ctl"
        ctl.write_text(FAKE_CTL)
        ctl.chmod(0o755)
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("cat", "chmod", "dirname", "mkdir", "printf"):
        found = shutil.which(tool)
        assert found is not None
        (tools / tool).symlink_to(found)
    if dnf is not None:
        (tools / "dnf").write_text(dnf.replace("@ROOT@", str(root)))
        (tools / "dnf").chmod(0o755)
    script = render_user_data(LOG_GROUP, STACK).replace(AGENT_ROOT, str(root))
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, "-c", script], env={"PATH": str(tools)}, capture_output=True, text=True, check=False
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_an_unreachable_repository_does_not_stop_the_boot(tmp_path: Path) -> None:
    # dnf fails the way it does when an image's extra repository cannot be reached from a private subnet.
    failing_dnf = '#!/bin/bash\necho "Failed to download metadata for repo cuda" >&2\nexit 1\n'
    result = _boot(tmp_path, ships_agent=False, dnf=failing_dnf)
    assert result.returncode == 0, result.stderr
    assert "gpufleet-boot: dnf could not install amazon-cloudwatch-agent" in result.stderr
    assert "gpufleet-boot: no CloudWatch agent: no GPU metric" in result.stderr
    written = tmp_path / "agent" / "etc" / "amazon-cloudwatch-agent.json"
    assert json.loads(written.read_text())["metrics"]["namespace"] == "gpufleet/gpufleet/test"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_an_image_that_ships_the_agent_installs_nothing(tmp_path: Path) -> None:
    never = '#!/bin/bash\necho "dnf must not run" >&2\nexit 1\n'
    result = _boot(tmp_path, ships_agent=True, dnf=never)
    assert (result.returncode, result.stderr) == (0, "")
    called = (tmp_path / "agent" / "bin" / "ctl-called").read_text().split()
    config = str(tmp_path / "agent" / "etc" / "amazon-cloudwatch-agent.json")
    assert called == ["-a", "fetch-config", "-m", "ec2", "-s", "-c", f"file:{config}"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_missing_agent_is_installed_skipping_unreachable_repositories(tmp_path: Path) -> None:
    installing_dnf = (
        "#!/bin/bash\n"
        'echo "$@" > @ROOT@/dnf-args\n'
        f"printf '%s' '{FAKE_CTL}' > @ROOT@/bin/amazon-cloudwatch-agent-ctl\n"
        "chmod 755 @ROOT@/bin/amazon-cloudwatch-agent-ctl\n"
    )
    result = _boot(tmp_path, ships_agent=False, dnf=installing_dnf)
    assert (result.returncode, result.stderr) == (0, "")
    args = (tmp_path / "agent" / "dnf-args").read_text().split()
    assert args == ["install", "-y", "--setopt=skip_if_unavailable=True", "amazon-cloudwatch-agent"]
    assert (tmp_path / "agent" / "bin" / "ctl-called").read_text().startswith("-a fetch-config")


def test_agent_path_is_the_one_the_script_runs() -> None:
    assert AGENT_CTL.startswith(AGENT_ROOT) and AGENT_CONFIG_PATH.startswith(AGENT_ROOT)


def test_the_gpu_alarms_read_the_series_the_agent_rolls_up(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: GpuPool("pool", pool_args(agent_log_group_name=LOG_GROUP)))
    lt = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt").inputs
    metrics = _config(base64.b64decode(lt["userData"]).decode())["metrics"]
    assert isinstance(metrics, dict)
    gpu = metrics["metrics_collected"]["nvidia_gpu"]
    # The scale-in alarm is metric math (GPU while the queue is empty): its GPU query is the series.
    gpu_alarms = [
        query.get("metric", query)
        for a in mocks.of_type("aws:cloudwatch/metricAlarm:MetricAlarm")
        for query in a.inputs.get("metricQueries", [a.inputs])
        if query.get("metric", query).get("namespace") == metrics["namespace"]
    ]
    assert len(gpu_alarms) == 2
    for alarm in gpu_alarms:
        # The agent names its GPU metrics nvidia_smi_<measurement>.
        assert alarm["metricName"].removeprefix("nvidia_smi_") in gpu["measurement"]
        assert [sorted(alarm["dimensions"])] == [sorted(d) for d in metrics["aggregation_dimensions"]]
        assert alarm["dimensions"]["Stack"] == gpu["append_dimensions"]["Stack"] == STACK
