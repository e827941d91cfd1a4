from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.k8s.no_plain_cloud_credentials import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, run_resource

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
CONFIGMAP = "kubernetes:core/v1:ConfigMap"
FAKE_AWS = "AKIA" + "IOSFODNN7EXAMPLE"
FAKE_ALI = "LTAI" + "5tAbCdEfGhIjKlMn"
FAKE_TC = "AKID" + "a" * 32


def deployment(env: list[dict[str, Any]], role: str = "containers") -> dict[str, Any]:
    return {"spec": {"template": {"spec": {"containers": [], role: [{"name": "app", "env": env}]}}}}


def test_metadata() -> None:
    assert RULE.id == "GF-K8S-005"
    assert POLICY.enforcement_level.value == "mandatory"


def test_secret_refs_and_harmless_env_pass() -> None:
    env = [
        {"name": "AWS_SECRET_ACCESS_KEY", "valueFrom": {"secretKeyRef": {"name": "aws", "key": "secret"}}},
        {"name": "AWS_REGION", "value": "us-east-1"},
        {"name": "NCCL_DEBUG", "value": "INFO"},
    ]
    assert run_resource(POLICY, DEPLOYMENT, deployment(env), name="app") == []
    assert run_resource(POLICY, CONFIGMAP, {"data": {"region": "cn-hangzhou"}}, name="cfg") == []


@pytest.mark.parametrize(
    "name",
    [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "ALICLOUD_ACCESS_KEY",
        "ALICLOUD_SECRET_KEY",
        "ALIBABA_CLOUD_ACCESS_KEY_SECRET",
        "TENCENTCLOUD_SECRET_ID",
        "TENCENTCLOUD_SECRET_KEY",
    ],
)
def test_credential_names(name: str) -> None:
    assert run_resource(POLICY, DEPLOYMENT, deployment([{"name": name, "value": "x"}]), name="app") == [
        f"Deployment 'app' container 'app' sets env {name} as a plain value with a cloud credential name; "
        "use valueFrom.secretKeyRef or a workload identity"
    ]


@pytest.mark.parametrize("value", [FAKE_AWS, FAKE_ALI, FAKE_TC, f"key={FAKE_AWS}"])
def test_key_shaped_values_are_reported_without_echoing_them(value: str) -> None:
    messages = run_resource(POLICY, DEPLOYMENT, deployment([{"name": "CREDS", "value": value}]), name="app")
    assert messages == [
        "Deployment 'app' container 'app' sets env CREDS as a plain value with a value shaped like a cloud "
        "access key; use valueFrom.secretKeyRef or a workload identity"
    ]
    assert value not in messages[0]


def test_init_containers() -> None:
    env = [{"name": "AWS_ACCESS_KEY_ID", "value": "x"}]
    assert run_resource(POLICY, DEPLOYMENT, deployment(env, role="initContainers"), name="app") == [
        "Deployment 'app' init container 'app' sets env AWS_ACCESS_KEY_ID as a plain value with a cloud "
        "credential name; use valueFrom.secretKeyRef or a workload identity"
    ]


def test_configmap_keys_and_values() -> None:
    data = {"AWS_SECRET_ACCESS_KEY": "x", "settings.ini": f"[default]\nid = {FAKE_ALI}\n"}
    assert run_resource(POLICY, CONFIGMAP, {"data": data}, name="cfg") == [
        "ConfigMap 'cfg' key 'AWS_SECRET_ACCESS_KEY' holds a cloud credential name; move it to a Secret or "
        "use a workload identity",
        "ConfigMap 'cfg' key 'settings.ini' holds a value shaped like a cloud "
        "access key; move it to a Secret "
        "or use a workload identity",
    ]


def test_unknown_values() -> None:
    # a plain value computed from an output is still a plain value when the name says credential
    env = [{"name": "AWS_SECRET_ACCESS_KEY", "value": UNKNOWN_STRING_VALUE}]
    assert run_resource(POLICY, DEPLOYMENT, deployment(env), name="app", proxy=True) == [
        "Deployment 'app' container 'app' sets env AWS_SECRET_ACCESS_KEY as a plain value with a cloud "
        "credential name; use valueFrom.secretKeyRef or a workload identity"
    ]
    env = [{"name": UNKNOWN_STRING_VALUE, "value": "x"}]
    assert run_resource(POLICY, DEPLOYMENT, deployment(env), name="app", proxy=True) == [
        "could not be judged at preview: the string value at .spec.template.spec.containers.0.env.0.name "
        "can't be known during preview"
    ]


def test_patch_without_pod_template_is_not_applicable() -> None:
    props = {"spec": {"replicas": 2}}
    assert run_resource(POLICY, "kubernetes:apps/v1:StatefulSetPatch", props, name="s") == (
        "N/A: the resource sets no pod template (a patch of other fields)"
    )


def test_proxied_configmap() -> None:
    assert run_resource(
        POLICY, CONFIGMAP, {"data": {"TENCENTCLOUD_SECRET_KEY": "x"}}, name="c", proxy=True
    ) == [
        "ConfigMap 'c' key 'TENCENTCLOUD_SECRET_KEY' holds a cloud credential "
        "name; move it to a Secret or use "
        "a workload identity"
    ]
