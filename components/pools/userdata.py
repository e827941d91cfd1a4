"""The boot script of a GPU pool instance: start the CloudWatch agent with GPU metrics and logs.

The scale-out/in alarms watch ``CWAgent/nvidia_smi_utilization_gpu`` aggregated by
``AutoScalingGroupName``; nothing publishes that metric unless the agent is told to.
"""

from __future__ import annotations

import base64
import json

AGENT_CONFIG_PATH = "/opt/aws/amazon-cloudwatch-agent/etc/amazon-cloudwatch-agent.json"
AGENT_CTL = "/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl"


def agent_config(log_group_name: str) -> dict[str, object]:
    return {
        "agent": {"metrics_collection_interval": 60},
        "metrics": {
            "namespace": "CWAgent",
            # The agent substitutes ${aws:...} itself; the rolled-up series is what the alarms read.
            "append_dimensions": {"AutoScalingGroupName": "${aws:AutoScalingGroupName}"},
            "aggregation_dimensions": [["AutoScalingGroupName"]],
            "metrics_collected": {
                "nvidia_gpu": {"measurement": ["utilization_gpu", "memory_used", "memory_total"]}
            },
        },
        "logs": {
            "logs_collected": {
                "files": {
                    "collect_list": [
                        {
                            # Present on every image; Amazon Linux 2023 writes no syslog file.
                            "file_path": "/var/log/cloud-init-output.log",
                            "log_group_name": log_group_name,
                            "log_stream_name": "{instance_id}",
                        }
                    ]
                }
            }
        },
    }


def render_user_data(log_group_name: str) -> str:
    """The shell script, plain text. The agent package comes from the Amazon Linux repositories,
    which are S3 buckets reachable through the VPC's S3 gateway endpoint (no internet needed)."""
    config = json.dumps(agent_config(log_group_name), indent=2, sort_keys=True)
    return (
        "#!/bin/bash\n"
        "set -euo pipefail\n"
        "dnf install -y amazon-cloudwatch-agent\n"
        f"cat > {AGENT_CONFIG_PATH} <<'AGENT_CONFIG'\n"
        f"{config}\n"
        "AGENT_CONFIG\n"
        f"{AGENT_CTL} -a fetch-config -m ec2 -s -c file:{AGENT_CONFIG_PATH}\n"
    )


def encoded_user_data(log_group_name: str) -> str:
    """Launch templates take user data base64-encoded."""
    return base64.b64encode(render_user_data(log_group_name).encode()).decode()
