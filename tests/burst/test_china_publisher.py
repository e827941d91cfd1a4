"""The hybrid fleet with ``burst.publishers.alicloud``: the Alibaba home site builds the exporter's OIDC
provider and RAM role (trusted for one service account, allowed to publish the gate and read the gated
queues only); its pool scales out on GatedBacklog with the raw queue alarm as fallback. Without the
publisher, or without ``burst``, the Alibaba and Tencent graphs are as before."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from gpufleet.engine import run_program
from tests.burst.conftest import QUEUE_FED_HYBRID
from tests.cli.helpers import copy_project
from tests.project_policy import judged

# The hunk the hybrid stack takes once the AWS publisher (BaselineSignal) is built by the fleet: until
# then the AWS gate fails GF-OPS-001 there, so the stack file itself stays ungated on this branch.
BURST_BLOCK = """    burst:
      order: [aws:us-east-1, alicloud:cn-hangzhou, tencentcloud:ap-guangzhou]
      publishers:
        alicloud:
          issuer_url: https://oidc.lab.example.com/k8s
          fingerprints: [9e99a48a9960b14926bb7f3b02e22da2b0ab7280]
          service_account: gpufleet-system/gpufleet-hybrid-signal-exporter
          fallback_after_s: 1800
"""
# The stack file without any `burst` of its own: the key line and the lines indented under it.
UNGATED = re.sub(r"^    burst:.*\n(?:      .*\n)*", "", QUEUE_FED_HYBRID, flags=re.MULTILINE)
GATED = UNGATED.replace("\n    onprem:\n", "\n" + BURST_BLOCK + "\n    onprem:\n", 1)
ORDER_ONLY = re.sub(r"\n      publishers:.*?(?=\n\n    onprem:)", "", GATED, count=1, flags=re.DOTALL)
POOL = "gpufleet-hybrid-cn-hangzhou-pool-burst-alicloud"
PUBLISHER = "gpufleet-hybrid-burst-publisher"
CHINA = ("alicloud:", "tencentcloud:")


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    found = {}
    for label, text in (("gated", GATED), ("order-only", ORDER_ONLY), ("ungated", UNGATED)):
        project = copy_project(tmp_path_factory.mktemp(label) / "p", stacks={"hybrid": text})
        found[label] = run_program(project, "hybrid")
    return found


def _inputs(graph: Any, typ: str, name: str) -> dict[str, Any]:
    [found] = [r for r in graph.of_type(typ) if r.name == name]
    return dict(found.inputs)


def _china(graph: Any) -> dict[tuple[str, str], Any]:
    return {(r.type, r.name): r.inputs for r in graph.resources if r.type.startswith(CHINA)}


def test_the_stack_file_variants_differ_only_in_burst() -> None:
    assert "publishers:" in GATED and "\n    burst:" in ORDER_ONLY and "publishers:" not in ORDER_ONLY
    assert "\n    burst:" not in UNGATED


def test_the_oidc_provider_trusts_the_lab_issuer(graphs: dict[str, Any]) -> None:
    provider = _inputs(graphs["gated"], "alicloud:ims/oidcProvider:OidcProvider", f"{PUBLISHER}-oidc")
    assert provider == {
        "oidcProviderName": PUBLISHER,
        "issuerUrl": "https://oidc.lab.example.com/k8s",
        "fingerprints": ["9e99a48a9960b14926bb7f3b02e22da2b0ab7280"],
        "clientIds": ["sts.aliyuncs.com"],
        "description": "gpufleet on-prem cluster: the burst-order exporter's service-account tokens",
    }


def test_the_role_trusts_the_provider_for_the_exporter_service_account_only(graphs: dict[str, Any]) -> None:
    graph = graphs["gated"]
    [role] = [r for r in graph.of_type("alicloud:ram/role:Role") if r.name == f"{PUBLISHER}-role"]
    [provider] = graph.of_type("alicloud:ims/oidcProvider:OidcProvider")
    document = json.loads(role.inputs["assumeRolePolicyDocument"])
    # The principal is the provider's ARN (an output: the role depends on the provider for it).
    [federated] = document["Statement"][0]["Principal"].pop("Federated")
    assert ":oidc-provider/" in federated
    assert provider.urn in role.property_dependencies["assumeRolePolicyDocument"]
    assert document == {
        "Version": "1",
        "Statement": [
            {
                "Action": "sts:AssumeRole",
                "Effect": "Allow",
                "Principal": {},
                "Condition": {
                    "StringEquals": {
                        "oidc:iss": "https://oidc.lab.example.com/k8s",
                        "oidc:aud": "sts.aliyuncs.com",
                        "oidc:sub": "system:serviceaccount:gpufleet-system:gpufleet-hybrid-signal-exporter",
                    }
                },
            }
        ],
    }
    assert role.inputs["roleName"] == PUBLISHER
    assert role.inputs["maxSessionDuration"] == 3600


def test_the_role_may_publish_the_gate_and_read_the_gated_queue_only(graphs: dict[str, Any]) -> None:
    graph = graphs["gated"]
    policy = _inputs(graph, "alicloud:ram/policy:Policy", f"{PUBLISHER}-policy")
    assert json.loads(policy["policyDocument"]) == {
        "Version": "1",
        "Statement": [
            {
                "Sid": "PublishBurstGate",
                "Effect": "Allow",
                "Action": ["cms:PutCustomMetric"],
                "Resource": ["*"],
            },
            {
                "Sid": "ReadGatedQueueBacklog",
                "Effect": "Allow",
                "Action": ["cms:DescribeMetricLast"],
                "Resource": ["*"],
            },
        ],
    }
    attach = _inputs(graph, "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", f"{PUBLISHER}-attach")
    assert attach == {"roleName": PUBLISHER, "policyName": f"{PUBLISHER}-publish", "policyType": "Custom"}


# The backlog bands of a pool (components/pools/scaling.py backlog_bands): each gated alarm has a fallback.
BANDS = ("", "-x2", "-x4", "-x8")


def test_the_gated_pool_alarms(graphs: dict[str, Any]) -> None:
    graph = graphs["gated"]
    gated = _inputs(graph, "alicloud:cms/alarm:Alarm", f"{POOL}-queue-deep")
    assert (gated["project"], gated["metric"]) == ("acs_customMetric_1234567890123456", "GatedBacklog")
    assert json.loads(gated["metricDimensions"]) == [
        {"Pool": "burst-alicloud", "Site": "alicloud:cn-hangzhou"}
    ]
    fallback = _inputs(graph, "alicloud:cms/alarm:Alarm", f"{POOL}-queue-deep-fallback")
    assert (fallback["project"], fallback["metric"]) == ("acs_mns_new", "NumberOfMessagesVisible")
    # The first backlog band (more than queue_out, at most twice it) holds for six periods.
    assert (fallback["period"], fallback["compositeExpression"]) == (
        300,
        {
            "level": "CRITICAL",
            "expressionRaw": "@NumberOfMessagesVisible[300].$Maximum > 10 && "
            "@NumberOfMessagesVisible[300].$Maximum <= 20",
            "times": 6,
        },
    )
    assert fallback["targets"] == gated["targets"]
    # The top band has no upper bound: a plain escalation.
    top = _inputs(graph, "alicloud:cms/alarm:Alarm", f"{POOL}-queue-deep-x8-fallback")
    assert top["escalationsCritical"] == {
        "times": 6,
        "threshold": "80",
        "statistics": "Maximum",
        "comparisonOperator": ">",
    }


def test_without_publishers_or_burst_the_china_graphs_do_not_change(graphs: dict[str, Any]) -> None:
    ungated = _china(graphs["ungated"])
    assert _china(graphs["order-only"]) == ungated
    gated = _china(graphs["gated"])
    added = set(gated) - set(ungated)
    assert added == {
        ("alicloud:ims/oidcProvider:OidcProvider", f"{PUBLISHER}-oidc"),
        ("alicloud:ram/role:Role", f"{PUBLISHER}-role"),
        ("alicloud:ram/policy:Policy", f"{PUBLISHER}-policy"),
        ("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", f"{PUBLISHER}-attach"),
    } | {("alicloud:cms/alarm:Alarm", f"{POOL}-queue-deep{band}-fallback") for band in BANDS}
    changed = {key for key in ungated if gated[key] != ungated[key]}
    assert changed == {("alicloud:cms/alarm:Alarm", f"{POOL}-queue-deep{band}") for band in BANDS}
    # Tencent: not gated, every resource as without burst.
    assert {k: v for k, v in gated.items() if k[0].startswith("tencentcloud:")} == {
        k: v for k, v in ungated.items() if k[0].startswith("tencentcloud:")
    }


def test_the_publish_policy_reads_the_backlog_only_when_a_pool_is_gated() -> None:
    from gpufleet.components.identity.alicloud_publisher import publish_policy

    queues = [("cn-shanghai", "gf-b"), ("cn-hangzhou", "gf-a"), ("cn-hangzhou", "gf-a")]
    [put, read] = json.loads(publish_policy(queues))["Statement"]
    assert put["Action"] == ["cms:PutCustomMetric"]
    assert (read["Action"], read["Resource"]) == (["cms:DescribeMetricLast"], ["*"])
    assert [s["Sid"] for s in json.loads(publish_policy([]))["Statement"]] == ["PublishBurstGate"]


def test_the_gated_stack_breaks_no_rule_on_alibaba_or_tencent(graphs: dict[str, Any]) -> None:
    from tests.hybrid.conftest import judge

    result = judge(graphs["gated"])
    china = [(v.rule_id, v.urn, v.message) for v in judged(result.violations) if "$alicloud:" in v.urn]
    assert china == []
    # Tencent: gating adds nothing (GF-STOR-008 cannot judge a Tencent AS system disk, gated or not).
    tencent = sorted((v.rule_id, v.urn) for v in result.violations if "$tencentcloud:" in v.urn)
    ungated = judge(graphs["ungated"]).violations
    assert tencent == sorted((v.rule_id, v.urn) for v in ungated if "$tencentcloud:" in v.urn)
    assert {rule for rule, _ in tencent} <= {"GF-STOR-008"}
    # GF-OPS-001 judged the gated alarm (it did not step aside).
    assert "GF-OPS-001" not in {n["rule_id"] for n in result.not_applicable}


def test_the_plan_says_the_issuer_must_be_public(graphs: dict[str, Any]) -> None:
    """Alibaba STS reads the issuer's discovery document and keys: the plan says so for the gated stack,
    and says nothing without a publisher."""
    note = (
        "program warning: the RAM OIDC provider trusts https://oidc.lab.example.com/k8s: "
        "Alibaba STS must reach "
        "https://oidc.lab.example.com/k8s/.well-known/openid-configuration and its jwks_uri over the public "
        "internet with the pinned certificate, and the cluster's --service-account-issuer must be that "
        "URL; a private API server publishes both documents elsewhere (docs/hybrid.md)"
    )
    assert [n for n in graphs["gated"].notes if "OIDC" in n] == [note]
    assert not [n for n in graphs["ungated"].notes if "OIDC" in n]
