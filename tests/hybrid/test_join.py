"""The hybrid stack's burst nodes join the on-prem cluster (components/pools/join.py): a join secret per
pool that only the pool's role reads, a boot script that joins with the flavor's labels and taint and
the provider ID each cluster-autoscaler provider parses, the AWS group's discovery tags, one scaler per
group, and the AWS autoscaler's own Roles Anywhere role."""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.components.pools.alicloud_join import PLACEHOLDER
from gpufleet.components.spec import SpecError, parse_fleet
from gpufleet.engine import run_program
from gpufleet.graph import Resource, ResourceGraph
from tests.cli.helpers import copy_project
from tests.hybrid.conftest import FLEET, ROOT

ACCOUNT = "123456789012"
KEY = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/7782f263-a203-4ce5-a8e5-a8a150253bb2"
ALI = f"{FLEET}-cn-hangzhou-pool-burst-alicloud"
TC = f"{FLEET}-tencentcloud-ap-guangzhou-pool-burst-tencent"
AWS_POOL = f"{FLEET}-pool-burst-aws"
TOKEN_RE = re.compile(r"\b[a-z0-9]{6}\.[a-z0-9]{16}\b")
HASH_RE = re.compile(r"sha256:[0-9a-f]{64}")


def _one(graph: ResourceGraph, token: str, name: str) -> Resource:
    found = [r for r in graph.of_type(token) if r.name == name]
    assert len(found) == 1, (token, name, [r.name for r in graph.of_type(token)])
    return found[0]


def _script(resource: Resource) -> str:
    return base64.b64decode(resource.inputs["userData"]).decode()


def _boot_scripts(graph: ResourceGraph) -> dict[str, str]:
    return {
        "aws": _script(_one(graph, "aws:ec2/launchTemplate:LaunchTemplate", f"{AWS_POOL}-lt")),
        "alicloud": _script(
            _one(graph, "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", f"{ALI}-template")
        ),
        "tencentcloud": _script(
            _one(graph, "tencentcloud:As/scalingConfig:ScalingConfig", f"{TC}-spot-config")
        ),
    }


def test_each_pool_has_a_join_secret_the_program_never_fills(hybrid: ResourceGraph) -> None:
    aws_secret = _one(hybrid, "aws:secretsmanager/secret:Secret", f"{AWS_POOL}-join").inputs
    assert (aws_secret["name"], aws_secret["kmsKeyId"], aws_secret["recoveryWindowInDays"]) == (
        f"{AWS_POOL}-join",
        KEY,
        7,
    )
    ali_secret = _one(hybrid, "alicloud:kms/secret:Secret", f"{ALI}-join").inputs
    assert ali_secret["secretName"] == f"{FLEET}-cn-hangzhou-burst-alicloud-join"
    assert ali_secret["secretData"]["value"] == PLACEHOLDER
    assert ali_secret["encryptionKeyId"] == "c8b057cd-fa1c-4c90-a24c-034c1750a6e5"
    tc_secret = _one(hybrid, "tencentcloud:Ssm/secret:Secret", f"{TC}-join").inputs
    assert tc_secret["secretName"] == f"{TC}-join"
    assert tc_secret["kmsKeyId"] == "d1a8ec55-7716-4629-abcc-14bde8a04cc2"
    # No version resource anywhere: the operator's value is never the program's (nor the state's).
    assert hybrid.of_type("aws:secretsmanager/secretVersion:SecretVersion") == []
    assert hybrid.of_type("tencentcloud:Ssm/secretVersion:SecretVersion") == []


def test_each_role_reads_its_own_join_secret_only(hybrid: ResourceGraph) -> None:
    aws_doc = json.loads(
        _one(hybrid, "aws:iam/rolePolicy:RolePolicy", f"{AWS_POOL}-join-read").inputs["policy"]
    )
    assert aws_doc["Statement"] == [
        {
            "Sid": "ReadJoinSecret",
            "Effect": "Allow",
            "Action": ["secretsmanager:GetSecretValue"],
            "Resource": [f"arn:aws:secretsmanager:us-east-1:{ACCOUNT}:secret/{AWS_POOL}-join"],
        },
        {
            "Sid": "DecryptJoinSecret",
            "Effect": "Allow",
            "Action": ["kms:Decrypt"],
            "Resource": [KEY],
            "Condition": {"StringEquals": {"kms:ViaService": "secretsmanager.us-east-1.amazonaws.com"}},
        },
    ]
    ali = _one(hybrid, "alicloud:ram/policy:Policy", f"{ALI}-join-read").inputs
    assert json.loads(ali["policyDocument"])["Statement"] == [
        {
            "Action": ["kms:GetSecretValue"],
            "Effect": "Allow",
            "Resource": [
                "acs:kms:cn-hangzhou:1234567890123456:secret/gpufleet-hybrid-cn-hangzhou-burst-alicloud-join"
            ],
        },
        {
            "Action": ["kms:Decrypt"],
            "Effect": "Allow",
            "Resource": ["acs:kms:cn-hangzhou:1234567890123456:key/c8b057cd-fa1c-4c90-a24c-034c1750a6e5"],
        },
    ]
    attach = _one(hybrid, "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", f"{ALI}-join-read-attach")
    assert (
        attach.inputs["roleName"] == _one(hybrid, "alicloud:ram/role:Role", f"{ALI}-role").inputs["roleName"]
    )
    tc = _one(hybrid, "tencentcloud:Cam/policy:Policy", f"{TC}-join-read").inputs
    assert json.loads(tc["document"])["statement"] == [
        {
            "action": ["ssm:GetSecretValue"],
            "effect": "allow",
            "resource": [f"qcs::ssm:ap-guangzhou:uin/100000000001:secret/creatorUin/100000000001/{TC}-join"],
        }
    ]


