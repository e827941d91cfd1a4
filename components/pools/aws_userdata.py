"""The boot script of an AWS pool instance: start the CloudWatch agent with GPU metrics and logs, then the
workload (:func:`gpufleet.components.pools.userdata.render_workload`).

The scale-out/in alarms watch ``nvidia_smi_utilization_gpu`` in the stack's own namespace
(:func:`agent_namespace`, ``gpufleet/<project>/<stack>``) aggregated by ``AutoScalingGroupName`` and
``Stack``; nothing publishes that metric unless the agent is told to. The instance role may publish to
that namespace only (``cloudwatch:namespace``), so no other stack's node (a dev node, say) can publish
the series a production pool scales on, as it could in the agent's shared default ``CWAgent``.
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
import shlex

from gpufleet.components.pools.facts.aws import GROUP_TAG
from gpufleet.components.pools.scaling import GROUP_DIMENSION, STACK_DIMENSION
from gpufleet.components.pools.userdata import WorkloadContext, render_workload
from gpufleet.components.pools.workload import MAX_USER_DATA_BYTES

AGENT_CONFIG_PATH = "/opt/aws/amazon-cloudwatch-agent/etc/amazon-cloudwatch-agent.json"
AGENT_CTL = "/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl"
AGENT_PACKAGE = "amazon-cloudwatch-agent"


def agent_namespace(stack: str) -> str:
    """The CloudWatch namespace of a stack's agent metrics, for ``stack`` ``<project>/<stack>``: the
    agent config, the instance role's ``cloudwatch:namespace`` condition and the alarms all use it."""
    if not stack or stack.startswith("/") or stack.endswith("/"):
        raise ValueError(f"agent_namespace: {stack!r} is not '<project>/<stack>'")
    return f"gpufleet/{stack}"


def agent_config(log_group_name: str, stack: str) -> dict[str, object]:
    return {
        "agent": {"metrics_collection_interval": 60},
        "metrics": {
            "namespace": agent_namespace(stack),
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


def group_lookup(region: str) -> str:
    """Shell lines that set ``group_name`` to the instance's Auto Scaling group (IMDSv2 for the
    instance id, then its ``aws:autoscaling:groupName`` tag: the agent's ``ec2:DescribeTags``)."""
    imds = "http://169.254.169.254/latest"
    token = "X-aws-ec2-metadata-token: $imds_token"
    query = "--output text --query 'Tags[0].Value'"
    filters = f'"Name=resource-id,Values=$instance_id" "Name=key,Values={GROUP_TAG}"'
    return (
        f"imds_token=$(curl -sS -m 5 -X PUT {imds}/api/token \\\n"
        "  -H 'X-aws-ec2-metadata-token-ttl-seconds: 300') || imds_token=''\n"
        f'instance_id=$(curl -sS -m 5 -H "{token}" {imds}/meta-data/instance-id) \\\n'
        "  || instance_id=''\n"
        f"group_name=$(aws ec2 describe-tags --region {shlex.quote(region)} {query} \\\n"
        f"  --filters {filters}) || group_name=''\n"
        'if [ -z "$group_name" ] || [ "$group_name" = None ]; then\n'
        '  log "could not read the instance\'s group: its worker cannot protect it while it holds a job"\n'
        "fi\n"
    )


def render_user_data(log_group_name: str, stack: str, workload: WorkloadContext | None = None) -> str:
    """The shell script, plain text. The images ship the agent; when one does not, it is installed
    from the distribution's repositories (S3 buckets, reachable through the VPC's S3 gateway
    endpoint), skipping any other repository the image enables rather than failing on it. The
    workload, if any, starts after the agent."""
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
    ) + (render_workload(workload) if workload is not None else "")


def encoded_user_data(log_group_name: str, stack: str, workload: WorkloadContext | None = None) -> str:
    """Launch templates take user data base64-encoded, at most 16 KB before encoding."""
    script = render_user_data(log_group_name, stack, workload).encode()
    if len(script) > MAX_USER_DATA_BYTES:
        raise ValueError(
            f"the boot script is {len(script)} bytes; EC2 takes at most {MAX_USER_DATA_BYTES}: shorten "
            "the workload's user_data or container env"
        )
    return base64.b64encode(script).decode()


__all__ = [
    "AGENT_CONFIG_PATH",
    "AGENT_CTL",
    "AGENT_PACKAGE",
    "agent_config",
    "agent_namespace",
    "encoded_user_data",
    "group_lookup",
    "render_user_data",
]
