"""Typed placeholders and conforming values, read from the SDKs' annotations (`gpufleet.sdktypes`)."""

from __future__ import annotations

import enum
import importlib
from collections.abc import Mapping, Sequence
from typing import Literal

import pulumi
import pytest
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockResourceArgs

from gpufleet import sdktypes
from gpufleet.graph import SECRET_SIG, SECRET_SIG_KEY
from gpufleet.mocks import FleetMocks, MockAnswer, recorded_outputs
from gpufleet.sdktypes import Owner, complete, conform, placeholder

OWNER = Owner("acme:net/balancer:Balancer", "web", "eu-west-1")


class Scheme(enum.StrEnum):
    INTERNAL = "internal"
    PUBLIC = "internet-facing"


@pulumi.output_type
class Ingress(dict):  # type: ignore[type-arg]
    def __init__(self, hostname: str, ip: str | None = None) -> None:
        pulumi.set(self, "hostname", hostname)
        pulumi.set(self, "ip", ip)

    @property
    @pulumi.getter
    def hostname(self) -> str:
        return pulumi.get(self, "hostname")  # type: ignore[no-any-return]

    @property
    @pulumi.getter
    def ip(self) -> str | None:
        return pulumi.get(self, "ip")  # type: ignore[no-any-return]


@pulumi.output_type
class Status(dict):  # type: ignore[type-arg]
    def __init__(self, ingress: Sequence[Ingress], ready: bool, listener_port: int) -> None:
        pulumi.set(self, "ingress", ingress)
        pulumi.set(self, "ready", ready)
        pulumi.set(self, "listener_port", listener_port)

    @property
    @pulumi.getter
    def ingress(self) -> Sequence[Ingress]:
        return pulumi.get(self, "ingress")  # type: ignore[no-any-return]

    @property
    @pulumi.getter
    def ready(self) -> bool:
        return pulumi.get(self, "ready")  # type: ignore[no-any-return]

    @property
    @pulumi.getter(name="listenerPort")
    def listener_port(self) -> int:
        return pulumi.get(self, "listener_port")  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("typ", "prop", "expected"),
    [
        (str, "dnsName", "web-dns-name.eu-west-1.placeholder.invalid"),
        (str, "executionArn", "arn:aws:execute-api:eu-west-1:123456789012:balancer/web-execution-arn"),
        (str, "vpcCidr", "10.0.0.0/16"),
        (str, "invokeUrl", "https://web-invoke-url.eu-west-1.placeholder.invalid"),
        (str, "createdAt", "2025-01-01T00:00:00Z"),
        (str, "owner", "web-owner"),
        (str | None, "owner", "web-owner"),
        (bool, "enabled", False),
        (int, "count", 1),
        (int, "listenerPort", 443),
        (float, "weight", 1.0),
        (Scheme, "scheme", "internal"),
        (Literal["v1"], "apiVersion", "v1"),
        (Sequence[str], "zones", ["web-zones"]),
        (Mapping[str, str], "tags", {}),
        (Sequence[Mapping[str, str]], "extra", [{}]),
        (
            Status,
            "status",
            {
                "ingress": [{"hostname": "web-hostname.eu-west-1.placeholder.invalid", "ip": "10.0.0.10"}],
                "ready": False,
                "listenerPort": 443,
            },
        ),
    ],
)
def test_placeholders_follow_the_declared_type(typ: object, prop: str, expected: object) -> None:
    assert placeholder(typ, prop, OWNER) == expected


def test_placeholders_are_fresh_copies() -> None:
    first = placeholder(Status, "status", OWNER)
    first["ingress"][0]["hostname"] = "changed"
    assert placeholder(Status, "status", OWNER)["ingress"][0]["hostname"].startswith("web-hostname")


def test_other_clouds_get_their_own_arn_shapes() -> None:
    ali = Owner("alicloud:ecs/instance:Instance", "gpu", "cn-shanghai")
    assert placeholder(str, "ramArn", ali) == "acs:ecs:cn-shanghai:1234567890123456:instance/gpu-ram-arn"
    tencent = Owner("tencentcloud:Clb/instance:Instance", "lb", "ap-shanghai")
    assert placeholder(str, "arn", tencent) == "qcs::clb:ap-shanghai:uin/100000000001:instance/lb-arn"


@pytest.mark.parametrize(
    ("value", "typ", "expected"),
    [
        ({"Statement": []}, str, '{"Statement":[]}'),
        (True, str, "true"),
        (4.0, str, "4"),
        ("true", bool, True),
        ("4", int, 4),
        (4.0, int, 4),
        ("1.5", float, 1.5),
        ("internet-facing", Scheme, "internet-facing"),
        ("bogus", Scheme, "internal"),
        ("a", Sequence[str], ["a"]),
        ({"a": 1}, Mapping[str, str], {"a": "1"}),
        (["not", "a map"], Mapping[str, str], {}),
        ([{"hostname": "h"}], Ingress, {"hostname": "h"}),
        (
            {"ingress": {"hostname": "h"}, "ready": "false"},
            Status,
            {"ingress": [{"hostname": "h"}], "ready": False},
        ),
        ("text", Status, placeholder(Status, "status", OWNER)),
        ({"a": 1}, int, 1),
    ],
)
def test_known_values_take_the_declared_shape(value: object, typ: object, expected: object) -> None:
    assert conform(value, typ, "status", OWNER) == expected


def test_secrets_and_references_keep_their_form() -> None:
    secret = {SECRET_SIG_KEY: SECRET_SIG, "value": 3.0}
    assert conform(secret, int, "count", OWNER) == {SECRET_SIG_KEY: SECRET_SIG, "value": 3}
    reference = object()
    assert conform(reference, str, "role", OWNER) is reference


