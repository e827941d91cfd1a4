"""`gpufleet preflight` against stubbed cloud answers, offline against declared quotas, and without
credentials; `gpufleet plan` lists the same needs and the prices."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from gpufleet.preflight import clients
from tests.cli.helpers import ROOT, copy_project, invoke


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    cn = (ROOT / "stacks" / "Pulumi.cn-dev.yaml").read_text()
    declared = dev.replace(
        "\nconfig:\n", "\nconfig:\n  gpufleet:quotas: {aws:us-east-1: {file: quotas.json}}\n", 1
    )
    root = copy_project(tmp_path_factory.mktemp("p"), {"dev": dev, "declared": declared, "cn-dev": cn})
    (root / "quotas.json").write_text(
        json.dumps({"Quotas": [{"QuotaCode": "L-3819A6DF", "QuotaName": "All G and VT Spot", "Value": 8.0}]})
    )
    return root


class Stub:
    def __init__(self, values: dict[str, float]) -> None:
        self.values = values
        self.asked: list[tuple[str, list[str]]] = []

    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        wanted = list(codes)
        self.asked.append((region, wanted))
        return {code: self.values[code] for code in wanted if code in self.values}


def test_live_quotas_short(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = Stub({"L-3819A6DF": 8.0})
    monkeypatch.setitem(clients.READERS, "aws", lambda: stub)
    run = invoke("preflight", str(project), "-s", "dev", "--format", "json")
    assert run.exit_code == 1, run.stderr
    document = json.loads(run.stdout)
    assert stub.asked == [("us-east-1", ["L-3819A6DF"])]
    (row,) = document["quotas"]
    assert (row["site"], row["code"], row["need_vcpus"], row["quota_vcpus"], row["short"]) == (
        "aws:us-east-1", "L-3819A6DF", 16, 8.0, True,
    )  # fmt: skip
    assert document["source"] == "read from the clouds"


def test_live_quotas_enough(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(clients.READERS, "aws", lambda: Stub({"L-3819A6DF": 64.0}))
    run = invoke("preflight", str(project), "-s", "dev")
    assert run.exit_code == 0
    assert "every quota covers the pools at their maximum size" in run.stdout


def test_alicloud_through_an_injected_client(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []

    def call(region: str, code: str) -> float | None:
        calls.append((region, code))
        return 16.0

    monkeypatch.setitem(clients.READERS, "alicloud", lambda: clients.ApiQuotas("alicloud", call))
    run = invoke("preflight", str(project), "-s", "cn-dev", "--format", "json")
    assert calls == [("cn-hangzhou", "gn7i/spot")]
    assert run.exit_code == 1 and json.loads(run.stdout)["quotas"][0]["need_vcpus"] == 32


def test_without_credentials_says_so_and_exits_2(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class NoKeys:
        def get_credentials(self) -> None:
            return None

    monkeypatch.setitem(clients.READERS, "aws", lambda: clients.AwsQuotas(NoKeys()))
    run = invoke("preflight", str(project), "-s", "dev")
    assert run.exit_code == 2
    assert "cannot read the quotas: no AWS credentials found" in run.stderr
    assert "--offline" in run.stderr
    cn = invoke("preflight", str(project), "-s", "cn-dev")
    assert cn.exit_code == 2 and "alibabacloud_quotas20200510" in cn.stderr


def test_aws_reader_reads_service_quotas() -> None:
    class Client:
        def get_service_quota(self, ServiceCode: str, QuotaCode: str) -> dict[str, Any]:
            assert ServiceCode == "ec2"
            return {"Quota": {"QuotaCode": QuotaCode, "Value": 96.0}}

    class Session:
        def get_credentials(self) -> object:
            return object()

        def client(self, service: str, region_name: str) -> Client:
            assert (service, region_name) == ("service-quotas", "us-west-2")
            return Client()

    assert clients.AwsQuotas(Session()).read("us-west-2", ["L-417A185B"]) == {"L-417A185B": 96.0}


def test_offline_from_the_cli_file(project: Path) -> None:
    run = invoke("preflight", str(project), "-s", "declared", "--offline")
    assert run.exit_code == 1
    assert "short by 8" in run.stdout and "L-3819A6DF" in run.stdout


def test_plan_lists_needs_and_prices(project: Path) -> None:
    run = invoke("plan", str(project), "-s", "declared")
    assert run.exit_code == 0, run.stderr
    assert "GPU vCPU quotas at maximum size" in run.stdout
    assert "price per instance an hour (spot, on-demand)" in run.stdout
    assert "0.53 USD" in run.stdout  # g4dn.xlarge on demand in us-east-1


def test_plan_states_the_hybrid_link_beside_a_distributed_pool(tmp_path: Path) -> None:
    hybrid = (ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text()
    anchor = "        instance_types: [g5.12xlarge]           # 4x A10G: fine-tuning and inference overflow\n"
    assert hybrid.count(anchor) == 1
    hybrid = hybrid.replace(anchor, anchor + "        fit: {model_memory_gib: 60, distributed: true}\n")
    root = copy_project(tmp_path / "p", {"hybrid": hybrid})
    run = invoke("plan", str(root), "-s", "hybrid")
    assert run.exit_code == 0, run.stderr
    text = " ".join(run.stdout.split())
    assert "is distributed and bursts from on-prem over the aws:us-east-1 link" in text
    assert "an AWS Site-to-Site VPN tunnel carries up to 1.25 Gbps, against the 10 Gbps" in text
