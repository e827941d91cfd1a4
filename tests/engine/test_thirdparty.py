"""Programs written the way other teams write them: package layouts, secrets, stack references,
explicit providers, resource options, invokes, and programs that fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.engine import EngineError, run_program
from gpufleet.graph import SECRET_SIG, SECRET_SIG_KEY, Resource, ResourceGraph
from gpufleet.project import SECRET_PLACEHOLDER, load_project
from tests.cli.helpers import invoke
from tests.engine.projects import FIXTURES, write_project

THIRDPARTY = FIXTURES / "thirdparty"
BILLING = THIRDPARTY / "billing_api"
NETWORK = THIRDPARTY / "network_consumer"
CHINA = THIRDPARTY / "china_zones"
NETWORK_REFS = NETWORK / "stack-refs.json"

SECRET_PASSWORD = {SECRET_SIG_KEY: SECRET_SIG, "value": SECRET_PLACEHOLDER}


def _one(graph: ResourceGraph, token: str, name: str) -> Resource:
    found = [r for r in graph.of_type(token) if r.name == name]
    assert len(found) == 1, f"{token} {name}: {[r.name for r in graph.of_type(token)]}"
    return found[0]


@pytest.fixture(scope="module")
def billing() -> ResourceGraph:
    return run_program(BILLING, "prod")


@pytest.fixture(scope="module")
def network() -> ResourceGraph:
    return run_program(NETWORK, "prod", stack_references=json.loads(NETWORK_REFS.read_text()))


@pytest.fixture(scope="module")
def network_unreferenced() -> ResourceGraph:
    return run_program(NETWORK, "prod")


# -- package layout, runtime options, config -------------------------------------------------------


def test_runtime_options_and_main_directory_are_read() -> None:
    project = load_project(BILLING)
    assert project.runtime == "python"
    assert project.runtime_options == {"toolchain": "poetry", "virtualenv": "venv"}
    assert project.program_file == BILLING / "infra" / "__main__.py"
    assert load_project(NETWORK).runtime_options == {"toolchain": "uv"}


def test_package_layout_with_relative_and_absolute_imports(billing: ResourceGraph) -> None:
    stack = "urn:pulumi:prod::billing-api::pulumi:pulumi:Stack::billing-api-prod"
    database = _one(billing, "acme:billing:Database", "billing-prod-db")
    assert database.parent == stack
    assert database.custom is False
    subnets = _one(billing, "aws:rds/subnetGroup:SubnetGroup", "billing-prod-db-subnets")
    assert subnets.parent == database.urn
    assert subnets.urn == (
        "urn:pulumi:prod::billing-api::acme:billing:Database$aws:rds/subnetGroup:SubnetGroup::billing-prod-db-subnets"
    )
    instance = _one(billing, "aws:rds/instance:Instance", "billing-prod-db-instance")
    assert instance.parent == database.urn
    # `username` comes from lib/constants.py through a relative import.
    assert instance.inputs["username"] == "billing"
    assert instance.inputs["dbSubnetGroupName"] == subnets.outputs["name"]
    assert instance.inputs["storageEncrypted"] is True
    assert instance.inputs["tags"] == {"team": "payments", "cost-center": "cc-310", "env": "prod"}
    assert billing.outputs["db_endpoint"].endswith(".eu-west-1.rds.amazonaws.com:5432")


def test_secure_config_reaches_resources_as_secret_wire_form(billing: ResourceGraph) -> None:
    instance = _one(billing, "aws:rds/instance:Instance", "billing-prod-db-instance")
    assert instance.inputs["password"] == SECRET_PASSWORD
    token = _one(billing, "aws:ssm/parameter:Parameter", "billing-prod-api-token")
    assert token.inputs["value"] == SECRET_PASSWORD
    assert token.inputs["type"] == "SecureString"
    assert [n for n in billing.notes if "secure:" in n] == [
        f"config billing-api:{key} is a secret (secure:) that cannot be decrypted offline; "
        f"the program read the placeholder {SECRET_PLACEHOLDER!r}"
        for key in ("db_password", "api_token")
    ]
    # An unset secret reads as None, as with the CLI.
    assert billing.outputs["signing_key_set"] is False


def test_typed_config_and_project_level_defaults(billing: ResourceGraph) -> None:
    # instance_count: project `default: 2`; log_retention_days: project `value: 14`;
    # aws:region: project `value:`; cpu_ratio and enable_backups typed from the stack file.
    assert [b.name for b in billing.of_type("aws:s3/bucket:Bucket")] == [
        "billing-prod-archive-0",
        "billing-prod-archive-1",
    ]
    logs = _one(billing, "aws:cloudwatch/logGroup:LogGroup", "billing-prod-logs")
    assert logs.inputs["retentionInDays"] == 14
    assert billing.config["aws:region"] == "eu-west-1"
    assert billing.outputs["cpu_ratio"] == 0.25
    instance = _one(billing, "aws:rds/instance:Instance", "billing-prod-db-instance")
    assert instance.inputs["backupRetentionPeriod"] == 7
    assert instance.outputs["arn"].startswith("arn:aws:rds:eu-west-1:123456789012:")


# -- stack references ------------------------------------------------------------------------------


def test_stack_reference_outputs_from_the_given_file(network: ResourceGraph) -> None:
    group = _one(network, "aws:ec2/securityGroup:SecurityGroup", "workers")
    assert group.inputs["vpcId"] == "vpc-0abc1234def567890"
    reference = _one(network, "pulumi:pulumi:StackReference", "org/network/prod")
    assert reference.urn in group.dependencies
    east = [_one(network, "aws:ec2/instance:Instance", f"east-{i}") for i in range(2)]
    assert [i.inputs["subnetId"] for i in east] == ["subnet-0aaa1111bbb22222c", "subnet-0ddd3333eee44444f"]
    assert network.outputs["vpc"] == "vpc-0abc1234def567890"
    assert not any("stack reference" in n for n in network.notes)


def test_stack_reference_without_outputs_gets_placeholders_and_notes(
    network_unreferenced: ResourceGraph,
) -> None:
    graph = network_unreferenced
    vpc_id = _one(graph, "aws:ec2/securityGroup:SecurityGroup", "workers").inputs["vpcId"]
    assert vpc_id.startswith("vpc-") and len(vpc_id) == len("vpc-") + 17
    subnets = [_one(graph, "aws:ec2/instance:Instance", f"east-{i}").inputs["subnetId"] for i in range(2)]
    assert all(s.startswith("subnet-") for s in subnets) and subnets[0] != subnets[1]
    assert graph.outputs["vpc"] == vpc_id
    assert [n for n in graph.notes if "stack reference" in n] == [
        "stack reference 'org/network/prod' has no outputs offline (give them with --stack-refs FILE): "
        "every output read from it is a synthetic placeholder",
        f"stack reference 'org/network/prod': output 'vpc_id' read as the placeholder {json.dumps(vpc_id)}",
        "stack reference 'org/network/prod': output 'private_subnet_ids' read as the placeholder "
        f"{json.dumps(subnets)}",
    ]


def test_require_output_missing_from_the_given_outputs_is_named(tmp_path: Path) -> None:
    refs = {"org/network/prod": {"vpc_id": "vpc-0abc"}}
    with pytest.raises(EngineError) as info:
        run_program(NETWORK, "prod", stack_references=refs)
    assert str(info.value) == (
        "the program __main__.py stopped with an error: stack reference 'org/network/prod' has no output "
        "'private_subnet_ids' in the stack references given (outputs given: vpc_id); add it there"
    )


# -- providers, options, outputs, components, logs, invokes ----------------------------------------


def test_explicit_provider_and_parent_inherit_it(network: ResourceGraph) -> None:
    west = _one(network, "pulumi:providers:aws", "west")
    assert west.inputs["region"] == "us-west-2"
    group = _one(network, "acme:compute:WorkerGroup", "west")
    child = _one(network, "aws:ec2/instance:Instance", "west-0")
    assert child.parent == group.urn
    assert child.provider == west.urn
    assert child.outputs["arn"].startswith("arn:aws:ec2:us-west-2:123456789012:")
    east_child = _one(network, "aws:ec2/instance:Instance", "east-0")
    assert east_child.provider is None
    assert east_child.outputs["arn"].startswith("arn:aws:ec2:us-east-1:")
    # depends_on a component means its children.
    assert set(group.dependencies) == {r.urn for r in network.resources if r.name in ("east-0", "east-1")}


def test_resource_options_and_component_children(network: ResourceGraph) -> None:
    logs = _one(network, "aws:s3/bucket:Bucket", "worker-logs")
    assert logs.protect is True
    attachment = _one(network, "aws:iam/rolePolicyAttachment:RolePolicyAttachment", "worker-read-logs")
    assert logs.urn in attachment.dependencies
    assert (
        attachment.inputs["policyArn"]
        == _one(network, "aws:iam/policy:Policy", "worker-read-logs").outputs["arn"]
    )
    east = _one(network, "acme:compute:WorkerGroup", "east")
    assert east.inputs == {"count": 2}
    children = [r for r in network.resources if r.parent == east.urn]
    assert [(r.type, r.name) for r in children] == [
        ("aws:ec2/instance:Instance", "east-0"),
        ("aws:ec2/instance:Instance", "east-1"),
    ]
    assert children[0].inputs["metadataOptions"] == {"httpTokens": "required"}
    assert children[0].inputs["instanceType"] == "g5.xlarge"
    assert children[0].inputs["ami"].startswith("ami-")


def test_output_all_concat_exports_and_log_warn(network: ResourceGraph) -> None:
    group = _one(network, "aws:ec2/securityGroup:SecurityGroup", "workers")
    assert group.inputs["description"] == "workers in vpc-0abc1234def567890 for account 123456789012"
    assert group.inputs["egress"] == [
        {"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]}
    ]
    summary = _one(network, "aws:ssm/parameter:Parameter", "worker-summary")
    # pulumi-aws marks a parameter's value secret; the joined value is inside the wrapper.
    assert summary.inputs["value"][SECRET_SIG_KEY] == SECRET_SIG
    assert json.loads(summary.inputs["value"]["value"]) == {
        "bucket": network.outputs["logs_bucket"],
        "role": _one(network, "aws:iam/role:Role", "worker-role").outputs["arn"],
        "vpc": "vpc-0abc1234def567890",
    }
    assert network.outputs["workers"] == {
        "east": [_one(network, "aws:ec2/instance:Instance", f"east-{i}").id for i in range(2)],
        "west": [_one(network, "aws:ec2/instance:Instance", "west-0").id],
    }
    assert network.outputs["account"] == "123456789012"
    assert "program warning: workers run on x86_64 images; arm64 GPU instances are cheaper for inference" in (
        network.notes
    )


def test_policy_document_invokes_become_policies(network: ResourceGraph) -> None:
    role = _one(network, "aws:iam/role:Role", "worker-role")
    assert json.loads(role.inputs["assumeRolePolicy"]) == {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "ec2.amazonaws.com"}}
        ],
    }
    policy = _one(network, "aws:iam/policy:Policy", "worker-read-logs")
    assert json.loads(policy.inputs["policy"])["Statement"] == [
        {
            "Sid": "ReadLogs",
            "Effect": "Allow",
            "Action": ["s3:GetObject", "s3:ListBucket"],
            "Resource": ["arn:aws:s3:::worker-logs", "arn:aws:s3:::worker-logs/*"],
        }
    ]
    assert not any("has no offline answer" in n for n in network.notes)


def test_alicloud_and_tencent_zone_invokes() -> None:
    graph = run_program(CHINA, "cn")
    vswitch = _one(graph, "alicloud:vpc/switch:Switch", "inference-a")
    assert vswitch.inputs["zoneId"] == "cn-shanghai-h"
    assert vswitch.inputs["vpcId"] == _one(graph, "alicloud:vpc/network:Network", "inference").id
    subnet = _one(graph, "tencentcloud:Subnet/instance:Instance", "inference-a")
    assert subnet.inputs["availabilityZone"] == "ap-shanghai-3"
    assert subnet.inputs["vpcId"] == _one(graph, "tencentcloud:Vpc/instance:Instance", "inference").id
    assert graph.outputs == {"alicloud_zone": "cn-shanghai-h", "tencent_zone": "ap-shanghai-3"}
    assert graph.notes == []


# -- the command line ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("project", "stack", "extra"),
    [
        (BILLING, "prod", []),
        (NETWORK, "prod", []),
        (NETWORK, "prod", ["--stack-refs", str(NETWORK_REFS)]),
        (CHINA, "cn", []),
    ],
    ids=["billing", "network-placeholders", "network-refs", "china"],
)
def test_cli_plan_exits_zero(project: Path, stack: str, extra: list[str]) -> None:
    run = invoke("plan", str(project), "-s", stack, *extra)
    assert run.exit_code == 0, run.stderr


def test_cli_plan_says_secrets_were_not_decrypted() -> None:
    run = invoke("plan", str(BILLING), "-s", "prod")
    flat = " ".join(run.stdout.split())
    assert "config billing-api:db_password is a secret (secure:) that cannot be decrypted offline" in flat


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        (
            "import pulumi_aws as aws\nb = aws.s3.Bucket('b')\nb.bucket.apply(lambda n: n.nope())\n",
            "the program __main__.py failed (at __main__.py:3): "
            "AttributeError: 'str' object has no attribute 'nope'",
        ),
        (
            "import pulumi\nimport pulumi_gcp as gcp\n",
            "the program __main__.py imports 'pulumi_gcp' (at __main__.py:2), which is not installed",
        ),
        (
            "import pulumi\n\ndef broken(:\n    pass\n",
            "the program __main__.py has a syntax error at __main__.py:3: invalid syntax",
        ),
    ],
    ids=["apply", "missing-module", "syntax"],
)
def test_failing_programs_exit_two_with_one_paragraph(tmp_path: Path, program: str, expected: str) -> None:
    root = write_project(tmp_path / "p", program, stacks={"dev": "config:\n  aws:region: us-east-1\n"})
    run = invoke("plan", str(root), "-s", "dev")
    assert run.exit_code == 2
    message = " ".join(run.stderr.split())
    assert expected in message, message
    assert "Traceback" not in run.stderr
