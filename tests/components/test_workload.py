"""The workload hook: rendered into the boot script after the agent, run for real under bash with stub
tools, and the pool's own role allowed to pull an ECR image and nothing else."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pulumi
import pytest

from gpufleet.components.fleet import FleetError, HybridGpuFleet
from gpufleet.components.identity.aws import InstanceIdentityArgs
from gpufleet.components.pools.aws import GpuPool
from gpufleet.components.pools.aws_ecr import ecr_image
from gpufleet.components.pools.aws_userdata import encoded_user_data, render_user_data
from gpufleet.components.pools.userdata import WorkloadContext, render_workload
from gpufleet.components.pools.workload import ContainerWorkload, ScriptWorkload
from gpufleet.components.sites.base import SiteArgs
from gpufleet.components.sites.workloads import group_worker_env, pool_workload
from gpufleet.components.spec import parse_fleet

from .builders import ACCOUNT, KEY_ARN, STACK, TAGS, pool_args
from .conftest import Runner, close_loop, fresh_loop, statements_by_sid

GOLDEN = Path(__file__).parent / "golden" / "user_data_container.sh"
LOG_GROUP = "/gpufleet/gpufleet-dev/agent"
AGENT_ROOT = "/opt/aws/amazon-cloudwatch-agent"
ECR = f"{ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/trainer:1.4"
HUB = "nvcr.io/nvidia/pytorch:24.05-py3"
REGISTRY = f"{ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com"
CONTAINER = ContainerWorkload(
    image=ECR, command=("python", "train.py", "--out", "s3://b/it's here"), env={"EPOCHS": "3"}
)
BASH = shutil.which("bash")


def _context(workload: ContainerWorkload | ScriptWorkload) -> WorkloadContext:
    return WorkloadContext(workload=workload, queue_name="jobs-0a1b2c3", region="us-east-1")


def test_container_script_matches_the_golden_file() -> None:
    script = render_user_data(LOG_GROUP, STACK, _context(CONTAINER))
    assert script == GOLDEN.read_text()
    # The agent's part is the same as without a workload: the workload only follows it.
    assert script.startswith(render_user_data(LOG_GROUP, STACK))


def test_ecr_images_are_recognised() -> None:
    found = ecr_image(ECR)
    assert found is not None
    assert (found.registry, found.repository_arn) == (
        REGISTRY,
        f"arn:aws:ecr:us-east-1:{ACCOUNT}:repository/trainer",
    )
    china = ecr_image(f"{ACCOUNT}.dkr.ecr.cn-north-1.amazonaws.com.cn/team/trainer@sha256:{'a' * 64}")
    assert china is not None
    assert china.repository_arn == f"arn:aws-cn:ecr:cn-north-1:{ACCOUNT}:repository/team/trainer"
    assert ecr_image("nvcr.io/nvidia/pytorch:24.05-py3") is None
    assert ecr_image(f"public.ecr.aws/{ACCOUNT}/trainer") is None


def test_a_boot_script_over_ec2s_16_kb_is_refused() -> None:
    with pytest.raises(ValueError, match=r"the boot script is \d+ bytes; EC2 takes at most 16384"):
        encoded_user_data(LOG_GROUP, STACK, _context(ScriptWorkload(user_data="#" * 16_000)))


# --- the script run for real: stub docker, aws, systemctl; the agent already on the image ------------

STUB = '#!/bin/bash\nprintf "%s\\n" "$*" >> "@LOG@/@NAME@.calls"\n@EXTRA@\n'


def _tools(tmp_path: Path, stubs: dict[str, str]) -> Path:
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("cat", "chmod", "dirname", "mkdir", "printf", "bash"):
        found = shutil.which(tool)
        assert found is not None
        (tools / tool).symlink_to(found)
    for name, extra in stubs.items():
        (tools / name).write_text(
            STUB.replace("@LOG@", str(tmp_path)).replace("@NAME@", name).replace("@EXTRA@", extra)
        )
        (tools / name).chmod(0o755)
    return tools


def _boot(
    tmp_path: Path, context: WorkloadContext, stubs: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    root = tmp_path / "agent"
    (root / "bin").mkdir(parents=True)
    ctl = root / "bin" / "amazon-cloudwatch-agent-ctl"
    ctl.write_text("#!/bin/bash\n")
    ctl.chmod(0o755)
    script = render_user_data(LOG_GROUP, STACK, context).replace(AGENT_ROOT, str(root))
    script = script.replace("/var/lib/gpufleet", str(tmp_path / "workload"))
    assert BASH is not None
    return subprocess.run(
        [BASH, "-c", script],
        env={"PATH": str(_tools(tmp_path, stubs))},
        capture_output=True,
        text=True,
        check=False,
    )


def _calls(tmp_path: Path, name: str) -> list[str]:
    path = tmp_path / f"{name}.calls"
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_an_ecr_container_logs_in_then_runs_with_every_gpu(tmp_path: Path) -> None:
    result = _boot(
        tmp_path,
        _context(CONTAINER),
        {"docker": "cat > /dev/null", "aws": 'echo "token"', "systemctl": ""},
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert _calls(tmp_path, "systemctl") == ["start docker"]
    assert _calls(tmp_path, "aws") == ["ecr get-login-password --region us-east-1"]
    assert _calls(tmp_path, "docker") == [
        f"login --username AWS --password-stdin {REGISTRY}",
        "run -d --name gpufleet-workload --restart always --gpus all -e GPUFLEET_QUEUE_NAME=jobs-0a1b2c3 "
        f"-e AWS_REGION=us-east-1 -e EPOCHS=3 {ECR} python train.py --out s3://b/it's here",
    ]


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_a_failed_login_is_logged_and_nerdctl_serves_without_docker(tmp_path: Path) -> None:
    result = _boot(tmp_path, _context(CONTAINER), {"nerdctl": "", "aws": "exit 255", "systemctl": ""})
    assert result.returncode == 0
    assert f"gpufleet-boot: could not log in to {REGISTRY}: the image cannot be pulled" in result.stderr
    assert _calls(tmp_path, "systemctl") == ["start containerd"]
    assert _calls(tmp_path, "nerdctl")[-1].startswith("run -d --name gpufleet-workload --restart always")


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_no_container_runtime_is_logged_not_fatal(tmp_path: Path) -> None:
    result = _boot(tmp_path, _context(ContainerWorkload(image="nvcr.io/nvidia/pytorch:24.05-py3")), {})
    assert result.returncode == 0
    assert "gpufleet-boot: no docker or nerdctl on the image: the container workload does not start" in (
        result.stderr
    )


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_a_snippet_runs_with_its_queue_and_region_and_its_failure_is_logged(tmp_path: Path) -> None:
    snippet = (
        'printf "%s %s\\n" "$GPUFLEET_QUEUE_NAME" "$AWS_REGION" > "@OUT@/seen"\n'
        "GPUFLEET_WORKLOAD\n"
        "echo $UNSET_BY_DESIGN >> @OUT@/seen\n"
        "exit 3"
    ).replace("@OUT@", str(tmp_path))
    result = _boot(tmp_path, _context(ScriptWorkload(user_data=snippet)), {})
    # The snippet keeps its own shell options (no -u from the boot script) and its own exit status.
    assert (tmp_path / "seen").read_text() == "jobs-0a1b2c3 us-east-1\n\n"
    assert result.returncode == 0
    assert "gpufleet-boot: the workload user_data exited with status 3" in result.stderr
    assert "GPUFLEET_WORKLOAD: command not found" in result.stderr  # a line of the snippet, not the end


# --- the pool's own role ---------------------------------------------------------------------------


def _identity() -> InstanceIdentityArgs:
    return InstanceIdentityArgs(
        bucket_arn="arn:aws:s3:::ckpt",
        bucket_region="us-east-1",
        kms_key_arns=[KEY_ARN],
        log_group_arns=[f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{LOG_GROUP}"],
        tags=TAGS,
        metric_namespace="gpufleet/gpufleet/test",
    )


def _pool(
    run_pulumi: Runner, workload: ContainerWorkload | ScriptWorkload | None
) -> dict[str, dict[str, object]]:
    args = pool_args(
        instance_profile_arn=None,
        role_name=None,
        identity=_identity(),
        agent_log_group_name=LOG_GROUP,
        workload=workload,
    )
    mocks = run_pulumi(lambda: GpuPool("pool", args))
    template = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt").inputs
    script = base64.b64decode(template["userData"]).decode()
    assert ("gpufleet-workload" in script) == isinstance(workload, ContainerWorkload)
    assert template["iamInstanceProfile"] == {
        "arn": f"arn:aws:iam:us-east-1:{ACCOUNT}:instanceprofile/pool-profile-0a1b2c3"
    }
    return statements_by_sid(mocks.one("aws:iam/rolePolicy:RolePolicy", "pool-permissions").inputs)


def test_an_ecr_workload_lets_the_pools_role_pull_that_repository_only(run_pulumi: Runner) -> None:
    statements = _pool(run_pulumi, CONTAINER)
    assert statements["LogInToEcr"] == {
        "Sid": "LogInToEcr",
        "Effect": "Allow",
        "Action": ["ecr:GetAuthorizationToken"],
        "Resource": ["*"],
    }
    assert statements["PullWorkloadImage"] == {
        "Sid": "PullWorkloadImage",
        "Effect": "Allow",
        "Action": ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability"],
        "Resource": [f"arn:aws:ecr:us-east-1:{ACCOUNT}:repository/trainer"],
    }


@pytest.mark.parametrize(
    "workload",
    [None, ScriptWorkload(user_data="echo hi"), ContainerWorkload(image="nvcr.io/nvidia/pytorch:24.05-py3")],
)
def test_other_workloads_grant_no_ecr(
    run_pulumi: Runner, workload: ContainerWorkload | ScriptWorkload | None
) -> None:
    statements = _pool(run_pulumi, workload)
    assert not {"LogInToEcr", "PullWorkloadImage"} & set(statements)


def test_an_ecr_image_of_another_region_cannot_come_through_the_endpoints(run_pulumi: Runner) -> None:
    import yaml

    root = Path(__file__).resolve().parents[2]
    raw = yaml.safe_load((root / "stacks" / "Pulumi.dev.yaml").read_text())["config"]["gpufleet:fleet"]
    raw["network"]["egress"] = "endpoints"
    image = f"{ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com/trainer:1"
    raw["pools"]["experiments"]["workload"] = {"container": {"image": image}}
    spec = parse_fleet(raw, source="test")
    with pytest.raises(FleetError) as raised:
        run_pulumi(lambda: HybridGpuFleet("gpufleet-dev", spec))
    assert str(raised.value) == (
        "pools.experiments.workload.container.image: is in ECR in eu-west-1 but the pool runs in "
        "us-east-1, whose ECR endpoints reach only us-east-1's registry: replicate the repository to "
        "us-east-1 (ECR replication) or set network.egress: nat"
    )


class _PreviewMocks(pulumi.runtime.Mocks):
    """A preview: a created resource's outputs (a queue's name) are unknown."""

    def __init__(self) -> None:
        self.templates: list[dict[str, Any]] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if args.typ == "aws:ec2/launchTemplate:LaunchTemplate":
            self.templates.append(dict(args.inputs))
        return None, {}

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        return {}, []


@pytest.mark.parametrize("workload", [None, CONTAINER])
def test_the_boot_script_is_known_at_preview_unless_a_workload_needs_the_queue(
    workload: ContainerWorkload | None,
) -> None:
    loop = fresh_loop()
    mocks = _PreviewMocks()
    pulumi.runtime.set_mocks(mocks, project="gpufleet", stack="test", preview=True)
    try:
        args = pool_args(
            agent_log_group_name=LOG_GROUP,
            workload=workload,
            image_id="ami-0123456789abcdef0",
            region="us-east-1",
        )
        GpuPool("pool", args)
        loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
    finally:
        close_loop(loop)
    (template,) = mocks.templates
    if workload is None:
        # The rules that read the agent's configuration judge it in `pulumi preview` too.
        assert base64.b64decode(template["userData"]).decode() == render_user_data(LOG_GROUP, STACK)
    else:
        # The script names the queue, which a created queue gets at deploy: unknown until then.
        assert isinstance(template["userData"], pulumi.output.Unknown)


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_the_worker_is_told_its_queue_url_group_and_drain_hook(tmp_path: Path) -> None:
    snippet = (
        'printf "%s|%s|%s\\n" "$GPUFLEET_QUEUE_URL" "$GPUFLEET_GROUP" "$GPUFLEET_LIFECYCLE_HOOK" > @OUT@/seen'
    ).replace("@OUT@", str(tmp_path))
    url = f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/jobs-0a1b2c3"
    context = WorkloadContext(
        workload=ScriptWorkload(user_data=snippet),
        queue_name="jobs-0a1b2c3",
        region="us-east-1",
        queue_url=url,
    )
    stubs = {"curl": 'echo "i-0123456789abcdef0"', "aws": 'echo "pool-asg-0a1b2c3"'}
    result = _boot(tmp_path, context, stubs)
    assert (tmp_path / "seen").read_text() == f"{url}|pool-asg-0a1b2c3|gpufleet-drain\n", result.stderr
    # The group comes from the tag Auto Scaling puts on the instance, read with the agent's DescribeTags.
    assert _calls(tmp_path, "aws") == [
        "ec2 describe-tags --region us-east-1 --output text --query Tags[0].Value --filters "
        "Name=resource-id,Values=i-0123456789abcdef0 Name=key,Values=aws:autoscaling:groupName"
    ]


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_a_group_that_cannot_be_read_is_logged_not_fatal(tmp_path: Path) -> None:
    snippet = f'printf "[%s]\\n" "$GPUFLEET_GROUP" > {tmp_path}/seen'
    context = WorkloadContext(
        workload=ScriptWorkload(user_data=snippet), queue_name="q", region="us-east-1", queue_url="https://q"
    )
    result = _boot(tmp_path, context, {"curl": "exit 7", "aws": "exit 255"})
    assert (tmp_path / "seen").read_text() == "[]\n"
    assert "its worker cannot protect it while it holds a job" in result.stderr


# --- the reference worker: what the boot script starts is what `python -m gpufleet.worker` reads ------


def _docker_env(call: str) -> dict[str, str]:
    words = call.split(" ")
    return dict(words[i + 1].split("=", 1) for i, word in enumerate(words) if word == "-e")


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_the_reference_worker_starts_with_the_environment_it_reads(tmp_path: Path) -> None:
    from gpufleet.components.sites.workloads import reference_worker_workload
    from gpufleet.components.spec import ReferenceWorker
    from gpufleet.worker.__main__ import load_config

    worker = ReferenceWorker(image=ECR, env={"GPUFLEET_BUCKET": "fleet-ckpt"})
    context = WorkloadContext(
        workload=reference_worker_workload(worker, "aws"),
        queue_name="jobs-0a1b2c3",
        region="us-east-1",
        queue_url="https://sqs.us-east-1.amazonaws.com/123456789012/jobs-0a1b2c3",
    )
    stubs = {
        "docker": "cat > /dev/null",
        "aws": 'case "$1" in ecr) echo token ;; ec2) echo gpufleet-dev-train-asg ;; esac',
        "curl": "echo i-0abc",
        "systemctl": "",
    }
    result = _boot(tmp_path, context, stubs)
    assert (result.returncode, result.stderr) == (0, "")
    run = _calls(tmp_path, "docker")[-1]
    assert run.startswith("run -d --name gpufleet-workload --restart always --gpus all -e ")
    assert run.endswith(f" --entrypoint python {ECR} -m gpufleet.worker --cloud aws")
    env = _docker_env(run)
    assert env == {
        "GPUFLEET_QUEUE_NAME": "jobs-0a1b2c3",
        "AWS_REGION": "us-east-1",
        "GPUFLEET_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/jobs-0a1b2c3",
        "GPUFLEET_LIFECYCLE_HOOK": "gpufleet-drain",
        "GPUFLEET_BUCKET": "fleet-ckpt",
        "GPUFLEET_GROUP": "gpufleet-dev-train-asg",
    }
    config = load_config("aws", env)
    assert (config.region, config.queue_name, config.queue_url) == (
        "us-east-1",
        "jobs-0a1b2c3",
        "https://sqs.us-east-1.amazonaws.com/123456789012/jobs-0a1b2c3",
    )
    assert (config.group, config.hook, config.bucket) == (
        "gpufleet-dev-train-asg",
        "gpufleet-drain",
        "fleet-ckpt",
    )


def _spec_pool(
    cloud: str,
    region: str,
    instance_type: str,
    workload: dict[str, Any],
    egress: str = "endpoints",
    *,
    queue: dict[str, Any] | None = None,
) -> Any:
    raw = {
        "environment": "dev",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 5000},
        "network": {"egress": egress},
        "pools": {
            "p": {
                "cloud": cloud,
                "region": region,
                "instance_types": [instance_type],
                "size": {"max": 2},
                "workload": workload,
                **({"queue": queue} if queue is not None else {}),
            }
        },
    }
    return parse_fleet(raw, source="test")


def test_the_reference_worker_is_the_aws_pools_container() -> None:

    pool = _spec_pool("aws", "us-east-1", "g5.2xlarge", {"reference_worker": {"image": ECR}}).pools["p"]
    assert pool_workload(pool) == ContainerWorkload(
        image=ECR, entrypoint="python", command=("-m", "gpufleet.worker", "--cloud", "aws"), env={}
    )


def test_the_reference_worker_is_the_alibaba_pools_container_told_its_hook_and_visibility() -> None:
    from gpufleet.worker.__main__ import load_config

    workload = {"reference_worker": {"image": HUB, "env": {"GPUFLEET_BUCKET": "fleet-ckpt"}}}
    queue = {"visibility_timeout": "30m"}
    pool = _spec_pool("alicloud", "cn-hangzhou", "ecs.gn7i-c8g1.2xlarge", workload, "nat", queue=queue).pools[
        "p"
    ]
    container = pool_workload(pool, group_worker_env(pool))
    assert container == ContainerWorkload(
        image=HUB,
        entrypoint="python",
        command=("-m", "gpufleet.worker", "--cloud", "alicloud"),
        env={
            "GPUFLEET_LIFECYCLE_HOOK": "gpufleet-drain",
            "GPUFLEET_VISIBILITY_S": "1800",
            "GPUFLEET_BUCKET": "fleet-ckpt",
        },
    )
    # With what every cloud's boot script adds (queue, region), the entrypoint has all it needs.
    env = {
        "GPUFLEET_QUEUE_NAME": "gf-cn-hangzhou-p",
        "ALIBABA_CLOUD_REGION_ID": "cn-hangzhou",
        **container.env,
    }
    config = load_config("alicloud", env)
    assert (config.region, config.queue_name, config.hook, config.visibility_s, config.bucket) == (
        "cn-hangzhou",
        "gf-cn-hangzhou-p",
        "gpufleet-drain",
        1800,
        "fleet-ckpt",
    )


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_the_alibaba_boot_script_starts_the_worker_with_what_it_reads(tmp_path: Path) -> None:
    from gpufleet.worker.__main__ import load_config

    workload = {"reference_worker": {"image": HUB, "env": {"GPUFLEET_BUCKET": "fleet-ckpt"}}}
    queue = {"visibility_timeout": "30m"}
    pool = _spec_pool("alicloud", "cn-hangzhou", "ecs.gn7i-c8g1.2xlarge", workload, "nat", queue=queue).pools[
        "p"
    ]
    container = pool_workload(pool, group_worker_env(pool))
    assert isinstance(container, ContainerWorkload)
    part = render_workload(
        WorkloadContext(workload=container, queue_name="gf-jobs", region="cn-hangzhou"), "alicloud"
    )
    tools = _tools(tmp_path, {"docker": "cat > /dev/null", "systemctl": ""})
    assert BASH is not None
    done = subprocess.run(
        [BASH, "-c", 'log() { echo "$*" >&2; }\n' + part],
        env={"PATH": str(tools)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    run = _calls(tmp_path, "docker")[-1]
    assert run.endswith(f" --entrypoint python {HUB} -m gpufleet.worker --cloud alicloud")
    env = _docker_env(run)
    assert env == {
        "GPUFLEET_QUEUE_NAME": "gf-jobs",
        "ALIBABA_CLOUD_REGION_ID": "cn-hangzhou",
        "GPUFLEET_LIFECYCLE_HOOK": "gpufleet-drain",
        "GPUFLEET_VISIBILITY_S": "1800",
        "GPUFLEET_BUCKET": "fleet-ckpt",
    }
    config = load_config("alicloud", env)
    assert (config.queue_name, config.region, config.hook, config.visibility_s) == (
        "gf-jobs",
        "cn-hangzhou",
        "gpufleet-drain",
        1800,
    )


def test_the_reference_worker_on_a_tencent_pool_runs_the_entrypoint_in_its_image() -> None:
    from gpufleet.components.sites import tencentcloud

    workload = {"reference_worker": {"image": HUB, "env": {"GPUFLEET_GRACE_S": "60"}}}
    queue = {"visibility_timeout": "6h"}
    spec = _spec_pool("tencentcloud", "ap-guangzhou", "GN7.2XLARGE32", workload, "nat", queue=queue)
    args = cast(SiteArgs, SimpleNamespace(spec=spec))
    script = tencentcloud._workload(args, "p", "jobs", "ap-guangzhou")
    assert script is not None
    assert (
        '  "$runtime" run -d --name gpufleet-workload --restart always --gpus all '
        "-e GPUFLEET_QUEUE_NAME=jobs -e TENCENTCLOUD_REGION=ap-guangzhou "
        "-e GPUFLEET_LIFECYCLE_HOOK=gpufleet-drain "
        "-e GPUFLEET_VISIBILITY_S=21600 -e GPUFLEET_GRACE_S=60 --entrypoint python \\\n"
        f"    {HUB} -m gpufleet.worker --cloud tencentcloud \\\n"
    ) in script


def test_a_tencent_container_keeps_the_spaces_of_its_values() -> None:
    from gpufleet.components.sites import tencentcloud

    workload = {"container": {"image": HUB, "command": ["run", "a  b"], "env": {"NOTE": "two  spaces"}}}
    spec = _spec_pool("tencentcloud", "ap-guangzhou", "GN7.2XLARGE32", workload, "nat")
    script = tencentcloud._workload(cast(SiteArgs, SimpleNamespace(spec=spec)), "p", "jobs", "ap-guangzhou")
    assert script is not None
    assert f"-e 'NOTE=two  spaces' \\\n    {HUB} run 'a  b' \\\n" in script


def test_an_image_that_reads_its_queue_gets_no_workload_on_any_cloud() -> None:
    from gpufleet.components.sites import tencentcloud

    reads = {"image_reads_queue": True}
    aws_pool = _spec_pool("aws", "us-east-1", "g5.2xlarge", reads).pools["p"]
    assert pool_workload(aws_pool) is None
    ali_pool = _spec_pool("alicloud", "cn-hangzhou", "ecs.gn7i-c8g1.2xlarge", reads).pools["p"]
    assert pool_workload(ali_pool, group_worker_env(ali_pool)) is None
    spec = _spec_pool("tencentcloud", "ap-guangzhou", "GN7.2XLARGE32", reads)
    args = cast(SiteArgs, SimpleNamespace(spec=spec))
    assert tencentcloud._workload(args, "p", "jobs", "ap-guangzhou") is None


def test_a_queue_url_on_a_cloud_without_a_group_lookup_names_the_field() -> None:
    context = WorkloadContext(
        workload=ScriptWorkload(user_data="echo hi"),
        queue_name="jobs",
        region="ap-guangzhou",
        queue_url="https://example.invalid/jobs",
    )
    with pytest.raises(ValueError, match=r"WorkloadContext\.queue_url: tencentcloud pools have no"):
        render_workload(context, "tencentcloud")
    assert "group_name" in render_workload(context, "aws")
