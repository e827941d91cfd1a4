"""pools.<name>.workload: a shell snippet or a container, and whether the pool's network can pull it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.components.spec import Container, Pool, PoolWorkload, ReferenceWorker, SpecError, parse_fleet

PATH = "gpufleet:fleet.pools.train.workload"
ECR = "123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1.4"
HUB = "nvcr.io/nvidia/pytorch:24.05-py3"


def _fleet(workload: Any, egress: str | None = None, subnets: list[str] | None = None) -> dict[str, Any]:
    network: dict[str, Any] = {}
    if egress is not None:
        network["egress"] = egress
    if subnets is not None:
        network["subnet_ids"] = subnets
    return {
        "environment": "dev",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 5000},
        "network": network,
        "pools": {"train": {"instance_types": ["g5.2xlarge"], "size": {"max": 4}, "workload": workload}},
    }


def _raw_errors(raw: dict[str, Any]) -> list[tuple[str, str]]:
    """The spec's errors, none when it parses."""
    try:
        parse_fleet(raw, source="test")
    except SpecError as error:
        return error.errors
    return []


def _errors(raw: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as raised:
        parse_fleet(raw, source="test")
    return raised.value.errors


MISSING = (
    "is required: the fleet creates this pool's queue and scales on it, so something must read it; give one "
    "of user_data (a shell snippet), container (an image), reference_worker ({image: ...}: python -m "
    "gpufleet.worker in an image) or image_reads_queue: true (the pool's image reads the queue itself), or "
    "name an existing queue in queue.name or queue.arn"
)
ONE_OF = (
    "give exactly one of user_data (a shell snippet), container (an image), reference_worker (python -m "
    "gpufleet.worker in an image), image_reads_queue: true (the pool's image reads the queue itself)"
)


def test_a_created_queue_with_no_workload_is_an_error_for_every_pool() -> None:
    raw = _fleet(None)
    del raw["pools"]["train"]["workload"]
    raw["pools"]["serve"] = {"instance_types": ["g5.2xlarge"], "size": {"max": 2}, "size_typo": 1}
    # Reported together with the other problems of the spec, one per pool.
    assert _errors(raw) == [
        (
            "gpufleet:fleet.pools.serve",
            "unknown field 'size_typo'; did you mean 'size'? allowed: " + ", ".join(Pool.model_fields),
        ),
        (PATH, MISSING),
        ("gpufleet:fleet.pools.serve.workload", MISSING),
    ]


def test_an_existing_queue_needs_no_workload() -> None:
    raw = _fleet(None)
    del raw["pools"]["train"]["workload"]
    raw["pools"]["train"]["queue"] = {"name": "team-jobs"}
    assert parse_fleet(raw, source="test").pools["train"].workload is None


def test_an_image_that_reads_its_own_queue_says_so() -> None:
    spec = parse_fleet(_fleet({"image_reads_queue": True}), source="test")
    assert spec.pools["train"].workload == PoolWorkload(image_reads_queue=True)


def test_the_reference_worker_in_an_ecr_image() -> None:
    workload = {"reference_worker": {"image": ECR, "env": {"GPUFLEET_BUCKET": "fleet-ckpt"}}}
    spec = parse_fleet(_fleet(workload, egress="endpoints"), source="test")
    assert spec.pools["train"].workload == PoolWorkload(
        reference_worker=ReferenceWorker(image=ECR, env={"GPUFLEET_BUCKET": "fleet-ckpt"})
    )


def test_the_reference_worker_image_must_be_pullable() -> None:
    assert _errors(_fleet({"reference_worker": {"image": ECR}})) == [
        (
            f"{PATH}.reference_worker.image",
            "is in ECR, but network.egress none builds no ecr.api or ecr.dkr endpoint to pull it through: "
            "set network.egress: endpoints (or nat)",
        )
    ]


@pytest.mark.parametrize(
    ("cloud", "region", "instance_type"),
    [("alicloud", "cn-hangzhou", "ecs.gn7i-c8g1.2xlarge"), ("tencentcloud", "ap-guangzhou", "GN7.2XLARGE32")],
)
def test_the_reference_worker_runs_on_every_cloud(cloud: str, region: str, instance_type: str) -> None:
    raw = _fleet({"reference_worker": {"image": HUB}}, egress="nat")
    raw["pools"]["train"] |= {"cloud": cloud, "region": region, "instance_types": [instance_type]}
    raw["pools"]["train"]["queue"] = {"visibility_timeout": "6h"}
    pool = parse_fleet(raw, source="test").pools["train"]
    assert (pool.cloud, pool.workload) == (cloud, PoolWorkload(reference_worker=ReferenceWorker(image=HUB)))


def test_a_shell_snippet() -> None:
    spec = parse_fleet(_fleet({"user_data": "python3 /opt/serve.py &\n"}), source="test")
    assert spec.pools["train"].workload == PoolWorkload(user_data="python3 /opt/serve.py &\n")


def test_an_ecr_container_pulled_through_the_endpoints() -> None:
    workload = {"container": {"image": ECR, "command": ["python", "train.py"], "env": {"EPOCHS": "3"}}}
    spec = parse_fleet(_fleet(workload, egress="endpoints"), source="test")
    assert spec.pools["train"].workload == PoolWorkload(
        container=Container(image=ECR, command=["python", "train.py"], env={"EPOCHS": "3"})
    )


@pytest.mark.parametrize("image", [ECR, HUB])
def test_nat_reaches_any_registry(image: str) -> None:
    spec = parse_fleet(_fleet({"container": {"image": image}}, egress="nat"), source="test")
    workload = spec.pools["train"].workload
    assert workload is not None and workload.container is not None
    assert workload.container.image == image


def test_existing_subnets_bring_their_own_way_out() -> None:
    raw = _fleet(
        {"container": {"image": HUB}}, subnets=["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
    )
    assert parse_fleet(raw, source="test").network.egress == "none"


@pytest.mark.parametrize(
    ("image", "egress", "message"),
    [
        (
            ECR,
            None,
            "is in ECR, but network.egress none builds no ecr.api or ecr.dkr endpoint to pull it through: "
            "set network.egress: endpoints (or nat)",
        ),
        (
            HUB,
            "none",
            "is not in ECR, and network.egress none gives the private subnets no route to another registry: "
            "set network.egress: nat, or push the image to ECR in the pool's region and use endpoints",
        ),
        (
            HUB,
            "endpoints",
            "is not in ECR, and network.egress endpoints gives the private subnets no route to another "
            "registry: set network.egress: nat, or push the image to ECR in the pool's region and use "
            "endpoints",
        ),
    ],
)
def test_an_image_the_network_cannot_pull_is_refused(image: str, egress: str | None, message: str) -> None:
    assert _errors(_fleet({"container": {"image": image}}, egress=egress)) == [
        (f"{PATH}.container.image", message)
    ]


ACR_VPC = "registry-vpc.cn-hangzhou.aliyuncs.com/vision/trainer:1.4"
ACR_ENTERPRISE_VPC = "vision-registry-vpc.cn-hangzhou.cr.aliyuncs.com/ml/trainer:1.4"
ALIBABA_POOL = {"cloud": "alicloud", "region": "cn-hangzhou", "instance_types": ["ecs.gn7i-c8g1.2xlarge"]}
TENCENT_POOL = {
    "cloud": "tencentcloud",
    "region": "ap-guangzhou",
    "instance_types": ["GN7.2XLARGE32"],
    "queue": {"visibility_timeout": "6h"},
}


def _pool_fleet(pool: dict[str, Any], workload: Any, egress: str) -> dict[str, Any]:
    raw = _fleet(workload, egress=egress)
    raw["pools"]["train"] |= pool
    return raw


@pytest.mark.parametrize("image", [ACR_VPC, ACR_ENTERPRISE_VPC])
@pytest.mark.parametrize("egress", ["none", "endpoints"])
def test_an_alibaba_pool_pulls_from_container_registry_over_its_vpc_endpoint(image: str, egress: str) -> None:
    workload = {"reference_worker": {"image": image}}
    pool = parse_fleet(_pool_fleet(ALIBABA_POOL, workload, egress), source="test").pools["train"]
    assert pool.workload == PoolWorkload(reference_worker=ReferenceWorker(image=image))


def test_an_alibaba_vpc_endpoint_of_another_region_is_not_reachable() -> None:
    image = "registry-vpc.cn-shanghai.aliyuncs.com/vision/trainer:1.4"
    assert _errors(_pool_fleet(ALIBABA_POOL, {"container": {"image": image}}, "none")) == [
        (
            f"{PATH}.container.image",
            "is on Container Registry's VPC endpoint in cn-shanghai, and a VPC endpoint answers only inside "
            "its own region (cn-hangzhou), with network.egress none giving no other way out: pull from "
            "registry-vpc.cn-hangzhou.aliyuncs.com (a replica of the repository in the pool's region), or "
            "set network.egress: nat",
        )
    ]


def test_an_alibaba_pool_without_nat_is_told_of_container_registry() -> None:
    image = "registry.cn-hangzhou.aliyuncs.com/vision/trainer:1.4"  # ACR's public endpoint
    assert _errors(_pool_fleet(ALIBABA_POOL, {"container": {"image": image}}, "endpoints")) == [
        (
            f"{PATH}.container.image",
            "is not on a Container Registry VPC endpoint (registry-vpc.<region>.aliyuncs.com, or an "
            "Enterprise instance's <instance>-registry-vpc.<region>.cr.aliyuncs.com), and network.egress "
            "endpoints gives the private vSwitches no route to another registry: set network.egress: nat, "
            "or push the image to Container Registry in the pool's region and pull it through its VPC "
            "endpoint",
        )
    ]


@pytest.mark.parametrize(
    ("pool", "name", "registry"),
    [
        (ALIBABA_POOL, "Alibaba Cloud", "Container Registry (ACR) in the pool's region"),
        (TENCENT_POOL, "Tencent Cloud", "Tencent Container Registry (TCR) in the pool's region"),
    ],
)
@pytest.mark.parametrize("egress", ["nat", "endpoints"])
@pytest.mark.parametrize("form", ["container", "reference_worker"])
def test_a_private_ecr_image_is_refused_on_another_clouds_pool(
    pool: dict[str, Any], name: str, registry: str, egress: str, form: str
) -> None:
    # Whatever the route out: pulling from a private ECR repository needs AWS credentials.
    assert _errors(_pool_fleet(pool, {form: {"image": ECR}}, egress)) == [
        (
            f"{PATH}.{form}.image",
            "is in a private ECR repository, which only AWS credentials can pull (docker login with ECR's "
            f"GetAuthorizationToken), and an instance on {name} has none: push the image to {registry}, "
            "or use a public image (public.ecr.aws, Docker Hub)",
        )
    ]


def test_a_public_ecr_image_is_pulled_by_another_clouds_pool_through_nat() -> None:
    image = "public.ecr.aws/docker/library/python:3.12-slim"
    fleet = parse_fleet(_pool_fleet(ALIBABA_POOL, {"container": {"image": image}}, "nat"), source="test")
    assert fleet.pools["train"].workload == PoolWorkload(container=Container(image=image))


def test_the_home_clouds_existing_subnets_do_not_excuse_another_clouds_pool() -> None:
    raw = _pool_fleet(ALIBABA_POOL, {"container": {"image": HUB}}, "none")
    raw["network"]["subnet_ids"] = ["subnet-0123456789abcdef0"]
    assert [path for path, _ in _raw_errors(raw)] == [f"{PATH}.container.image"]


def test_a_tencent_worker_needs_a_visibility_timeout_that_covers_its_jobs() -> None:
    pool = {key: value for key, value in TENCENT_POOL.items() if key != "queue"}
    errors = _raw_errors(_pool_fleet(pool, {"reference_worker": {"image": HUB}}, "nat"))
    assert errors == [
        (
            f"{PATH}.reference_worker",
            "CMQ cannot extend a received message's visibility, so the reference worker stops a job, with "
            "its checkpoint, a grace period before queue.visibility_timeout ends, to be delivered again: set "
            "queue.visibility_timeout to the longest job (at most 12h)",
        )
    ]


@pytest.mark.parametrize("name", ["GPUFLEET_QUEUE_NAME", "TENCENTCLOUD_REGION", "GPUFLEET_VISIBILITY_S"])
def test_the_worker_env_cannot_override_what_the_pool_sets(name: str) -> None:
    workload = {"reference_worker": {"image": HUB, "env": {name: "other"}}}
    (error,) = _raw_errors(_pool_fleet(TENCENT_POOL, workload, "nat"))
    assert error[0] == f"{PATH}.reference_worker.env"
    assert error[1].startswith(f"{name}: the pool sets it (its queue, its region, its scale-in hook, its ")
    assert error[1].endswith(
        "leave out GPUFLEET_QUEUE_NAME, ALIBABA_CLOUD_REGION_ID, AWS_REGION, TENCENTCLOUD_REGION, "
        "GPUFLEET_LIFECYCLE_HOOK, GPUFLEET_VISIBILITY_S, GPUFLEET_GROUP"
    )


def test_a_tencent_pool_without_nat_reaches_no_registry() -> None:
    assert _errors(_pool_fleet(TENCENT_POOL, {"reference_worker": {"image": HUB}}, "none")) == [
        (
            f"{PATH}.reference_worker.image",
            "network.egress none gives the private subnets no route to a registry (the network reaches "
            "COS, CLS, CMQ, KMS and TAT on private endpoints only): set network.egress: nat",
        )
    ]


def test_a_tencent_worker_needs_a_region_whose_cmq_endpoint_is_known_or_named() -> None:
    pool = {**TENCENT_POOL, "region": "ap-jakarta", "instance_types": ["GN7.2XLARGE32"]}
    worker: dict[str, Any] = {"reference_worker": {"image": HUB}}
    errors = [e for e in _errors(_pool_fleet(pool, worker, "nat")) if e[0] == f"{PATH}.reference_worker"]
    assert errors == [
        (
            f"{PATH}.reference_worker",
            "the reference worker reaches its CMQ queue through the region's data-flow endpoint, and none "
            "is known for ap-jakarta (known: ap-bangkok, ap-beijing, ap-chengdu, ap-chongqing, "
            "ap-guangzhou, ap-hongkong, ap-mumbai, ap-seoul, ap-shanghai, ap-singapore, ap-tokyo, "
            "eu-frankfurt, na-ashburn, na-siliconvalley, na-toronto): set env.GPUFLEET_QUEUE_URL to the "
            "queue's API request address (TDMQ for CMQ console), or run the pool in one of those regions",
        )
    ]
    named = {"reference_worker": {"image": HUB, "env": {"GPUFLEET_QUEUE_URL": "https://cmq.example/v2"}}}
    assert [e for e in _raw_errors(_pool_fleet(pool, named, "nat")) if "reference_worker" in e[0]] == []


@pytest.mark.parametrize(
    ("workload", "error"),
    [
        ({}, (PATH, ONE_OF)),
        ({"user_data": "echo", "container": {"image": ECR}}, (PATH, ONE_OF)),
        ({"image_reads_queue": True, "reference_worker": {"image": ECR}}, (PATH, ONE_OF)),
        (
            "python train.py",
            (
                PATH,
                "must be a mapping with exactly one of user_data (a shell snippet), container (an image), "
                "reference_worker (python -m gpufleet.worker in an image), image_reads_queue: true (the "
                "pool's image reads the queue itself), got 'python train.py'",
            ),
        ),
        (
            {"image_reads_queue": False},
            (
                f"{PATH}.image_reads_queue",
                "must be true (the pool's image reads the queue itself) or left out, got false",
            ),
        ),
        (
            {"user_data": "  \n"},
            (
                f"{PATH}.user_data",
                "must not be empty: give the snippet, or image_reads_queue: true if the image reads it",
            ),
        ),
        (
            {"user_data": "x" * 12_001},
            (
                f"{PATH}.user_data",
                "must be at most 12000 characters (EC2 takes 16 KB of user data, the agent's setup "
                "included), got 12001: fetch a longer script from S3 instead",
            ),
        ),
        (
            {"container": {"image": "Trainer:latest"}},
            (
                f"{PATH}.container.image",
                "must be an image reference like 123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1.4 "
                "or nvcr.io/nvidia/pytorch:24.05-py3, got 'Trainer:latest'",
            ),
        ),
        (
            {"container": {"image": ECR, "env": {"1BAD": "x", "OK_1": "y"}}},
            (
                f"{PATH}.container.env",
                "names must be environment variable names (letters, digits and _, not starting with a "
                "digit), got '1BAD'",
            ),
        ),
        (
            {"container": {"image": ECR, "command": "python train.py"}},
            (f"{PATH}.container.command", "must be a list, got 'python train.py'"),
        ),
        (
            {"container": {"image": ECR, "env": {f"V{i}": "x" * 100 for i in range(120)}}},
            (
                f"{PATH}.container",
                "image, command and env take about 13272 characters of user data; at most 12000 fit in "
                "EC2's 16 KB beside the agent's setup: keep large settings in S3 or SSM Parameter Store "
                "and read them in the container",
            ),
        ),
        (
            {"container": {"image": ECR, "ports": [80]}},
            (f"{PATH}.container", "unknown field 'ports'; allowed: image, command, env"),
        ),
    ],
)
def test_bad_workloads_are_refused(workload: dict[str, Any], error: tuple[str, str]) -> None:
    assert _errors(_fleet(workload, egress="endpoints")) == [error]


def _hybrid() -> dict[str, Any]:
    root = Path(__file__).resolve().parents[2]
    config = yaml.safe_load((root / "stacks" / "Pulumi.hybrid.yaml").read_text())["config"]
    fleet: dict[str, Any] = config["gpufleet:fleet"]
    return fleet


def test_pools_that_join_the_onprem_cluster_take_work_from_kueue_not_their_queue() -> None:
    fleet = _hybrid()
    assert fleet["onprem"]["scheduler"] and all("workload" not in p for p in fleet["pools"].values())
    spec = parse_fleet(fleet, source="test")
    assert [pool.workload for pool in spec.pools.values()] == [None, None, None]


def test_without_the_onprem_scheduler_the_same_pools_need_a_workload() -> None:
    fleet = _hybrid()
    del fleet["onprem"]["scheduler"]
    assert _errors(fleet) == [
        (f"gpufleet:fleet.pools.{name}.workload", MISSING)
        for name in ("burst-aws", "burst-alicloud", "burst-tencent")
    ]


@pytest.mark.parametrize(
    ("env", "says"),
    [
        (
            {"GPUFLEET_GRACE_S": "soon"},
            "GPUFLEET_GRACE_S: must be a number of seconds, 0 or more; got 'soon'",
        ),
        ({"GPUFLEET_POLL_S": "-1"}, "GPUFLEET_POLL_S: must be a number of seconds, 0 or more; got '-1'"),
        ({"GPUFLEET_WAIT_S": "nan"}, "GPUFLEET_WAIT_S: must be a number of seconds, 0 or more; got 'nan'"),
        (
            {"GPUFLEET_GRACE_S": "900"},
            "GPUFLEET_GRACE_S with GPUFLEET_NOTICE_S (15 s) must leave time in the 900 s the scale-in "
            "hook holds a leaving instance for the checkpoint upload; got 900 s (keep GPUFLEET_NOTICE_S + "
            "GPUFLEET_GRACE_S under 900, and under 120 on spot: an interruption notice gives two minutes)",
        ),
        (
            {"GPUFLEET_NOTICE_S": "600", "GPUFLEET_GRACE_S": "300"},
            "GPUFLEET_GRACE_S with GPUFLEET_NOTICE_S (600 s) must leave time in the 900 s the "
            "scale-in hook holds a leaving instance for the checkpoint upload; got 300 s (keep "
            "GPUFLEET_NOTICE_S + GPUFLEET_GRACE_S under 900, and under 120 on spot: an interruption "
            "notice gives two minutes)",
        ),
    ],
)
def test_the_workers_timings_are_seconds_that_fit_the_scale_in_hook(env: dict[str, str], says: str) -> None:
    # Otherwise the worker exits 2 at start (the pool carries no work), or the group terminates a
    # leaving instance before its job's checkpoint is uploaded.
    raw = _fleet({"reference_worker": {"image": HUB, "env": env}}, egress="nat")
    assert _errors(raw) == [(f"{PATH}.reference_worker.env", says)]


def test_timings_that_fit_the_hook_are_taken() -> None:
    worker = ReferenceWorker(image=HUB, env={"GPUFLEET_GRACE_S": "600", "GPUFLEET_NOTICE_S": "15"})
    assert worker.env["GPUFLEET_GRACE_S"] == "600"


@pytest.mark.parametrize(
    ("timeout", "env", "says"),
    [
        (
            "90s",
            {},
            "queue.visibility_timeout (90 s) must be longer than the worker's grace period "
            "(GPUFLEET_GRACE_S, 90 s)",
        ),
        (
            60,
            {"GPUFLEET_GRACE_S": "120"},
            "queue.visibility_timeout (60 s) must be longer than the worker's "
            "grace period (GPUFLEET_GRACE_S, 120 s)",
        ),
    ],
)
def test_a_tencent_workers_visibility_timeout_outlasts_its_grace_period(
    timeout: Any, env: dict[str, str], says: str
) -> None:
    # CMQ cannot extend a visibility: the worker stops each job a grace period before the timeout ends.
    pool = {**TENCENT_POOL, "queue": {"visibility_timeout": timeout}}
    errors = _raw_errors(_pool_fleet(pool, {"reference_worker": {"image": HUB, "env": env}}, "nat"))
    assert errors == [
        (
            f"{PATH}.reference_worker",
            f"{says}: CMQ cannot extend a received message's visibility, so the worker stops each job that "
            "long before the timeout ends, and would stop every job as it starts",
        )
    ]


def test_a_tencent_workers_visibility_timeout_longer_than_its_grace_is_taken() -> None:
    pool = {**TENCENT_POOL, "queue": {"visibility_timeout": "91s"}}
    assert _raw_errors(_pool_fleet(pool, {"reference_worker": {"image": HUB}}, "nat")) == []
