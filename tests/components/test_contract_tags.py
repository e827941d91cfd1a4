"""Contract: every child whose SDK class takes ``tags`` carries every cost tag."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import yaml

from gpufleet.components.fleet import HybridGpuFleet
from gpufleet.components.spec import parse_fleet

from .builders import TAGS, build_everything
from .conftest import Registration, Runner

ROOT = Path(__file__).resolve().parents[2]


def _sdk_class(token: str) -> type:
    package, module_path, class_name = token.split(":")
    module = importlib.import_module(f"pulumi_{package}.{module_path.split('/')[0]}")
    return getattr(module, class_name)  # type: ignore[no-any-return]


def _taggable(token: str) -> bool:
    init = getattr(_sdk_class(token), "_internal_init")  # noqa: B009  (the SDK's full keyword list)
    return "tags" in inspect.signature(init).parameters


def _tag_map(registration: Registration) -> dict[str, str]:
    tags = registration.inputs.get("tags") or {}
    if isinstance(tags, list):  # Auto Scaling groups take a list of {key, value, propagateAtLaunch}
        # The cost tags reach the instances; who sizes the group (gpufleet:scaler) and cluster-autoscaler's
        # discovery and node-template tags are the group's own.
        own = {t["key"] for t in tags if t["key"] == "gpufleet:scaler" or t["key"].startswith("k8s.io/")}
        assert all(t["propagateAtLaunch"] is (t["key"] not in own) for t in tags), registration.name
        return {t["key"]: t["value"] for t in tags}
    return dict(tags)


def test_every_taggable_child_carries_the_cost_tags(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build_everything)
    taggable = [r for r in mocks.custom() if _taggable(r.type)]
    untaggable = {r.type for r in mocks.custom()} - {r.type for r in taggable}
    # Guard the guard: the classification must actually split the children both ways.
    assert "aws:s3/bucket:Bucket" in {r.type for r in taggable}
    assert "aws:autoscaling/group:Group" in {r.type for r in taggable}
    assert "aws:s3/bucketPolicy:BucketPolicy" in untaggable
    missing = {
        f"{r.type} {r.name}": sorted(set(TAGS.items()) - set(_tag_map(r).items()))
        for r in taggable
        if not set(TAGS.items()) <= set(_tag_map(r).items())
    }
    assert missing == {}


def test_second_region_children_carry_the_cost_tags(run_pulumi: Runner) -> None:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]
    spec = parse_fleet(config["gpufleet:fleet"], source="test")
    mocks = run_pulumi(lambda: HybridGpuFleet("gpufleet-prod", spec))
    new_children = [
        r
        for r in mocks.custom()
        if r.name.startswith(("gpufleet-prod-us-west-2-", "gpufleet-prod-replication-"))
        or r.name.startswith("gpufleet-prod-pool-burst-a10g-west-")
    ]
    taggable = [r for r in new_children if _taggable(r.type)]
    assert {
        "aws:kms/replicaExternalKey:ReplicaExternalKey",
        "aws:s3/bucket:Bucket",
        "aws:iam/role:Role",
        "aws:ec2/vpc:Vpc",
        "aws:autoscaling/group:Group",
    } <= {r.type for r in taggable}
    assert "aws:s3/bucketReplicationConfig:BucketReplicationConfig" in {r.type for r in new_children}
    prod_tags = set(spec.cost_tags.items())
    missing = {
        f"{r.type} {r.name}": sorted(prod_tags - set(_tag_map(r).items()))
        for r in taggable
        if not prod_tags <= set(_tag_map(r).items())
    }
    assert missing == {}


def test_no_key_pairs_or_public_addresses_anywhere(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build_everything)
    assert mocks.of_type("aws:ec2/keyPair:KeyPair") == []
    assert mocks.of_type("aws:ec2/eip:Eip") == []
    assert mocks.of_type("aws:ec2/internetGateway:InternetGateway") == []
    assert all("keyName" not in r.inputs for r in mocks.custom())
