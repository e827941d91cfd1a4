from __future__ import annotations

import base64
import json
from pathlib import Path

from components.pools.aws import GpuPool
from components.pools.userdata import AGENT_CONFIG_PATH, render_user_data

from .builders import pool_args
from .conftest import Runner

GOLDEN = Path(__file__).parent / "golden" / "user_data.sh"
LOG_GROUP = "/gpufleet/gpufleet-dev/agent"


def test_user_data_matches_the_golden_script() -> None:
    assert render_user_data(LOG_GROUP) == GOLDEN.read_text()


def test_agent_config_publishes_the_metric_the_alarms_read() -> None:
    script = render_user_data(LOG_GROUP)
    config = json.loads(script.split("<<'AGENT_CONFIG'\n", 1)[1].split("\nAGENT_CONFIG\n", 1)[0])
    assert config["metrics"]["namespace"] == "CWAgent"
    assert config["metrics"]["aggregation_dimensions"] == [["AutoScalingGroupName"]]
    assert "utilization_gpu" in config["metrics"]["metrics_collected"]["nvidia_gpu"]["measurement"]
    assert config["logs"]["logs_collected"]["files"]["collect_list"][0]["log_group_name"] == LOG_GROUP
    assert f"-c file:{AGENT_CONFIG_PATH}" in script


def test_pool_launch_template_carries_the_encoded_script(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: GpuPool("pool", pool_args(agent_log_group_name=LOG_GROUP)))
    lt = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt").inputs
    assert base64.b64decode(lt["userData"]).decode() == GOLDEN.read_text()