def test_nodes_join_with_the_flavors_labels_taint_and_provider_id(hybrid: ResourceGraph) -> None:
    flavors = {
        r.inputs["metadata"]["name"]: r.inputs["spec"]
        for r in hybrid.of_type("kubernetes:kueue.x-k8s.io/v1beta1:ResourceFlavor")
    }
    provider_ids = {
        "aws": 'PROVIDER_ID="aws:///$ZONE/$INSTANCE"',
        "alicloud": 'PROVIDER_ID="$REGION.$INSTANCE"',
        "tencentcloud": 'PROVIDER_ID="qcloud:///$ZONE/$INSTANCE"',
    }
    reads = {
        "aws": f"aws secretsmanager get-secret-value --region us-east-1 --secret-id {AWS_POOL}-join",
        "alicloud": "aliyun kms GetSecretValue --SecretName gpufleet-hybrid-cn-hangzhou-burst-alicloud-join "
        "--region cn-hangzhou --endpoint kms-vpc.cn-hangzhou.aliyuncs.com --mode EcsRAMRole",
        "tencentcloud": f"tccli ssm GetSecretValue --region ap-guangzhou --SecretName {TC}-join "
        "--VersionId current --use-cvm-role",
    }
    regions = {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"}
    for cloud, script in _boot_scripts(hybrid).items():
        flavor = flavors[f"{cloud}-{regions[cloud]}"]
        (label,) = [f"{k}={v}" for k, v in flavor["nodeLabels"].items()]
        (taint,) = flavor["nodeTaints"]
        assert f"    - {{name: node-labels, value: {label}}}\n" in script
        registered = f"{taint['key']}={taint['value']}:{taint['effect']}"
        assert f"    - {{name: register-with-taints, value: {registered}}}\n" in script
        assert "    apiServerEndpoint: 192.168.16.10:6443\n" in script
        assert "kubeadm join --config /run/gpufleet/kubeadm-join.yaml" in script
        assert provider_ids[cloud] in script
        assert reads[cloud] in script
        # Never a token or a CA hash in the user data: the node reads them at boot.
        assert TOKEN_RE.search(script) is None, cloud
        assert HASH_RE.search(script) is None, cloud
    # CVM sets a root password: the Tencent node locks it before anything else.
    assert _boot_scripts(hybrid)["tencentcloud"].index("passwd -l") < _boot_scripts(hybrid)[
        "tencentcloud"
    ].index("kubeadm")


def test_the_aws_group_carries_discovery_and_template_tags_not_propagated(hybrid: ResourceGraph) -> None:
    tags = {
        t["key"]: (t["value"], t["propagateAtLaunch"])
        for t in _one(hybrid, "aws:autoscaling/group:Group", f"{AWS_POOL}-asg").inputs["tags"]
    }
    template = "k8s.io/cluster-autoscaler/node-template"
    assert {k: v for k, v in tags.items() if k.startswith("k8s.io/")} == {
        "k8s.io/cluster-autoscaler/enabled": ("true", False),
        f"k8s.io/cluster-autoscaler/{FLEET}": ("owned", False),
        f"{template}/label/gpufleet.io/site": ("aws-us-east-1", False),
        f"{template}/taint/gpufleet.io/site": ("aws-us-east-1:NoSchedule", False),
        f"{template}/resources/nvidia.com/gpu": ("4", False),  # g5.12xlarge: 4 A10G
    }
    assert tags["gpufleet:scaler"] == ("cluster-autoscaler", False)


def test_joined_groups_have_one_scaler(hybrid: ResourceGraph) -> None:
    for token in (
        "aws:autoscaling/policy:Policy",
        "aws:cloudwatch/metricAlarm:MetricAlarm",
        "alicloud:ess/scalingRule:ScalingRule",
        "alicloud:ess/alarm:Alarm",
        "alicloud:cms/alarm:Alarm",
        "tencentcloud:As/scalingPolicy:ScalingPolicy",
        "tencentcloud:Monitor/alarmPolicy:AlarmPolicy",
    ):
        pools = [r.name for r in hybrid.of_type(token) if "-pool-" in r.name]
        assert pools == [], token
    assert (
        _one(hybrid, "alicloud:ess/scalingGroup:ScalingGroup", f"{ALI}-group").inputs["tags"][
            "gpufleet:scaler"
        ]
        == "cluster-autoscaler"
    )
    assert (
        _one(hybrid, "tencentcloud:As/scalingGroup:ScalingGroup", f"{TC}-spot").inputs["tags"][
            "gpufleet:scaler"
        ]
        == "cluster-autoscaler"
    )


def test_joined_aws_nodes_reach_secrets_manager_inside_the_vpc(hybrid: ResourceGraph) -> None:
    endpoint = _one(hybrid, "aws:ec2/vpcEndpoint:VpcEndpoint", f"{FLEET}-network-secretsmanager").inputs
    assert (endpoint["serviceName"], endpoint["vpcEndpointType"], endpoint["privateDnsEnabled"]) == (
        "com.amazonaws.us-east-1.secretsmanager",
        "Interface",
        True,
    )


def test_the_aws_autoscaler_signs_in_as_its_own_role(hybrid: ResourceGraph) -> None:
    name = f"{FLEET}-aws-autoscaler"
    role = _one(hybrid, "aws:iam/role:Role", f"{name}-role")
    trust = json.loads(role.inputs["assumeRolePolicy"])["Statement"]
    assert trust == [
        {
            "Sid": "RolesAnywhereTrustAnchor",
            "Effect": "Allow",
            "Action": ["sts:AssumeRole", "sts:TagSession", "sts:SetSourceIdentity"],
            "Principal": {"Service": ["rolesanywhere.amazonaws.com"]},
            "Condition": {
                "ArnEquals": {
                    "aws:SourceArn": f"arn:aws:rolesanywhere:us-east-1:{ACCOUNT}:trust-anchor/{FLEET}-signal"
                },
                "StringEquals": {"aws:PrincipalTag/x509Subject/CN": "gpufleet-exporter.lab.example"},
            },
        }
    ]
    policy = json.loads(_one(hybrid, "aws:iam/rolePolicy:RolePolicy", f"{name}-scale").inputs["policy"])
    assert policy["Statement"] == [
        {
            "Sid": "ScaleFleetGroups",
            "Effect": "Allow",
            "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
            "Resource": [
                f"arn:aws:autoscaling:us-east-1:{ACCOUNT}:autoScalingGroup:*:autoScalingGroupName/*"
            ],
            "Condition": {
                "StringEquals": {
                    f"aws:ResourceTag/k8s.io/cluster-autoscaler/{FLEET}": "owned",
                    "aws:ResourceTag/k8s.io/cluster-autoscaler/enabled": "true",
                }
            },
        },
        {
            "Sid": "ReadGroupsAndTypes",
            "Effect": "Allow",
            "Action": [
                "autoscaling:DescribeAutoScalingGroups",
                "autoscaling:DescribeAutoScalingInstances",
                "autoscaling:DescribeLaunchConfigurations",
                "autoscaling:DescribeScalingActivities",
                "autoscaling:DescribeTags",
                "ec2:DescribeImages",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplateVersions",
                "ec2:GetInstanceTypesFromInstanceRequirements",
            ],
            "Resource": ["*"],
        },
    ]
    profile = _one(hybrid, "aws:rolesanywhere/profile:Profile", f"{name}-profile").inputs
    assert profile["roleArns"] == [role.outputs["arn"]]
    deployment = _one(
        hybrid, "kubernetes:apps/v1:Deployment", f"{FLEET}-scheduling-autoscaler-aws-us-east-1-deployment"
    ).inputs
    scaler, helper = deployment["spec"]["template"]["spec"]["containers"]
    assert {"name": "AWS_EC2_METADATA_SERVICE_ENDPOINT", "value": "http://127.0.0.1:9911"} in scaler["env"]
    command = helper["command"]
    assert command[:2] == ["aws_signing_helper", "serve"]
    assert command[command.index("--role-arn") + 1] == role.outputs["arn"]
    assert (
        command[command.index("--profile-arn") + 1]
        == f"arn:aws:rolesanywhere:us-east-1:{ACCOUNT}:profile/{name}"
    )


def _fleet() -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())["config"]
    return copy.deepcopy(config["gpufleet:fleet"])


