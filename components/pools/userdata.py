"""The workload's part of a pool instance's boot script, on any cloud: its environment (its queue, and its
region in its cloud's variable), then the snippet or the container. Each cloud's boot script runs it
after its own setup (AWS: the CloudWatch agent, :mod:`gpufleet.components.pools.aws_userdata`).

A container image in a private registry is pulled after a login the image's registry gives
(:func:`gpufleet.components.pools.workload.private_image`: ECR). With a ``queue_url`` the worker also
finds its instance's scaling group at boot, through the cloud's ``group_lookup``
(components/pools/facts/<cloud>.py). No step may stop the boot: each step that can fail says so in the
boot log and the script goes on.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from gpufleet.components.clouds import DEFAULT_CLOUD, PROFILES, cloud_parts, profile
from gpufleet.components.pools.lifecycle import DRAIN_HOOK_NAME, GROUP_ENV, HOOK_ENV, QUEUE_URL_ENV
from gpufleet.components.pools.workload import (
    ContainerWorkload,
    ScriptWorkload,
    Workload,
)

WORKLOAD_DIR = "/var/lib/gpufleet"
WORKLOAD_SCRIPT = f"{WORKLOAD_DIR}/workload.sh"
CONTAINER_NAME = "gpufleet-workload"
QUEUE_ENV = "GPUFLEET_QUEUE_NAME"
REGION_ENV = PROFILES[DEFAULT_CLOUD].workload_region_env
# Each cloud's boot-script hooks (components/pools/facts/<cloud>.py: group_lookup).
FACTS = cloud_parts("gpufleet.components.pools.facts")
# The variable each cloud's own SDKs and CLIs read the region from: a workload is told its region in
# its cloud's variable, never AWS's on another cloud (an AWS SDK would then aim at a region it lacks).
REGION_ENVS: Mapping[str, str] = {p.key: p.workload_region_env for p in PROFILES.values()}


def workload_env(queue_name: str, region: str, cloud: str = DEFAULT_CLOUD) -> dict[str, str]:
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


def _heredoc_end(body: str, base: str) -> str:
    """A here-document delimiter that no line of ``body`` equals."""
    lines = set(body.splitlines())
    end, n = base, 0
    while end in lines:
        n += 1
        end = f"{base}_{n}"
    return end


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
    private = workload.private
    if private is not None:
        lines += private.login_lines()
    lines += [
        f'  "$runtime" run -d --name {CONTAINER_NAME} --restart always --gpus all{flags} \\',
        f"    {image}{command} \\",
        '    || log "the container workload did not start"',
        "fi",
    ]
    return "\n".join(lines) + "\n"


def render_workload(context: WorkloadContext, cloud: str = DEFAULT_CLOUD) -> str:
    """The workload's part of the boot script, on `cloud`'s instances."""
    env = workload_env(context.queue_name, context.region, cloud)
    lookup, dynamic = "", ""
    if context.queue_url is not None:
        env |= {QUEUE_URL_ENV: context.queue_url, HOOK_ENV: DRAIN_HOOK_NAME}
        facts = FACTS[profile(cloud).key]
        if not hasattr(facts, "group_lookup"):
            # Without it the worker could not protect its instance while it holds a job.
            raise ValueError(
                f"WorkloadContext.queue_url: {cloud} pools have no scaling-group lookup for the worker "
                f"(group_lookup in components/pools/facts/{cloud}.py); give queue_url only on a cloud "
                f"that has one ({', '.join(c for c, f in FACTS.items() if hasattr(f, 'group_lookup'))})"
            )
        lookup = facts.group_lookup(context.region)
        dynamic = f' {GROUP_ENV}="$group_name"'
    if isinstance(context.workload, ContainerWorkload):
        return lookup + _container_workload(context.workload, env, dynamic)
    return lookup + _script_workload(context.workload, env, dynamic)
