"""The hybrid stack's exporter publishes the Alibaba gate: config.json names every gated Alibaba pool's
MNS queue (the queue the pool builds), the publisher's RAM role and OIDC provider; the pod carries a
second projected token for the provider's audience; a service account the exporter does not run as is
a clean spec error naming both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpufleet.engine import run_program
from tests.cli.helpers import ROOT, copy_project, invoke, replace_once

STACK = (ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text(encoding="utf-8")
EXPORTER = "gpufleet-hybrid-signal-exporter"
PUBLISHER = "gpufleet-hybrid-burst-publisher"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    project = copy_project(tmp_path_factory.mktemp("hybrid") / "p", stacks={"hybrid": STACK})
    return run_program(project, "hybrid")


def _one(graph: Any, typ: str, name: str) -> dict[str, Any]:
    [found] = [r for r in graph.of_type(typ) if r.name == name]
    return dict(found.inputs)


def test_config_json_names_the_gated_queues_and_the_publisher(graph: Any) -> None:
    data = _one(graph, "kubernetes:core/v1:ConfigMap", f"{EXPORTER}-config")["data"]
    alicloud = json.loads(data["config.json"])["alicloud"]
    assert alicloud == {
        "account_id": "1234567890123456",
        "role_arn": f"acs:ram::1234567890123456:role/{PUBLISHER}",
        # the offline engine's stand-in ARN (the cloud's is acs:ram::<uid>:oidc-provider/<name>)
        "oidc_provider_arn": f"acs:ims:cn-hangzhou:1234567890123456:oidc-provider/{PUBLISHER}-oidc-arn",
        "token_file": "/var/run/secrets/gpufleet/alicloud/token",
        "session_name": "gpufleet-exporter",
        "sts_endpoint": "sts.aliyuncs.com",
        "sites": [
            {
                "site": "alicloud:cn-hangzhou",
                "region": "cn-hangzhou",
                "ahead": ["aws:us-east-1"],
                "pools": [{"pool": "burst-alicloud", "queue": "gpufleet-hybrid-cn-hangzhou-burst-alicloud"}],
            }
        ],
    }
    queues = {r.inputs["queueName"] for r in graph.of_type("alicloud:message/serviceQueue:ServiceQueue")}
    assert "gpufleet-hybrid-cn-hangzhou-burst-alicloud" in queues
    # the Tencent pool is not gated: nothing about it is published
    assert "tencentcloud" not in json.dumps(alicloud)


def test_the_pod_gets_a_token_for_the_oidc_audience(graph: Any) -> None:
    spec = _one(graph, "kubernetes:apps/v1:Deployment", f"{EXPORTER}-deployment")["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert volumes["alicloud-token"]["projected"]["sources"] == [
        {"serviceAccountToken": {"path": "token", "audience": "sts.aliyuncs.com", "expirationSeconds": 3600}}
    ]
    assert spec["serviceAccountName"] == EXPORTER
    account = _one(graph, "kubernetes:core/v1:ServiceAccount", f"{EXPORTER}-account")["metadata"]
    assert f"{account['namespace']}/{account['name']}" == f"gpufleet-system/{EXPORTER}"


def test_a_service_account_the_exporter_does_not_run_as_is_a_spec_error(tmp_path: Path) -> None:
    text = replace_once(
        STACK,
        f"service_account: gpufleet-system/{EXPORTER}",
        "service_account: gpufleet-system/baseline-exporter",
    )
    project = copy_project(tmp_path / "p", stacks={"hybrid": text})
    result = invoke("check", str(project), "-s", "hybrid", "--no-checkov")
    assert result.exit_code == 2
    assert (
        "burst.publishers.alicloud.service_account: 'gpufleet-system/baseline-exporter' is not the "
        f"exporter's service account 'gpufleet-system/{EXPORTER}'"
    ) in result.stderr + result.stdout