@pytest.mark.parametrize(
    ("change", "path", "message"),
    [
        (
            {"api_server": "10.9.9.9:6443"},
            "onprem: scheduler.api_server",
            "10.9.9.9 is not inside onprem.node_cidrs (192.168.16.0/20): the links route the node ranges, "
            "and burst nodes join the API server through them",
        ),
        (
            {"api_server": "apiserver.lab:6443"},
            "onprem.scheduler.api_server",
            "must be the API server's IPv4 address and port like 192.168.16.10:6443, got "
            "'apiserver.lab:6443': burst nodes dial it over the private link, which routes on-prem ranges "
            "only",
        ),
        (
            {"control_plane_cidrs": ["10.9.0.0/24"]},
            "onprem: scheduler.control_plane_cidrs[0]",
            "10.9.0.0/24 is not inside onprem.node_cidrs (192.168.16.0/20): the control plane runs on the "
            "cluster's nodes",
        ),
    ],
)
def test_a_bad_api_server_names_its_field(change: dict[str, Any], path: str, message: str) -> None:
    fleet = _fleet()
    fleet["onprem"]["scheduler"].update(change)
    with pytest.raises(SpecError) as error:
        parse_fleet(fleet)
    # Cross-field checks of onprem report under onprem, naming the field first (as reachable's do).
    assert [f"{p.removeprefix('gpufleet:fleet.')}: {m}" for p, m in error.value.errors] == [
        f"{path}: {message}"
    ]


