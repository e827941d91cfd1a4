"""The offline engine on a third-party style program (plain pulumi_aws, its own small component)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pulumi
import pytest

from gpufleet.engine import run_program
from gpufleet.graph import SECRET_SIG, SECRET_SIG_KEY, ResourceGraph, make_secret
from gpufleet.project import SECRET_PLACEHOLDER
from gpufleet.redact import redacted_graph
from tests.engine.projects import PHOTO_ARCHIVE, SINGLE_FILE, write_project

STACK_URN = "urn:pulumi:dev::photo-archive::pulumi:pulumi:Stack::photo-archive-dev"
BUCKET = "urn:pulumi:dev::photo-archive::aws:s3/bucket:Bucket::archive"
KEY = "urn:pulumi:dev::photo-archive::aws:kms/key:Key::archive-key"
SSE = (
    "urn:pulumi:dev::photo-archive::aws:s3/bucketServerSideEncryptionConfiguration:"
    "BucketServerSideEncryptionConfiguration::archive-sse"
)
UPLOADS = "urn:pulumi:dev::photo-archive::photo:archive:Uploads::uploads"
UPLOADS_ROLE = "urn:pulumi:dev::photo-archive::photo:archive:Uploads$aws:iam/role:Role::uploads-role"
UPLOADS_PUT = (
    "urn:pulumi:dev::photo-archive::photo:archive:Uploads$aws:iam/rolePolicy:RolePolicy::uploads-put"
)
SSE_TYPE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"


@pytest.fixture(scope="module")
def dev() -> ResourceGraph:
    return run_program(PHOTO_ARCHIVE, "dev")


def test_records_every_registration_with_exact_types_and_names(dev: ResourceGraph) -> None:
    assert [(r.type, r.name) for r in dev] == [
        ("pulumi:pulumi:Stack", "photo-archive-dev"),
        ("aws:kms/key:Key", "archive-key"),
        ("aws:s3/bucket:Bucket", "archive"),
        (SSE_TYPE, "archive-sse"),
        ("aws:ec2/securityGroup:SecurityGroup", "web"),
        ("aws:iam/role:Role", "admin"),
        ("aws:ssm/parameter:Parameter", "db-password"),
        ("photo:archive:Uploads", "uploads"),
        ("aws:iam/role:Role", "uploads-role"),
        ("aws:iam/rolePolicy:RolePolicy", "uploads-put"),
    ]
    assert dev.project == "photo-archive"
    assert dev.stack == "dev"
    assert dev.synthetic is True


def test_urns_parents_and_components(dev: ResourceGraph) -> None:
    stack = dev.get(STACK_URN)
    assert stack is not None and stack.is_component and stack.parent is None
    uploads = dev.get(UPLOADS)
    assert uploads is not None and uploads.is_component and uploads.custom is False
    assert uploads.parent == STACK_URN
    assert [r.urn for r in dev.children(UPLOADS)] == [UPLOADS_ROLE, UPLOADS_PUT]
    assert {r.urn for r in dev.children(STACK_URN)} >= {BUCKET, KEY, SSE, UPLOADS}
    # component outputs from register_outputs
    assert uploads.outputs["role_arn"].startswith("arn:aws:iam::123456789012:role/uploads-role-")
    assert [r.name for r in dev.components()] == ["photo-archive-dev", "uploads"]


def test_inputs_are_camel_case_wire_form_with_ints(dev: ResourceGraph) -> None:
    key = dev.get(KEY)
    assert key is not None
    assert key.inputs == {
        "description": "photo archive key",
        "enableKeyRotation": True,
        "deletionWindowInDays": 30,
        "tags": {"owner": "data-team", "stack": "dev", "tier": "standard"},
    }
    assert isinstance(key.inputs["deletionWindowInDays"], int)
    web = dev.of_type("aws:ec2/securityGroup:SecurityGroup")[0]
    assert web.inputs["ingress"] == [
        {"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]},
        {"protocol": "tcp", "fromPort": 8443, "toPort": 8443, "cidrBlocks": ["0.0.0.0/0"]},
        {"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["203.0.113.0/24"]},
    ]
    assert all(isinstance(rule["fromPort"], int) for rule in web.inputs["ingress"])


def test_output_of_one_resource_arrives_in_the_consumers_inputs(dev: ResourceGraph) -> None:
    key, bucket, sse = dev.get(KEY), dev.get(BUCKET), dev.get(SSE)
    assert key is not None and bucket is not None and sse is not None
    key_arn = key.outputs["arn"]
    assert key_arn == f"arn:aws:kms:eu-west-1:123456789012:key/{key.id}"
    assert sse.inputs == {
        "bucket": bucket.outputs["bucket"],
        "rules": [
            {
                "applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": key_arn},
                "bucketKeyEnabled": True,
            }
        ],
    }
    assert set(sse.dependencies) == {BUCKET, KEY}
    assert sse.property_dependencies == {"bucket": (BUCKET,), "rules": (KEY,)}
    put = dev.get(UPLOADS_PUT)
    assert put is not None
    assert json.loads(put.inputs["policy"])["Statement"][0]["Resource"] == f"{bucket.outputs['arn']}/*"
    assert put.inputs["role"] == dev.get(UPLOADS_ROLE).outputs["name"]  # type: ignore[union-attr]
    assert set(put.dependencies) == {BUCKET, UPLOADS_ROLE}


def test_dict_policy_is_an_object_in_inputs_and_json_in_outputs(dev: ResourceGraph) -> None:
    admin = dev.named("admin")[0]
    document = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::123456789012:root"},  # from get_caller_identity
                "Action": "sts:AssumeRole",
            }
        ],
    }
    assert admin.inputs["assumeRolePolicy"] == document
    assert json.loads(admin.outputs["assumeRolePolicy"]) == document


def test_config_reaches_program_and_provider(dev: ResourceGraph) -> None:
    bucket = dev.get(BUCKET)
    assert bucket is not None
    # `aws.config.region` (provider config) and a structured value via require_object
    assert bucket.inputs["tags"] == {
        "owner": "data-team",
        "stack": "dev",
        "region": "eu-west-1",
        "account": "123456789012",
    }
    assert bucket.outputs["arn"] == f"arn:aws:s3:::{bucket.outputs['bucket']}"
    assert dev.outputs["cidr"] == "10.20.0.0/16"
    assert dev.config["aws:region"] == "eu-west-1"
    assert dev.config["photo-archive:db_password"] == SECRET_PLACEHOLDER


def test_secure_config_is_a_secret_placeholder_with_a_note(dev: ResourceGraph) -> None:
    parameter = dev.named("db-password")[0]
    assert parameter.inputs["value"] == make_secret(SECRET_PLACEHOLDER)
    assert parameter.inputs["value"][SECRET_SIG_KEY] == SECRET_SIG
    assert dev.notes == [
        "config photo-archive:db_password is a secret (secure:) that cannot be decrypted offline; "
        "the program read the placeholder '[secret: not decrypted offline]'"
    ]


def test_stack_outputs(dev: ResourceGraph) -> None:
    key = dev.get(KEY)
    bucket = dev.get(BUCKET)
    assert key is not None and bucket is not None
    assert dev.outputs == {
        "bucket_name": bucket.outputs["bucket"],
        "key_arn": key.outputs["arn"],
        "account": "123456789012",
        "cidr": "10.20.0.0/16",
    }


def test_graph_round_trips_through_json(dev: ResourceGraph, tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    dev.write(path)
    again = ResourceGraph.read(path)
    # The file is what `plan --json` writes: every secret as `[secret]`.
    shown = redacted_graph(dev)
    assert [r.to_json() for r in again] == [r.to_json() for r in shown]
    assert again.outputs == shown.outputs and again.notes == shown.notes
    assert any(r.inputs != s.inputs for r, s in zip(dev, shown, strict=True))


def test_same_program_gives_the_same_graph(dev: ResourceGraph) -> None:
    again = run_program(PHOTO_ARCHIVE, "dev")
    assert [r.to_json() for r in again] == [r.to_json() for r in dev]


def test_two_stacks_in_one_process_do_not_leak() -> None:
    cwd, path, argv = Path.cwd(), list(sys.path), list(sys.argv)
    first = run_program(SINGLE_FILE, "a")
    second = run_program(SINGLE_FILE, "b")
    third = run_program(SINGLE_FILE, "a")
    assert first.outputs["label"] == "first" and third.outputs["label"] == "first"
    assert second.outputs["label"] == "second"
    assert first.outputs["region"] == "ap-southeast-1"
    assert second.outputs["region"] == "us-east-1"
    assert "aws:region" not in second.config
    assert second.notes == [
        "aws:region is not set in the stack config; us-east-1 is assumed for ids and ARNs"
    ]
    assert second.named("app")[0].inputs == {"retentionInDays": 180, "tags": {"label": "second"}}
    # the process is as it was: cwd, sys.path, argv, the program's own module, pulumi's config
    assert Path.cwd() == cwd and sys.path == path and sys.argv == argv
    assert "labels" not in sys.modules
    assert pulumi.runtime.get_config("single-file:label") is None


def test_dev_and_prod_of_one_project() -> None:
    prod = run_program(PHOTO_ARCHIVE, "prod")
    web = prod.of_type("aws:ec2/securityGroup:SecurityGroup")[0]
    assert web.urn == "urn:pulumi:prod::photo-archive::aws:ec2/securityGroup:SecurityGroup::web"
    assert web.inputs["ingress"] == [
        {"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}
    ]
    assert prod.outputs["key_arn"].startswith("arn:aws:kms:us-west-2:123456789012:key/")


def test_config_overrides(tmp_path: Path) -> None:
    graph = run_program(SINGLE_FILE, "b", config_overrides={"label": "override", "aws:region": "eu-north-1"})
    assert graph.outputs["label"] == "override"
    assert graph.outputs["arn"].startswith("arn:aws:logs:eu-north-1:123456789012:log-group:app-")


def test_explicit_provider_region_and_invokes(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi
        import pulumi_aws as aws

        west = aws.Provider("west", region="us-west-2")
        key = aws.kms.Key("k", opts=pulumi.ResourceOptions(provider=west))
        doc = aws.iam.get_policy_document(statements=[
            {"sid": "Read", "actions": ["s3:GetObject", "s3:ListBucket"], "resources": ["*"],
             "principals": [{"type": "Service", "identifiers": ["ec2.amazonaws.com"]}],
             "conditions": [{"test": "Bool", "variable": "aws:SecureTransport", "values": ["true"]}]},
            {"effect": "Deny", "actions": ["s3:*"], "resources": ["arn:aws:s3:::b/*"]},
        ])
        ami = aws.ec2.get_ami(most_recent=True, owners=["amazon"],
                              filters=[{"name": "name", "values": ["Deep Learning*"]}])
        zones = aws.get_availability_zones()
        param = aws.ssm.get_parameter(name="/aws/service/deeplearning/ami/x86_64/latest/image_id")
        pulumi.export("doc", doc.json)
        pulumi.export("ami", ami.id)
        pulumi.export("zones", zones.names)
        pulumi.export("param", param.value)
        pulumi.export("partition", aws.get_partition().partition)
        pulumi.export("key_arn", key.arn)
        """,
        stacks={"dev": "config:\n  aws:region: eu-central-1\n"},
    )
    graph = run_program(root, "dev")
    provider = graph.named("west")[0]
    assert provider.type == "pulumi:providers:aws"
    assert provider.inputs["region"] == "us-west-2"
    key = graph.named("k")[0]
    assert key.provider == provider.urn
    assert graph.outputs["key_arn"].startswith("arn:aws:kms:us-west-2:")
    assert json.loads(graph.outputs["doc"]) == {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "Read",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:ListBucket"],
                "Resource": "*",
                "Principal": {"Service": "ec2.amazonaws.com"},
                "Condition": {"Bool": {"aws:SecureTransport": "true"}},
            },
            {"Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::b/*"},
        ],
    }
    assert graph.outputs["ami"].startswith("ami-")
    assert graph.outputs["param"].startswith("ami-")
    assert graph.outputs["zones"] == ["eu-central-1a", "eu-central-1b", "eu-central-1c"]
    assert graph.outputs["partition"] == "aws"