def test_complete_fills_only_what_is_missing_and_names_it() -> None:
    cls = sdktypes.resource_class("aws:lb/loadBalancer:LoadBalancer")
    assert cls is not None
    owner = Owner("aws:lb/loadBalancer:LoadBalancer", "web", "us-east-1")
    values, filled = complete(cls, owner, {"internal": "false", "arn": "arn:aws:x", "custom": {"a": 1}})
    assert values["internal"] is False
    assert values["arn"] == "arn:aws:x"
    assert values["custom"] == {"a": 1}
    assert values["dnsName"] == "web-dns-name.us-east-1.placeholder.invalid"
    assert "dnsName" in filled and "arn" not in filled and "internal" not in filled
    assert set(values) == set(sdktypes.declared_types(cls)) | {"custom"}


@pytest.mark.parametrize(
    ("token", "qualified"),
    [
        ("aws:apigateway/stage:Stage", "pulumi_aws.apigateway.stage.Stage"),
        ("aws:lambda/function:Function", "pulumi_aws.lambda_.function.Function"),
        ("alicloud:ram/role:Role", "pulumi_alicloud.ram.role.Role"),
        ("tencentcloud:Cos/bucket:Bucket", "tencentcloud_iac_pulumi.cos.bucket.Bucket"),
        ("kubernetes:core/v1:Service", "pulumi_kubernetes.core.v1.Service.Service"),
        ("kubernetes:helm.sh/v3:Release", "pulumi_kubernetes.helm.v3.Release.Release"),
        ("kubernetes:kustomize:Directory", "pulumi_kubernetes.kustomize.kustomize.Directory"),
    ],
)
def test_resource_classes_are_found_from_the_type_token(token: str, qualified: str) -> None:
    cls = sdktypes.resource_class(token)
    assert cls is not None and f"{cls.__module__}.{cls.__name__}" == qualified


@pytest.mark.parametrize(
    ("token", "qualified"),
    [
        (
            "aws:ecr/getAuthorizationToken:getAuthorizationToken",
            "pulumi_aws.ecr.get_authorization_token.GetAuthorizationTokenResult",
        ),
        ("aws:ecr/getCredentials:getCredentials", "pulumi_aws.ecr.get_credentials.GetCredentialsResult"),
        (
            "aws:index/getCallerIdentity:getCallerIdentity",
            "pulumi_aws.get_caller_identity.GetCallerIdentityResult",
        ),
        ("alicloud:index/getZones:getZones", "pulumi_alicloud.get_zones.GetZonesResult"),
        (
            "tencentcloud:Images/getInstance:getInstance",
            "tencentcloud_iac_pulumi.images.get_instance.GetInstanceResult",
        ),
    ],
)
def test_invoke_result_classes_are_found_from_the_token(token: str, qualified: str) -> None:
    cls = sdktypes.invoke_result_class(token)
    assert cls is not None and f"{cls.__module__}.{cls.__name__}" == qualified


@pytest.mark.parametrize(
    "token",
    ["acme:index:Thing", "not-a-token", "aws:nosuchmodule/thing:Thing", "aws::", "kubernetes:helm:template"],
)
def test_unknown_tokens_describe_nothing(token: str) -> None:
    assert sdktypes.resource_class(token) is None
    assert sdktypes.invoke_result_class(token) is None


def test_the_mocks_answer_names_its_placeholders_and_the_graph_keeps_the_rest() -> None:
    mocks = FleetMocks({"aws:region": "us-east-1"})
    _id, answer = mocks.new_resource(
        MockResourceArgs("aws:lb/loadBalancer:LoadBalancer", "web", {"internal": True}, custom=True)
    )
    assert isinstance(answer, MockAnswer)
    assert answer["dnsName"] == "web-dns-name.us-east-1.placeholder.invalid"
    kept = recorded_outputs(answer)
    assert "dnsName" not in kept and kept["internal"] is True and kept["arn"].startswith("arn:aws:")
    # no SDK class: structured values are left out, as before
    _cid, component = mocks.new_resource(
        MockResourceArgs("acme:index:Thing", "t", {"size": 2, "spec": {"a": 1}}, custom=False)
    )
    assert dict(component) == {"size": 2}
    assert recorded_outputs({"plain": 1}) == {"plain": 1}


@pytest.mark.parametrize("package", ["aws", "alicloud", "tencentcloud", "kubernetes"])
def test_every_declared_output_is_filled_in_a_shape_the_sdk_accepts(package: str) -> None:
    """A fixed sample (every 60th registered type) of each provider: no declared output is None, and
    the SDK's own output translation takes every value (it raises on a shape the type does not allow)."""
    importlib.import_module(
        {
            "aws": "pulumi_aws",
            "alicloud": "pulumi_alicloud",
            "tencentcloud": "tencentcloud_iac_pulumi",
            "kubernetes": "pulumi_kubernetes",
        }[package]
    )
    tokens = sorted({t for info in sdktypes._module_infos(package) for t in info["classes"]})[::60]
    checked = 0
    for token in tokens:
        cls = sdktypes.resource_class(token)
        if cls is None:  # a module of the SDK that does not import
            continue
        types = sdktypes.declared_types(cls)
        values, filled = complete(cls, Owner(token, "n", "r"), {})
        assert filled == frozenset(types), token
        for key, typ in types.items():
            assert values[key] is not None or sdktypes._shape(typ)[0] == "any", (token, key)
            rpc.translate_output_properties(values[key], lambda name: name, typ)
        checked += 1
    assert checked >= 5
