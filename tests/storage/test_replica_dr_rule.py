"""GF-DR-001 on the Alibaba and Tencent stacks as the project builds them, at environment prod: it fires on
each checkpoint bucket without a replica, is silent once storage.checkpoints.replica_regions is set, and
fires again, with its exact message, when the replication would copy nothing."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

from gpufleet.engine import run_program
from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.resilience.checkpoint_replication import POLICY
from tests.realworld.alicloud.support import replaced

ROOT = Path(__file__).resolve().parents[2]
ALI = "gpufleet-cn-dev-cn-hangzhou"
TC = "gpufleet-tc-dev-tencentcloud-ap-guangzhou"
REPLICAS = {"cn-dev": {"alicloud": "cn-shanghai"}, "tc-dev": {"tencentcloud": "ap-shanghai"}}


@functools.cache
def graph(stack: str, replica: bool) -> ResourceGraph:
    """The shipped ``stack`` at environment prod, with or without its replica."""
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    fleet: dict[str, Any] = copy.deepcopy(config["gpufleet:fleet"])
    fleet["environment"] = "prod"
    fleet["pools"] = {
        name: {k: v for k, v in p.items() if k != "off_hours"} for name, p in fleet["pools"].items()
    }
    if replica:
        fleet["storage"]["checkpoints"]["replica_regions"] = REPLICAS[stack]
    return run_program(ROOT, stack, config_overrides={"gpufleet:fleet": fleet})


def findings(g: ResourceGraph) -> list[tuple[str, str]]:
    result = evaluate_stack(g, [POLICY], {})
    return [(v.urn.rsplit("::", 1)[-1], v.message) for v in result.violations if v.rule_id == "GF-DR-001"]


def test_alibaba_bucket_without_replica_fires() -> None:
    assert findings(graph("cn-dev", replica=False)) == [
        (
            f"{ALI}-checkpoints-bucket",
            f"OSS bucket '{ALI}-checkpoints-bucket' is a production checkpoint bucket without replication; "
            "replicate it to a bucket in a second region or cloud",
        )
    ]


def test_alibaba_replica_passes_both_buckets() -> None:
    g = graph("cn-dev", replica=True)
    names = {r.name for r in g.resources if r.type == "alicloud:oss/bucket:Bucket"}
    assert {f"{ALI}-checkpoints-bucket", f"{ALI}-replica-bucket-bucket"} <= names
    assert findings(g) == []


def test_alibaba_replication_that_skips_kms_objects_fires() -> None:
    g = replaced(
        graph("cn-dev", replica=True),
        f"{ALI}-replica-replication",
        "sourceSelectionCriteria.sseKmsEncryptedObjects.status",
        "Disabled",
    )
    assert findings(g) == [
        (
            f"{ALI}-checkpoints-bucket",
            f"OSS bucket '{ALI}-checkpoints-bucket' is KMS-encrypted, but its oss.BucketReplication "
            f"'{ALI}-replica-replication' does not set sourceSelectionCriteria.sseKmsEncryptedObjects to "
            "Enabled: OSS skips KMS-encrypted objects, so nothing is replicated",
        )
    ]


def test_alibaba_replication_to_the_same_region_fires() -> None:
    g = replaced(
        graph("cn-dev", replica=True), f"{ALI}-replica-replication", "destination.location", "oss-cn-hangzhou"
    )
    assert findings(g) == [
        (
            f"{ALI}-checkpoints-bucket",
            f"OSS bucket '{ALI}-checkpoints-bucket' replicates only within its own region cn-hangzhou; "
            "replicate it to a second region or cloud",
        )
    ]


def test_tencent_bucket_without_replica_fires() -> None:
    assert findings(graph("tc-dev", replica=False)) == [
        (
            f"{TC}-checkpoints-bucket",
            f"COS bucket '{TC}-checkpoints-bucket' is a production checkpoint bucket without replication; "
            "replicate it to a bucket in a second region or cloud",
        )
    ]


def test_tencent_replica_passes_both_buckets() -> None:
    g = graph("tc-dev", replica=True)
    names = {r.name for r in g.resources if r.type == "tencentcloud:Cos/bucket:Bucket"}
    assert {f"{TC}-checkpoints-bucket", f"{TC}-replica-bucket-bucket"} <= names
    assert findings(g) == []


def test_tencent_unversioned_destination_fires() -> None:
    g = replaced(graph("tc-dev", replica=True), f"{TC}-replica-bucket-bucket", "versioningEnable", False)
    assert findings(g) == [
        (
            f"{TC}-checkpoints-bucket",
            f"COS bucket '{TC}-checkpoints-bucket' replicates into COS bucket '{TC}-replica-bucket-bucket', "
            "which is not versioned: COS replicates only into a versioned bucket (set its versioningEnable: "
            "true)",
        )
    ]


def test_tencent_replication_to_the_same_region_fires() -> None:
    g = graph("tc-dev", replica=True)
    source = next(r for r in g.resources if r.name == f"{TC}-checkpoints-bucket")
    [rule] = source.inputs["replicaRules"]
    same = {**rule, "destinationBucket": rule["destinationBucket"].replace("ap-shanghai", "ap-guangzhou")}
    assert findings(replaced(g, f"{TC}-checkpoints-bucket", "replicaRules", [same])) == [
        (
            f"{TC}-checkpoints-bucket",
            f"COS bucket '{TC}-checkpoints-bucket' replicates only within its own region ap-guangzhou; "
            "replicate it to a second region or cloud",
        )
    ]


def test_cos_rules_on_an_unversioned_source_or_without_a_role_fire() -> None:
    from pulumi_policy import PolicyResource

    from gpufleet.policies.storage.tencentcloud import COS_BUCKET
    from tests.policies.support import regional_provider, res, run_stack

    def cos(**props: Any) -> PolicyResource:
        rules = [{"status": "Enabled", "destinationBucket": "qcs::cos:ap-shanghai::dr-125"}]
        base = {"tags": {"purpose": "checkpoints", "env": "prod"}, "replicaRules": rules}
        return res(COS_BUCKET, "c", {**base, **props}, prov=regional_provider("tencentcloud", "ap-guangzhou"))

    role = "qcs::cam::uin/1:roleName/r"
    unversioned = cos(replicaRole=role)
    assert run_stack(POLICY, [unversioned]) == [
        (
            "COS bucket 'c' has replicaRules but versioningEnable is not true: COS replicates only from a "
            "versioned bucket",
            unversioned.urn,
        )
    ]
    roleless = cos(versioningEnable=True)
    assert run_stack(POLICY, [roleless]) == [
        (
            "COS bucket 'c' has replicaRules but no replicaRole: COS needs the identity it replicates as",
            roleless.urn,
        )
    ]
    assert run_stack(POLICY, [cos(versioningEnable=True, replicaRole=role)]) == []