def test_unknown_invoke_and_stack_reference_leave_notes(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi
        import pulumi_aws as aws

        network = pulumi.StackReference("acme/network/prod")
        vpc_id = network.get_output("vpc_id")
        key = aws.kms.get_key(key_id="alias/missing")
        pulumi.export("vpc", vpc_id)
        """,
        stacks={"dev": "config:\n  aws:region: us-east-1\n"},
    )
    graph = run_program(root, "dev")
    vpc = graph.outputs["vpc"]
    assert vpc.startswith("vpc-")
    assert sorted(graph.notes) == [
        "invoke aws:kms/getKey:getKey has no offline answer: the program got typed placeholders "
        "(synthetic values of the declared result types)",
        "stack reference 'acme/network/prod' has no outputs offline (give them with --stack-refs FILE): "
        "every output read from it is a synthetic placeholder",
        f"stack reference 'acme/network/prod': output 'vpc_id' read as the placeholder \"{vpc}\"",
    ]
    reference = graph.of_type("pulumi:pulumi:StackReference")[0]
    assert reference.id == "acme/network/prod"

    given = run_program(root, "dev", stack_references={"acme/network/prod": {"vpc_id": "vpc-0abc"}})
    assert given.outputs["vpc"] == "vpc-0abc"
    assert not any("stack reference" in n for n in given.notes)


def test_alicloud_tencent_and_kubernetes_programs(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi
        import pulumi_alicloud as alicloud
        import pulumi_kubernetes as k8s
        import tencentcloud_iac_pulumi as tencentcloud

        zones = alicloud.get_zones(available_resource_creation="Instance")
        images = alicloud.ecs.get_images(name_regex="^aliyun_3", owners="system")
        key = alicloud.kms.Key("ali-key", origin="EXTERNAL")
        bucket = alicloud.oss.Bucket("ali-ckpt", server_side_encryption_rule={
            "sse_algorithm": "KMS", "kms_master_key_id": key.id})
        tzones = tencentcloud.availability.get_zones_by_product(product="cvm")
        cos = tencentcloud.cos.Bucket("tc-ckpt", bucket="ckpt-1250000000", acl="private")
        ns = k8s.core.v1.Namespace("training")
        pulumi.export("zone", zones.zones[0].id)
        pulumi.export("image", images.images[0].id)
        pulumi.export("tzone", tzones.zones[0].name)
        pulumi.export("ns", ns.metadata.name)
        pulumi.export("cos", cos.id)
        """,
        stacks={"dev": "config:\n  alicloud:region: cn-beijing\n  tencentcloud:region: ap-shanghai\n"},
    )
    graph = run_program(root, "dev")
    bucket = graph.named("ali-ckpt")[0]
    key = graph.named("ali-key")[0]
    assert bucket.type == "alicloud:oss/bucket:Bucket"
    assert bucket.inputs["serverSideEncryptionRule"] == {"sseAlgorithm": "KMS", "kmsMasterKeyId": key.id}
    assert key.outputs["arn"] == f"acs:kms:cn-beijing:1234567890123456:key/{key.id}"
    assert graph.named("tc-ckpt")[0].type == "tencentcloud:Cos/bucket:Bucket"
    assert graph.outputs["cos"] == "ckpt-1250000000"
    assert graph.outputs["zone"] == "cn-beijing-h"
    assert graph.outputs["image"].startswith("m-")
    assert graph.outputs["tzone"] == "ap-shanghai-3"
    assert graph.named("training")[0].type == "kubernetes:core/v1:Namespace"
    assert graph.outputs["ns"].startswith("training-")
    assert graph.notes == []


