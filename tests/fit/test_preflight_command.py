"""`gpufleet preflight` against stubbed cloud answers, offline against declared quotas, and without
credentials; `gpufleet plan` lists the same needs and the prices."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from gpufleet.preflight import clients
from gpufleet.preflight.alicloud import AlicloudQuotas
from gpufleet.preflight.aws import AwsQuotas
from gpufleet.preflight.tencentcloud import TencentQuotas
from tests.cli.helpers import ROOT, copy_project, invoke


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    cn = (ROOT / "stacks" / "Pulumi.cn-dev.yaml").read_text()
    tc = (ROOT / "stacks" / "Pulumi.tc-dev.yaml").read_text()
    declared = dev.replace(
        "\nconfig:\n", "\nconfig:\n  gpufleet:quotas: {aws:us-east-1: {file: quotas.json}}\n", 1
    )
    root = copy_project(
        tmp_path_factory.mktemp("p"), {"dev": dev, "declared": declared, "cn-dev": cn, "tc-dev": tc}
    )
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
    assert (row["site"], row["code"], row["need"], row["quota"], row["short"]) == (
        "aws:us-east-1", "L-3819A6DF", 16, 8.0, True,
    )  # fmt: skip
    assert document["source"] == "read from the clouds"


def test_live_quotas_enough(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(clients.READERS, "aws", lambda: Stub({"L-3819A6DF": 64.0}))
    run = invoke("preflight", str(project), "-s", "dev")
    assert run.exit_code == 0
    assert "every quota covers the pools at their maximum size" in run.stdout


# ECS DescribeAccountAttributes, as the API answers it (Value is a string):
# https://www.alibabacloud.com/help/en/ecs/developer-reference/api-ecs-2014-05-26-describeaccountattributes
ALICLOUD_ANSWER = {
    "RequestId": "8CE45CD5-31FB-47C2-959D-CA8144CE****",
    "AccountAttributeItems": {
        "AccountAttributeItem": [
            {
                "AttributeName": "max-spot-instance-vcpu-count",
                "AttributeValues": {
                    "ValueItem": [
                        {"Value": "16", "ExpiredTime": 1, "Count": 1, "InstanceChargeType": "SpotAsPriceGo"}
                    ]
                },
            },
            {
                "AttributeName": "max-postpaid-instance-vcpu-count",
                "AttributeValues": {"ValueItem": [{"Value": "800", "ExpiredTime": 1, "Count": 1}]},
            },
        ]
    },
}

# CVM DescribeAccountQuota, as the API answers it: https://cloud.tencent.com/document/api/213/55628
TENCENT_ANSWER = {
    "Response": {
        "AppId": 1251783334,
        "AccountQuotaOverview": {
            "Region": "ap-guangzhou",
            "AccountQuota": {
                "PostPaidQuotaSet": [
                    {"UsedQuota": 0, "RemainingQuota": 500, "TotalQuota": 500, "Zone": "ap-guangzhou-3"},
                    {"UsedQuota": 2, "RemainingQuota": 498, "TotalQuota": 500, "Zone": "ap-guangzhou-4"},
                ],
                "PrePaidQuotaSet": [
                    {
                        "UsedQuota": 0,
                        "OnceQuota": 100,
                        "RemainingQuota": 500,
                        "TotalQuota": 500,
                        "Zone": "ap-guangzhou-3",
                    }
                ],
                "SpotPaidQuotaSet": [
                    {"UsedQuota": 0, "RemainingQuota": 1, "TotalQuota": 1, "Zone": "ap-guangzhou-3"},
                    {"UsedQuota": 0, "RemainingQuota": 1, "TotalQuota": 1, "Zone": "ap-guangzhou-4"},
                ],
                "ImageQuotaSet": [{"UsedQuota": 0, "TotalQuota": 10}],
                "DisasterRecoverGroupQuotaSet": [
                    {
                        "GroupQuota": 50,
                        "CurrentNum": 0,
                        "CvmInHostGroupQuota": 50,
                        "CvmInSwGroupQuota": 20,
                        "CvmInRackGroupQuota": 20,
                    }
                ],
            },
        },
        "RequestId": "a5bd3ef2-1dcf-4a4d-9a19-8e8bd6b1a2f4",
    }
}


def test_alicloud_reads_describe_account_attributes(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, list[str]]] = []

    def call(region: str, names: list[str]) -> dict[str, Any]:
        calls.append((region, names))
        return ALICLOUD_ANSWER

    monkeypatch.setitem(clients.READERS, "alicloud", lambda: AlicloudQuotas(call))
    run = invoke("preflight", str(project), "-s", "cn-dev", "--format", "json")
    assert calls == [("cn-hangzhou", ["max-spot-instance-vcpu-count"])]
    assert run.exit_code == 1, run.stderr
    (row,) = json.loads(run.stdout)["quotas"]
    assert (row["code"], row["unit"], row["need"], row["quota"], row["short"]) == (
        "max-spot-instance-vcpu-count", "vCPUs", 32, 16.0, True,
    )  # fmt: skip
    assert row["pools"] == [
        "gpufleet-cn-dev-cn-hangzhou-pool-a10-dev-group 4 x ecs.gn7i-c8g1.2xlarge (8 vCPUs) spot"
    ]


def test_tencent_reads_describe_account_quota(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def call(region: str) -> dict[str, Any]:
        calls.append(region)
        return TENCENT_ANSWER

    monkeypatch.setitem(clients.READERS, "tencentcloud", lambda: TencentQuotas(call))
    run = invoke("preflight", str(project), "-s", "tc-dev", "--format", "json")
    assert calls == ["ap-guangzhou"]
    assert run.exit_code == 1, run.stderr
    (row,) = json.loads(run.stdout)["quotas"]
    # Two zones of one spot instance each: two instances, the pool may grow to four.
    assert (row["code"], row["unit"], row["need"], row["quota"], row["short"]) == (
        "SpotPaidQuotaSet", "instances", 4, 2.0, True,
    )  # fmt: skip
    text = invoke("preflight", str(project), "-s", "tc-dev")
    assert "(short by 2)" in text.stdout and "1 quota short" in text.stdout


def test_tencent_answer_for_another_region_is_refused() -> None:
    reader = TencentQuotas(lambda region: TENCENT_ANSWER)
    with pytest.raises(clients.NoCredentials, match="answered for region ap-guangzhou, not ap-shanghai"):
        reader.read("ap-shanghai", ["SpotPaidQuotaSet"])


def test_single_answer_readers_ask_nothing_for_codes_they_do_not_know() -> None:
    def never(*_args: Any) -> dict[str, Any]:
        raise AssertionError("no API call when no wanted code is the cloud's")

    assert AlicloudQuotas(never).read("cn-hangzhou", ["L-3819A6DF"]) == {}
    assert TencentQuotas(never).read("ap-guangzhou", ["max-spot-instance-vcpu-count"]) == {}
    # A known code the answer does not carry is left out; unknown codes are never asked for.
    asked: list[list[str]] = []

    def call(_region: str, names: list[str]) -> dict[str, Any]:
        asked.append(names)
        return ALICLOUD_ANSWER

    reader = AlicloudQuotas(call)
    found = reader.read(
        "cn-hangzhou", ["x", "max-postpaid-instance-vcpu-count", "max-spot-instance-vcpu-count"]
    )
    assert asked == [["max-postpaid-instance-vcpu-count", "max-spot-instance-vcpu-count"]]
    assert set(found) <= {"max-postpaid-instance-vcpu-count", "max-spot-instance-vcpu-count"}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (ALICLOUD_ANSWER, {"max-spot-instance-vcpu-count": 16.0, "max-postpaid-instance-vcpu-count": 800.0}),
        (TENCENT_ANSWER, {"PostPaidQuotaSet": 1000.0, "SpotPaidQuotaSet": 2.0}),
        (
            TENCENT_ANSWER["Response"],
            {"PostPaidQuotaSet": 1000.0, "SpotPaidQuotaSet": 2.0},
        ),  # tccli prints it bare
        ({"Quota": {"QuotaCode": "L-417A185B", "Value": 96.0}}, {"L-417A185B": 96.0}),
    ],
)
def test_cli_files_of_each_cloud_are_read(
    tmp_path: Path, answer: dict[str, Any], expected: dict[str, float]
) -> None:
    from gpufleet.preflight.settings import read_quota_file

    path = tmp_path / "quotas.json"
    path.write_text(json.dumps(answer))
    assert read_quota_file(path) == expected


def test_without_credentials_says_so_and_exits_2(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class NoKeys:
        def get_credentials(self) -> None:
            return None

    monkeypatch.setitem(clients.READERS, "aws", lambda: AwsQuotas(NoKeys()))
    run = invoke("preflight", str(project), "-s", "dev")
    assert run.exit_code == 2
    assert "cannot read the quotas: no AWS credentials found" in run.stderr
    assert "--offline" in run.stderr
    cn = invoke("preflight", str(project), "-s", "cn-dev")
    assert cn.exit_code == 2 and "reading alicloud quotas needs the Alibaba Cloud ECS SDK" in cn.stderr
    tc = invoke("preflight", str(project), "-s", "tc-dev")
    assert tc.exit_code == 2 and "reading tencentcloud quotas needs tencentcloud-sdk-python" in tc.stderr


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

    assert AwsQuotas(Session()).read("us-west-2", ["L-417A185B"]) == {"L-417A185B": 96.0}


def test_offline_from_the_cli_file(project: Path) -> None:
    run = invoke("preflight", str(project), "-s", "declared", "--offline")
    assert run.exit_code == 1
    assert "short by 8" in run.stdout and "L-3819A6DF" in run.stdout


def test_plan_lists_needs_and_prices(project: Path) -> None:
    run = invoke("plan", str(project), "-s", "declared")
    assert run.exit_code == 0, run.stderr
    assert "GPU quotas at maximum size" in run.stdout
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


def test_preflight_names_the_other_launch_and_fit_findings(tmp_path: Path) -> None:
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    anchor = "        instance_types: [g4dn.xlarge, g5.xlarge]"
    assert dev.count(anchor) == 1
    dev = dev.replace(anchor, anchor.replace("[g4dn.xlarge, g5.xlarge]", "[g5g.xlarge]"), 1)
    dev = dev.replace("\nconfig:\n", "\nconfig:\n  gpufleet:quotas: {aws:us-east-1: {L-3819A6DF: 64}}\n", 1)
    root = copy_project(tmp_path / "p", {"dev": dev})
    run = invoke("preflight", str(root), "-s", "dev", "--offline")
    assert run.exit_code == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert "every quota covers the pools at their maximum size" in lines
    assert "launch and fit findings (GF-FIT-002..006)" in lines
    [arch] = [line for line in lines if line.startswith("  GF-FIT-003 mandatory: ")]
    assert (
        "boots a x86_64 image (its tag gpufleet:image-arch=x86_64" in arch
        and "g5g.xlarge, which is arm64" in arch
    )
    document = json.loads(invoke("preflight", str(root), "-s", "dev", "--offline", "--format", "json").stdout)
    assert [(f["rule_id"], f["enforcement"]) for f in document["findings"]] == [("GF-FIT-003", "mandatory")]


def test_the_commands_doc_sample_is_what_the_command_prints(tmp_path: Path) -> None:
    doc = (ROOT / "docs" / "commands.md").read_text()
    assert (
        "with the P quotas of\n`stacks/Pulumi.prod.yaml` lowered to `L-417A185B: 384, L-7212CCBC: 96`" in doc
    )
    sample = doc[doc.index('$ gpufleet preflight -s prod --offline; echo "exit $?"\n') :].split("```")[0]
    prod = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    assert prod.count("L-417A185B: 576, L-7212CCBC: 384") == 1
    root = copy_project(
        tmp_path / "p",
        {"prod": prod.replace("L-417A185B: 576, L-7212CCBC: 384", "L-417A185B: 384, L-7212CCBC: 96")},
    )
    run = invoke("preflight", str(root), "-s", "prod", "--offline")
    assert sample.splitlines()[1:] == [*run.stdout.splitlines(), f"exit {run.exit_code}"]


def test_preflight_lists_launch_and_fit_findings_only() -> None:
    # The hybrid stack's Helm release draws an engine finding (GF-ENGINE-001) in `check`, not here.
    run = invoke("preflight", "-s", "hybrid", "--offline", "--format", "json", str(ROOT))
    assert run.exit_code == 0, run.stdout + run.stderr
    document = json.loads(run.stdout)
    assert document["findings"] == []
    assert {row["code"] for row in document["quotas"]} >= {"max-spot-instance-vcpu-count", "SpotPaidQuotaSet"}
