"""The boot script of a GPU pool instance: start the CloudWatch agent with GPU metrics and logs.

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
from collections.abc import Mapping
from dataclasses import dataclass

from gpufleet.components.clouds import PROFILES
from gpufleet.components.pools.facts.aws import GROUP_TAG
from gpufleet.components.pools.lifecycle import DRAIN_HOOK_NAME, GROUP_ENV, HOOK_ENV, QUEUE_URL_ENV
from gpufleet.components.pools.scaling import GROUP_DIMENSION, STACK_DIMENSION
from gpufleet.components.pools.workload import (
    MAX_USER_DATA_BYTES,
    ContainerWorkload,
    ScriptWorkload,
    Workload,
)

AGENT_CONFIG_PATH = "/opt/aws/amazon-cloudwatch-agent/etc/amazon-cloudwatch-agent.json"
AGENT_CTL = "/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl"
AGENT_PACKAGE = "amazon-cloudwatch-agent"
WORKLOAD_DIR = "/var/lib/gpufleet"
WORKLOAD_SCRIPT = f"{WORKLOAD_DIR}/workload.sh"
CONTAINER_NAME = "gpufleet-workload"
QUEUE_ENV = "GPUFLEET_QUEUE_NAME"
REGION_ENV = PROFILES["aws"].workload_region_env
# The variable each cloud's own SDKs and CLIs read the region from: a workload is told its region in
# its cloud's variable, never AWS's on another cloud (an AWS SDK would then aim at a region it lacks).
REGION_ENVS: Mapping[str, str] = {p.key: p.workload_region_env for p in PROFILES.values()}


def workload_env(queue_name: str, region: str, cloud: str = "aws") -> dict[str, str]:
    """The variables a pool's workload starts with: its queue, and its region in its cloud's variable."""
    return {QUEUE_ENV: queue_name, REGION_ENVS[cloud]: region}


@dataclass(frozen=True, kw_only=True)
class WorkloadContext:
    """What the workload is told about where it runs: its pool's queue and region (as environment
    variables ``GPUFLEET_QUEUE_NAME`` and the cloud's region variable, :data:`REGION_ENVS`). With
    ``queue_url`` (AWS), also what its worker needs to protect its instance while it holds a job
    (:mod:`gpufleet.components.pools.lifecycle`): ``GPUFLEET_QUEUE_URL``, ``GPUFLEET_LIFECYCLE_HOOK`` and
    ``GPUFLEET_GROUP``, read at boot from the tag Auto Scaling puts on the instance."""

    workload: Workload
    queue_name: str
    region: str
    queue_url: str | None = None


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


def _heredoc_end(body: str, base: str) -> str:
    """A here-document delimiter that no line of ``body`` equals."""
    lines = set(body.splitlines())
    end, n = base, 0
    while end in lines:
        n += 1
        end = f"{base}_{n}"
    return end


def _group_lookup(region: str) -> str:
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


def _script_workload(workload: ScriptWorkload, env: dict[str, str], dynamic: str = "") -> str:
    body = workload.user_data.rstrip("\n") + "\n"
    end = _heredoc_end(body, "GPUFLEET_WORKLOAD")
    assignments = " ".join(f"{name}={shlex.quote(value)}" for name, value in env.items()) + dynamic
    return (
        f"mkdir -p {WORKLOAD_DIR}\n"
        f"cat > {WORKLOAD_SCRIPT} <<'{end}'\n"
        f"{body}"
        f"{end}\n"
        f"chmod 700 {WORKLOAD_SCRIPT}\n"
        f"{assignments} bash {WORKLOAD_SCRIPT} \\\n"
        '  || log "the workload user_data exited with status $?"\n'
    )


def _container_workload(workload: ContainerWorkload, env: dict[str, str], dynamic: str = "") -> str:
    image = shlex.quote(workload.image)
    variables = {**env, **workload.env}
    flags = "".join(f" -e {shlex.quote(f'{name}={value}')}" for name, value in variables.items())
    flags += dynamic.replace(" ", " -e ")
    if workload.entrypoint is not None:
        flags += f" --entrypoint {shlex.quote(workload.entrypoint)}"
    command = "".join(f" {shlex.quote(part)}" for part in workload.command)
    lines = [
        "runtime=''",
        "if command -v docker >/dev/null 2>&1; then",
        "  runtime=docker",
        '  systemctl start docker || log "docker did not start"',
        "elif command -v nerdctl >/dev/null 2>&1; then",
        "  runtime=nerdctl",
        '  systemctl start containerd || log "containerd did not start"',
        "else",
        '  log "no docker or nerdctl on the image: the container workload does not start"',
        "fi",
        'if [ -n "$runtime" ]; then',
    ]
    ecr = workload.ecr
    if ecr is not None:
        registry = shlex.quote(ecr.registry)
        lines += [
            f"  aws ecr get-login-password --region {ecr.region} \\",
            f'    | "$runtime" login --username AWS --password-stdin {registry} \\',
            f'    || log "could not log in to {ecr.registry}: the image cannot be pulled"',
        ]
    lines += [
        f'  "$runtime" run -d --name {CONTAINER_NAME} --restart always --gpus all{flags} \\',
        f"    {image}{command} \\",
        '    || log "the container workload did not start"',
        "fi",
    ]
    return "\n".join(lines) + "\n"


def render_workload(context: WorkloadContext, cloud: str = "aws") -> str:
    """The workload's part of the boot script, on `cloud`'s instances."""
    env = workload_env(context.queue_name, context.region, cloud)
    lookup, dynamic = "", ""
    if context.queue_url is not None:
        env |= {QUEUE_URL_ENV: context.queue_url, HOOK_ENV: DRAIN_HOOK_NAME}
        lookup, dynamic = _group_lookup(context.region), f' {GROUP_ENV}="$group_name"'
    if isinstance(context.workload, ContainerWorkload):
        return lookup + _container_workload(context.workload, env, dynamic)
    return lookup + _script_workload(context.workload, env, dynamic)


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
