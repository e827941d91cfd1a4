"""A resource object passed as an input (`RolePolicyAttachment(role=role)`) runs the same way every time.

The SDK's mock monitor turned such a reference back into a resource object on its executor thread,
whose futures belonged to a second event loop; the program's loop failed with "attached to a different
loop" whenever it awaited one of them still pending (13 runs in 20 on a busy machine)."""

from __future__ import annotations

import json
from pathlib import Path

from google.protobuf import struct_pb2
from pulumi.runtime.proto import resource_pb2

from gpufleet.childrun import RESOURCE_SIG, without_resource_refs
from gpufleet.engine import run_program
from gpufleet.graph import SECRET_SIG_KEY, UNKNOWN_STRING
from tests.engine.projects import write_project

RUNS = 50

PROGRAM = """\
import json

import pulumi_aws as aws

role = aws.iam.Role(
    "worker",
    assume_role_policy=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                       "Principal": {"Service": "ec2.amazonaws.com"}}],
    }),
)
aws.iam.RolePolicyAttachment(
    "worker-ssm", role=role, policy_arn="arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
)
aws.iam.InstanceProfile("worker", role=role)
"""

ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
PROFILE = "aws:iam/instanceProfile:InstanceProfile"
ROLE = "aws:iam/role:Role"


def test_resource_object_inputs_succeed_with_identical_graphs_every_run(tmp_path: Path) -> None:
    root = write_project(tmp_path, PROGRAM, stacks={"dev": "config:\n  aws:region: us-east-1\n"})
    graphs = [json.dumps(run_program(root, "dev").to_json(), sort_keys=True) for _ in range(RUNS)]
    assert len(set(graphs)) == 1

    graph = run_program(root, "dev")
    (role,) = graph.of_type(ROLE)
    (attachment,) = graph.of_type(ATTACHMENT)
    (profile,) = graph.of_type(PROFILE)
    # What a policy sees of a resource input: the resource's id, and a dependency on it.
    assert attachment.inputs["role"] == role.id
    assert attachment.inputs["policyArn"] == "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
    assert role.urn in attachment.dependencies
    assert attachment.property_dependencies["role"] == (role.urn,)
    assert profile.inputs["role"] == role.id
    assert [r.type for r in graph.custom_resources()] == [ROLE, ATTACHMENT, PROFILE]


def _reference(urn: str, resource_id: str | None) -> struct_pb2.Struct:
    ref = struct_pb2.Struct()
    fields: dict[str, str] = {SECRET_SIG_KEY: RESOURCE_SIG, "urn": urn, "packageVersion": ""}
    if resource_id is not None:
        fields["id"] = resource_id
    ref.update(fields)
    return ref


def test_the_mock_monitor_gets_ids_and_urns_instead_of_references() -> None:
    role_urn = "urn:pulumi:dev::p::aws:iam/role:Role::worker"
    component_urn = "urn:pulumi:dev::p::acme:Pool::gpu"
    request = resource_pb2.RegisterResourceRequest(type=ATTACHMENT, name="a", custom=True)
    request.object.update({"policyArn": "arn:aws:iam::aws:policy/ReadOnlyAccess"})
    request.object["role"] = _reference(role_urn, "worker-1a2b")
    request.object["nested"] = {"items": [1.0]}
    request.object["nested"]["items"].append(_reference(component_urn, None))
    request.object["nested"]["items"].append(_reference(role_urn, ""))

    plain = without_resource_refs(request, "object")

    assert plain is not request
    assert plain.object["role"] == "worker-1a2b"
    assert list(plain.object["nested"]["items"]) == [1.0, component_urn, UNKNOWN_STRING]
    assert plain.object["policyArn"] == "arn:aws:iam::aws:policy/ReadOnlyAccess"
    # The request the SDK sent, which the recorded inputs come from, is untouched.
    assert request.object["role"][SECRET_SIG_KEY] == RESOURCE_SIG


def test_a_request_without_references_is_passed_on_as_is() -> None:
    request = resource_pb2.RegisterResourceRequest(type=ROLE, name="r", custom=True)
    request.object.update({"name": "worker", "tags": {"team": "ml"}})
    assert without_resource_refs(request, "object") is request
