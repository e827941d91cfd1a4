"""The boot script of a GPU pool instance: start the CloudWatch agent with GPU metrics and logs.

The scale-out/in alarms watch ``CWAgent/nvidia_smi_utilization_gpu`` aggregated by
``AutoScalingGroupName`` and ``Stack``; nothing publishes that metric unless the agent is told to.
The group-name dimension makes the agent read the instance's tags (``ec2:DescribeTags`` through the
``ec2`` endpoint); the stack dimension is written into the configuration, so two stacks never share a
series even where their group names could meet.

No step may stop the boot: the images enable repositories (NVIDIA's, for one) that private subnets
cannot reach, and a failed refresh under ``set -e`` would end the script before the agent starts.
Each step that can fail says so in the boot log (``/var/log/cloud-init-output.log``) and the script
goes on.
"""

from __future__ import annotations

import base64
import json

from components.pools.scaling import GROUP_DIMENSION, STACK_DIMENSION

AGENT_CONFIG_PATH = "/opt/aws/amazon-cloudwatch-agent/etc/amazon-cloudwatch-agent.json"
AGENT_CTL = "/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl"
AGENT_PACKAGE = "amazon-cloudwatch-agent"


def agent_config(log_group_name: str, stack: str) -> dict[str, object]:
    return {
        "agent": {"metrics_collection_interval": 60},
        "metrics": {
            "namespace": "CWAgent",
            # The agent substitutes ${aws:...} itself; the rolled-up series is what the alarms read.
            "append_dimensions": {GROUP_DIMENSION: f"${{aws:{GROUP_DIMENSION}}}"},
            "aggregation_dimensions": [[GROUP_DIMENSION, STACK_DIMENSION]],
            "metrics_collected": {
                "nvidia_gpu": {
                    "measurement": ["utilization_gpu", "memory_used", "memory_total"],
                    # A plugin's own dimensions may carry any value; the global ones only ${aws:...}.
                    "append_dimensions": {STACK_DIMENSION: stack},
                }
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


def render_user_data(log_group_name: str, stack: str) -> str:
    """The shell script, plain text. The images ship the agent; when one does not, it is installed
    from the distribution's repositories (S3 buckets, reachable through the VPC's S3 gateway
    endpoint), skipping any other repository the image enables rather than failing on it."""
    config = json.dumps(agent_config(log_group_name, stack), indent=2, sort_keys=True)
    install = f"install -y --setopt=skip_if_unavailable=True {AGENT_PACKAGE}"
    return (
        "#!/bin/bash\n"
        "# No set -e: a step that fails is logged and the boot goes on.\n"
        "set -uo pipefail\n"
        'log() { echo "gpufleet-boot: $*" >&2; }\n'
        f"if [ ! -x {AGENT_CTL} ]; then\n"
        "  if command -v dnf >/dev/null 2>&1; then\n"
        f'    dnf {install} || log "dnf could not install {AGENT_PACKAGE}"\n'
        "  elif command -v yum >/dev/null 2>&1; then\n"
        f'    yum {install} || log "yum could not install {AGENT_PACKAGE}"\n'
        "  else\n"
        f'    log "no dnf or yum to install {AGENT_PACKAGE}: use an image that ships it"\n'
        "  fi\n"
        "fi\n"
        f"mkdir -p {AGENT_CONFIG_PATH.rsplit('/', 1)[0]}\n"
        f"cat > {AGENT_CONFIG_PATH} <<'AGENT_CONFIG'\n"
        f"{config}\n"
        "AGENT_CONFIG\n"
        f"if [ -x {AGENT_CTL} ]; then\n"
        f"  {AGENT_CTL} -a fetch-config -m ec2 -s -c file:{AGENT_CONFIG_PATH} \\\n"
        '    || log "the CloudWatch agent did not start: no GPU metric, the GPU alarms stay silent"\n'
        "else\n"
        '  log "no CloudWatch agent: no GPU metric, the GPU alarms stay silent"\n'
        "fi\n"
    )


def encoded_user_data(log_group_name: str, stack: str) -> str:
    """Launch templates take user data base64-encoded."""
    return base64.b64encode(render_user_data(log_group_name, stack).encode()).decode()