def test_the_api_server_is_required_with_the_scheduler() -> None:
    fleet = _fleet()
    del fleet["onprem"]["scheduler"]["api_server"]
    with pytest.raises(SpecError) as error:
        parse_fleet(fleet)
    assert [p.removeprefix("gpufleet:fleet.") for p, _ in error.value.errors] == [
        "onprem.scheduler.api_server"
    ]
    assert error.value.errors == [
        (
            "gpufleet:fleet.onprem.scheduler.api_server",
            "is required: the on-prem API server burst nodes join, its IPv4 address and port inside "
            "onprem.node_cidrs, like 192.168.16.10:6443",
        )
    ]


def test_docs_name_what_the_node_image_must_carry() -> None:
    text = (Path(ROOT) / "docs" / "hybrid.md").read_text()
    for word in ("kubeadm token create --print-join-command", "kubeadm", "containerd", "tccli", "aliyun"):
        assert word in text


def _default_image_warnings(graph: ResourceGraph) -> list[str]:
    return sorted(n for n in graph.notes if "boot the cloud's default image" in n)


def test_joined_pools_on_default_images_are_warned_with_the_field_to_set(hybrid: ResourceGraph) -> None:
    named = {
        "burst-aws": "image.ami or image.ssm_parameter",
        "burst-alicloud": "image.id",
        "burst-tencent": "image.id",
    }
    assert _default_image_warnings(hybrid) == sorted(
        "program warning: "
        f"pools.{pool}: its nodes join the on-prem cluster but boot the cloud's default image, which has no "
        "kubeadm or kubelet: they stop at the join script's first check; give the pool an image that has "
        f"them (pools.{pool}.{field}, docs/hybrid.md)"
        for pool, field in named.items()
    )


def test_joined_alibaba_and_tencent_pools_boot_the_image_they_name(tmp_path: Path) -> None:
    text = (ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text()
    for types, image in (
        ("[ecs.gn7i-c8g1.2xlarge]", "{id: m-bp1kubeadm0image01, arch: x86_64}"),
        ("[GN7.2XLARGE32]", "{id: img-k8sjoin1}"),
    ):
        text, count = re.subn(
            rf"(?m)^(\s+)(instance_types: {re.escape(types)}.*)$", rf"\1\2\n\1image: {image}", text, count=1
        )
        assert count == 1
    graph = run_program(copy_project(tmp_path / "p", {"hybrid": text}), "hybrid")
    [template] = graph.of_type("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate")
    assert template.inputs["imageId"] == "m-bp1kubeadm0image01"
    assert template.inputs["tags"]["gpufleet:image-arch"] == "x86_64"
    configs = graph.of_type("tencentcloud:As/scalingConfig:ScalingConfig")
    assert configs and {c.inputs["imageId"] for c in configs} == {"img-k8sjoin1"}
    # The id names no architecture and none is given: nothing is claimed.
    assert all("gpufleet:image-arch" not in c.inputs["tags"] for c in configs)
    # Only the AWS pool still boots a default image.
    assert [w.split(":")[1].strip() for w in _default_image_warnings(graph)] == ["pools.burst-aws"]
