"""pools.<name>.workload: a shell snippet or a container, and whether the pool's network can pull it."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.spec import Container, PoolWorkload, SpecError, parse_fleet

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


def _errors(raw: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as raised:
        parse_fleet(raw, source="test")
    return raised.value.errors


def test_no_workload_by_default() -> None:
    raw = _fleet(None)
    del raw["pools"]["train"]["workload"]
    assert parse_fleet(raw, source="test").pools["train"].workload is None


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


@pytest.mark.parametrize(
    ("workload", "error"),
    [
        ({}, (PATH, "give exactly one of user_data (a shell snippet) or container (an image)")),
        (
            {"user_data": "echo", "container": {"image": ECR}},
            (PATH, "give exactly one of user_data (a shell snippet) or container (an image)"),
        ),
        ({"user_data": "  \n"}, (f"{PATH}.user_data", "must not be empty; leave workload out instead")),
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