def test_process_state_restored_after_a_failure(tmp_path: Path) -> None:
    from gpufleet.engine import EngineError

    cwd, path, argv = Path.cwd(), list(sys.path), list(sys.argv)
    root = write_project(tmp_path / "p", "raise ValueError('boom')\n")
    with pytest.raises(
        EngineError, match=r"^the program __main__\.py failed \(at __main__\.py:1\): ValueError: boom$"
    ):
        run_program(root, "dev")
    assert Path.cwd() == cwd and sys.path == path and sys.argv == argv


def test_program_output_becomes_notes_not_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_project(
        tmp_path / "p", "import pulumi\nprint('building 3 pools')\npulumi.log.warn('old AMI')\n"
    )
    graph = run_program(root, "dev")
    assert capsys.readouterr().out == ""
    assert graph.notes == ["program warning: old AMI", "program printed: building 3 pools"]


def test_auto_named_resource_is_joined_by_name(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi_aws as aws

        group = aws.autoscaling.Group("gpu", min_size=0, max_size=4, availability_zones=["us-east-1a"])
        aws.autoscaling.Policy("scale-out", autoscaling_group_name=group.name,
                               adjustment_type="ChangeInCapacity", scaling_adjustment=1)
        aws.cloudwatch.MetricAlarm("busy", comparison_operator="GreaterThanThreshold", evaluation_periods=5,
                                   threshold=70, dimensions={"AutoScalingGroupName": group.name})
        """,
        stacks={"dev": "config:\n  aws:region: us-east-1\n"},
    )
    graph = run_program(root, "dev")
    group = graph.named("gpu")[0]
    assert group.outputs["name"].startswith("gpu-")
    assert group.id == group.outputs["name"]
    assert group.outputs["arn"].startswith("arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:")
    assert graph.named("scale-out")[0].inputs["autoscalingGroupName"] == group.outputs["name"]
    assert graph.named("busy")[0].inputs["dimensions"] == {"AutoScalingGroupName": group.outputs["name"]}
    assert graph.named("busy")[0].inputs["threshold"] == 70
