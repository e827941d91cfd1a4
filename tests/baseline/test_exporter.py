"""The exporter's objects on the on-prem cluster, exactly: RBAC, the hardened pod, probes, mounts, the
ConfigMap's script and config, the client Secret and the egress policy."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.components.baseline.exporter import (
    AlicloudGatedPool,
    AlicloudPublishing,
    AlicloudSignalSite,
    SignalExporter,
    SignalExporterArgs,
    SignalSite,
    script_text,
)
from gpufleet.components.baseline.exporters.aws import aws_config
from tests.components.conftest import RecordingMocks, Runner

IMAGE = "ghcr.io/ml-platform/gpufleet-exporter:1.0.0@sha256:" + "ab" * 32
ANCHOR = "arn:aws:rolesanywhere:us-east-1:123456789012:trust-anchor/0a1b2c3d-1111-2222-3333-444455556666"
PROFILE = "arn:aws:rolesanywhere:us-east-1:123456789012:profile/9f8e7d6c-1111-2222-3333-444455556666"
ROLE = "arn:aws:iam::123456789012:role/gpufleet-hybrid-signal-role"
LABELS = {"team": "ml-platform", "gpufleet.io/fleet": "gpufleet-hybrid"}
APP = "gpufleet-hybrid-signal-exporter"
SELECTOR = {"app.kubernetes.io/name": APP}


def _args(**changes: Any) -> SignalExporterArgs:
    values: dict[str, Any] = {
        "fleet": "gpufleet-hybrid",
        "image": IMAGE,
        "sites": [
            SignalSite(site="aws:us-east-1", region="us-east-1", ahead=()),
            SignalSite(
                site="aws:eu-west-1", region="eu-west-1", ahead=("aws:us-east-1", "alicloud:cn-hangzhou")
            ),
        ],
        "node_selector": {"gpufleet.io/capacity": "baseline"},
        "interval_seconds": 30,
        "client_certificate": "CERT PEM",
        "client_key": "KEY PEM",
        "role_arn": ROLE,
        "profile_arn": PROFILE,
        "trust_anchor_arn": ANCHOR,
        "labels": LABELS,
        "order": ["aws:us-east-1", "alicloud:cn-hangzhou", "aws:eu-west-1"],
        **changes,
    }
    return SignalExporterArgs(**values)


@pytest.fixture
def built(run_pulumi: Runner) -> RecordingMocks:
    return run_pulumi(lambda: SignalExporter("x", _args()))


def test_the_objects(built: RecordingMocks) -> None:
    assert built.names_by_type() == [
        ("gpufleet:baseline:SignalExporter", "x"),
        ("kubernetes:apps/v1:Deployment", "x-deployment"),
        ("kubernetes:core/v1:ConfigMap", "x-config"),
        ("kubernetes:core/v1:Namespace", "x-ns"),
        ("kubernetes:core/v1:Secret", "x-client"),
        ("kubernetes:core/v1:ServiceAccount", "x-account"),
        ("kubernetes:networking.k8s.io/v1:NetworkPolicy", "x-egress"),
        ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "x-reader"),
        ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "x-reader-binding"),
    ]
    ns = built.one("kubernetes:core/v1:Namespace", "x-ns").inputs["metadata"]
    assert ns["name"] == "gpufleet-system"
    assert ns["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


def test_rbac_reads_nodes_and_pods_only(built: RecordingMocks) -> None:
    role = built.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "x-reader").inputs
    assert role["rules"] == [{"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get", "list"]}]
    binding = built.one(
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "x-reader-binding"
    ).inputs
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": APP}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": APP, "namespace": "gpufleet-system"}]
    account = built.one("kubernetes:core/v1:ServiceAccount", "x-account").inputs
    assert account["automountServiceAccountToken"] is False


def _pod(built: RecordingMocks) -> dict[str, Any]:
    spec = built.one("kubernetes:apps/v1:Deployment", "x-deployment").inputs["spec"]
    assert (spec["replicas"], spec["selector"]) == (1, {"matchLabels": SELECTOR})
    pod: dict[str, Any] = spec["template"]["spec"]
    return pod


def test_the_pod_is_hardened(built: RecordingMocks) -> None:
    pod = _pod(built)
    assert pod["serviceAccountName"] == APP
    assert pod["automountServiceAccountToken"] is False
    assert pod["securityContext"] == {
        "runAsNonRoot": True,
        "runAsUser": 10001,
        "runAsGroup": 10001,
        "fsGroup": 10001,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    (container,) = pod["containers"]
    assert container["image"] == IMAGE
    assert container["securityContext"] == {
        "privileged": False,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "runAsUser": 10001,
        "runAsGroup": 10001,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert container["resources"] == {
        "requests": {"cpu": "50m", "memory": "64Mi"},
        "limits": {"cpu": "250m", "memory": "256Mi"},
    }
    check = [
        "python3",
        "/etc/gpufleet/exporter/exporter.py",
        "--config",
        "/etc/gpufleet/exporter/config.json",
    ]
    assert container["command"] == check
    probe = {
        "exec": {"command": [*check, "--check"]},
        "periodSeconds": 30,
        "timeoutSeconds": 10,
        "failureThreshold": 3,
    }
    assert container["livenessProbe"] == {**probe, "initialDelaySeconds": 60}
    assert container["readinessProbe"] == {**probe, "initialDelaySeconds": 10}
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["AWS_CONFIG_FILE"] == "/etc/gpufleet/exporter/config"
    assert not any("SECRET" in name or "ACCESS_KEY" in name for name in env)


def test_mounts_are_read_only_and_the_token_is_projected(built: RecordingMocks) -> None:
    pod = _pod(built)
    (container,) = pod["containers"]
    assert container["volumeMounts"] == [
        {"name": "config", "mountPath": "/etc/gpufleet/exporter", "readOnly": True},
        {"name": "client", "mountPath": "/etc/gpufleet/client", "readOnly": True},
        {"name": "api-token", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True},
        {"name": "tmp", "mountPath": "/tmp"},
    ]
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["client"]["secret"] == {"secretName": f"{APP}-client", "defaultMode": 0o440}
    assert volumes["config"]["configMap"] == {"name": APP, "defaultMode": 0o444}
    assert volumes["api-token"]["projected"]["sources"] == [
        {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
    ]
    assert volumes["tmp"]["emptyDir"] == {"medium": "Memory", "sizeLimit": "16Mi"}
    assert not any("hostPath" in v for v in pod["volumes"])


def test_the_config_map_ships_the_script_its_config_and_the_credential_process(built: RecordingMocks) -> None:
    data = built.one("kubernetes:core/v1:ConfigMap", "x-config").inputs["data"]
    assert data["exporter.py"] == script_text()
    assert json.loads(data["config.json"]) == {
        "namespace": "gpufleet/Baseline",
        "metric": "FreeGpusAhead",
        "dimension": "Site",
        "interval_seconds": 30,
        "node_selector": {"gpufleet.io/capacity": "baseline"},
        "order": ["aws:us-east-1", "alicloud:cn-hangzhou", "aws:eu-west-1"],
        "sites": [
            {"site": "aws:us-east-1", "region": "us-east-1", "ahead": []},
            {
                "site": "aws:eu-west-1",
                "region": "eu-west-1",
                "ahead": ["aws:us-east-1", "alicloud:cn-hangzhou"],
            },
        ],
    }
    assert data["config"] == (
        "[default]\n"
        "credential_process = aws_signing_helper credential-process "
        "--certificate /etc/gpufleet/client/tls.crt "
        f"--private-key /etc/gpufleet/client/tls.key --trust-anchor-arn {ANCHOR} --profile-arn {PROFILE} "
        f"--role-arn {ROLE}\n"
    )
    assert data["config"] == aws_config(ANCHOR, PROFILE, ROLE)


def test_the_client_secret(built: RecordingMocks) -> None:
    secret = built.one("kubernetes:core/v1:Secret", "x-client").inputs
    assert secret["type"] == "kubernetes.io/tls"
    assert secret["metadata"]["name"] == f"{APP}-client"
    assert secret["metadata"]["namespace"] == "gpufleet-system"
    # Marked secret on the wire (Pulumi's secret signature), so the engine and state keep it encrypted.
    assert secret["stringData"] == {
        "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
        "value": {"tls.crt": "CERT PEM", "tls.key": "KEY PEM"},
    }


def test_the_network_policy_allows_dns_and_https_out_and_nothing_in(built: RecordingMocks) -> None:
    spec = built.one("kubernetes:networking.k8s.io/v1:NetworkPolicy", "x-egress").inputs["spec"]
    assert spec == {
        "podSelector": {"matchLabels": SELECTOR},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [],
        "egress": [
            {
                "ports": [
                    {"protocol": "UDP", "port": 53},
                    {"protocol": "TCP", "port": 53},
                    {"protocol": "TCP", "port": 443},
                    {"protocol": "TCP", "port": 6443},
                ]
            }
        ],
    }


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"image": "ghcr.io/x/y:1"},
            "SignalExporterArgs: image: must be pinned by @sha256: digest, got 'ghcr.io/x/y:1'",
        ),
        ({"sites": []}, "SignalExporterArgs: sites: at least one AWS site to publish for"),
        (
            {"alicloud": None},
            "SignalExporterArgs: alicloud.service_account: the Alibaba role trusts "
            "'gpufleet-system/baseline-exporter', but the exporter runs as "
            "'gpufleet-system/gpufleet-hybrid-signal-exporter'",
        ),
    ],
)
def test_bad_args_are_refused(changes: dict[str, Any], message: str) -> None:
    if changes == {"alicloud": None}:
        changes = {"alicloud": _alicloud(service_account="gpufleet-system/baseline-exporter")}
    with pytest.raises(ValueError) as caught:
        _args(**changes)
    assert str(caught.value) == message


ALI_ROLE = "acs:ram::1234567890123456:role/gpufleet-hybrid-burst-publisher"
ALI_PROVIDER = "acs:ram::1234567890123456:oidc-provider/gpufleet-hybrid-burst-publisher"


def _alicloud(**changes: Any) -> AlicloudPublishing:
    values: dict[str, Any] = {
        "sites": [
            AlicloudSignalSite(
                site="alicloud:cn-hangzhou",
                region="cn-hangzhou",
                ahead=("aws:us-east-1",),
                pools=(
                    AlicloudGatedPool(
                        pool="burst-alicloud", queue="gpufleet-hybrid-cn-hangzhou-burst-alicloud"
                    ),
                ),
            )
        ],
        "role_arn": ALI_ROLE,
        "oidc_provider_arn": ALI_PROVIDER,
        "client_id": "sts.aliyuncs.com",
        "service_account": f"gpufleet-system/{APP}",
        **changes,
    }
    return AlicloudPublishing(**values)


@pytest.fixture
def built_alicloud(run_pulumi: Runner) -> RecordingMocks:
    return run_pulumi(lambda: SignalExporter("x", _args(alicloud=_alicloud())))


def test_alibaba_publishing_adds_its_sites_and_identity_to_the_config(built_alicloud: RecordingMocks) -> None:
    data = built_alicloud.one("kubernetes:core/v1:ConfigMap", "x-config").inputs["data"]
    config = json.loads(data["config.json"])
    assert config["alicloud"] == {
        "account_id": "1234567890123456",
        "role_arn": ALI_ROLE,
        "oidc_provider_arn": ALI_PROVIDER,
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
    assert [s["site"] for s in config["sites"]] == ["aws:us-east-1", "aws:eu-west-1"]  # AWS unchanged


def test_alibaba_publishing_mounts_a_second_token_for_the_oidc_audience(
    built_alicloud: RecordingMocks,
) -> None:
    pod = _pod(built_alicloud)
    (container,) = pod["containers"]
    assert container["volumeMounts"] == [
        {"name": "config", "mountPath": "/etc/gpufleet/exporter", "readOnly": True},
        {"name": "client", "mountPath": "/etc/gpufleet/client", "readOnly": True},
        {"name": "api-token", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True},
        {"name": "alicloud-token", "mountPath": "/var/run/secrets/gpufleet/alicloud", "readOnly": True},
        {"name": "tmp", "mountPath": "/tmp"},
    ]
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["alicloud-token"] == {
        "name": "alicloud-token",
        "projected": {
            "defaultMode": 0o444,
            "sources": [
                {
                    "serviceAccountToken": {
                        "path": "token",
                        "audience": "sts.aliyuncs.com",
                        "expirationSeconds": 3600,
                    }
                }
            ],
        },
    }
    # the API token keeps the API server's audience: it is never sent to Alibaba Cloud
    assert volumes["api-token"]["projected"]["sources"][0] == {
        "serviceAccountToken": {"path": "token", "expirationSeconds": 3600}
    }
    assert pod["automountServiceAccountToken"] is False


def test_without_alibaba_publishing_there_is_no_second_token(built: RecordingMocks) -> None:
    pod = _pod(built)
    assert "alicloud-token" not in {v["name"] for v in pod["volumes"]}
    data = built.one("kubernetes:core/v1:ConfigMap", "x-config").inputs["data"]
    assert "alicloud" not in json.loads(data["config.json"])
