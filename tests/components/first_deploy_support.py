"""Shared helpers of the first-deploy tests: the shipped stacks' fleets, run once per stack, and readers
of the built resources (tests/components/test_first_deploy_*.py)."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from gpufleet.engine import run_program
from gpufleet.graph import Resource, ResourceGraph

ROOT = Path(__file__).resolve().parents[2]
ACCOUNT = "123456789012"
SLR = "aws:iam/serviceLinkedRole:ServiceLinkedRole"
ROLE_ARN = (
    f"arn:aws:iam::{ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
)
KEY_TYPES = (
    "aws:kms/key:Key",
    "aws:kms/externalKey:ExternalKey",
    "aws:kms/replicaExternalKey:ReplicaExternalKey",
)
SINGLETONS = (
    "aws:ssm/document:Document",
    "aws:ebs/encryptionByDefault:EncryptionByDefault",
    "aws:ebs/defaultKmsKey:DefaultKmsKey",
    "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults",
    "aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock",
    SLR,
)


def fleet(stack: str) -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return copy.deepcopy(config["gpufleet:fleet"])  # type: ignore[no-any-return]


def run(stack: str, **changes: Any) -> ResourceGraph:
    raw = fleet(stack)
    for key, value in changes.items():
        raw[key] = value
    return run_program(ROOT, stack, config_overrides={"gpufleet:fleet": raw})


@cache
def shipped(stack: str) -> ResourceGraph:
    return run_program(ROOT, stack)


def one(graph: ResourceGraph, type_: str, name: str) -> Resource:
    found = [r for r in graph.of_type(type_) if r.name == name]
    assert len(found) == 1, f"{type_} {name}: {[r.name for r in graph.of_type(type_)]}"
    return found[0]


def statements(resource: Resource, key: str = "policy") -> dict[str, dict[str, Any]]:
    value = resource.inputs[key]
    return {s["Sid"]: s for s in (json.loads(value) if isinstance(value, str) else value)["Statement"]}


def prod_with(material: str) -> dict[str, Any]:
    """The prod fleet with its checkpoints' BYOK key material set to ``material``."""
    raw = fleet("prod")
    raw["storage"]["checkpoints"]["byok_material"] = material
    return raw
