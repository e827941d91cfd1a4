"""The fleet in a second region: one RegionalSite per region, the checkpoint replica, regional pools."""

from __future__ import annotations

import copy
import importlib
import inspect
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.components.fleet import FleetError, HybridGpuFleet
from gpufleet.components.spec import SpecError, parse_fleet

from .conftest import ACCOUNT, RecordingMocks, Registration, Runner, statements_by_sid

ROOT = Path(__file__).resolve().parents[2]
NAME = "gpufleet-prod"
HOME, WEST = "us-east-1", "us-west-2"
SITE = f"{NAME}-{WEST}"
WEST_POOL = f"{NAME}-pool-burst-a10g-west"
HOME_KEY_ARN = f"arn:aws:kms:{HOME}:{ACCOUNT}:key/{NAME}-key-key-key-id"
WEST_KEY_ARN = f"arn:aws:kms:{WEST}:{ACCOUNT}:key/{SITE}-key-key-key-id"
HOME_BUCKET_ARN = f"arn:aws:s3:::{NAME}-storage-bucket-0a1b2c3"
WEST_BUCKET_ARN = f"arn:aws:s3:::{SITE}-storage-bucket-0a1b2c3"


def _prod() -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]
    return copy.deepcopy(config["gpufleet:fleet"])  # type: ignore[no-any-return]


def _run(run_pulumi: Runner, raw: dict[str, Any]) -> RecordingMocks:
    spec = parse_fleet(raw, source="test")
    return run_pulumi(lambda: HybridGpuFleet(NAME, spec))


def _takes_region(token: str) -> bool:
    package, module_path, class_name = token.split(":")
    module = importlib.import_module(f"pulumi_{package}.{module_path.split('/')[0]}")
    init = getattr(module, class_name)._internal_init
    return "region" in inspect.signature(init).parameters


def _regional(registrations: list[Registration]) -> list[Registration]:
    return [r for r in registrations if r.custom and _takes_region(r.type)]


def test_prod_has_one_site_in_the_second_region_and_replication(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, _prod())
    components = sorted((r.type, r.name) for r in mocks.registrations if not r.custom)
    assert components == [
        ("gpufleet:audit:FleetAudit", f"{NAME}-audit"),
        ("gpufleet:audit:FleetAudit", f"{SITE}-audit"),
        ("gpufleet:cost:FleetBudget", f"{NAME}-budget"),
        ("gpufleet:fleet:HybridGpuFleet", NAME),
        ("gpufleet:fleet:RegionalSite", SITE),
        # Each pool's own role: no pool's instances read another pool's queue.
        ("gpufleet:identity:InstanceIdentity", WEST_POOL),
        ("gpufleet:identity:InstanceIdentity", f"{NAME}-pool-inference-a10g"),
        ("gpufleet:identity:InstanceIdentity", f"{NAME}-pool-train-a100"),
        ("gpufleet:keys:FleetKey", f"{NAME}-key"),
        ("gpufleet:keys:FleetKey", f"{SITE}-key"),
        ("gpufleet:network:FleetNetwork", f"{NAME}-network"),
        ("gpufleet:network:FleetNetwork", f"{SITE}-network"),
        ("gpufleet:pools:GpuPool", WEST_POOL),
        ("gpufleet:pools:GpuPool", f"{NAME}-pool-inference-a10g"),
        ("gpufleet:pools:GpuPool", f"{NAME}-pool-train-a100"),
        # One AWS site per region: the home's, and the west's, which holds its RegionalSite, its pool
        # and the replication (the west holds the replica).
        ("gpufleet:sites:AwsSite", f"{NAME}-aws-{HOME}"),
        ("gpufleet:sites:AwsSite", f"{NAME}-aws-{WEST}"),
        ("gpufleet:storage:CheckpointBucket", f"{NAME}-storage"),
        ("gpufleet:storage:CheckpointBucket", f"{SITE}-storage"),
        ("gpufleet:storage:CheckpointReplication", f"{NAME}-replication"),
    ]
    # The account baseline's one trail covers every region: neither the fleet nor its site adds one.
    assert mocks.of_type("aws:cloudtrail/trail:Trail") == []
    assert len(mocks.of_type("aws:budgets/budget:Budget")) == 1


def test_every_regional_resource_says_which_region_it_lives_in(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, _prod())
    regional = _regional(mocks.registrations)
    in_west = {r.name for r in regional if r.inputs.get("region") == WEST}
    in_home = {r.name for r in regional if r.inputs.get("region") == HOME}
    # Left unset, a resource lands in the provider's region, the home one: only the budget's alerts do.
    unset = {r.name for r in regional if "region" not in r.inputs}
    assert all(name.startswith(f"{NAME}-budget-") for name in unset), unset
    assert {r.name for r in regional} == in_west | in_home | unset
    expected_west = {r.name for r in regional if r.name.startswith((f"{SITE}-", f"{WEST_POOL}-"))} | {
        f"{NAME}-replication-to-primary"
    }
    assert in_west == expected_west
    assert len(in_west) == 42  # with the pool's queue, dead-letter queue, their policies and its drain hook
    # Only IAM, which is global, is built without a region: the west pool's own role, none in the site.
    global_types = {
        r.type for r in mocks.custom() if r.name.startswith(f"{SITE}-") and not _takes_region(r.type)
    }
    assert global_types == set()
    pool_global = {
        r.type for r in mocks.custom() if r.name.startswith(f"{WEST_POOL}-") and not _takes_region(r.type)
    }
    assert pool_global == {
        "aws:iam/instanceProfile:InstanceProfile",
        "aws:iam/role:Role",
        "aws:iam/rolePolicy:RolePolicy",
    }
    availability_zones = sorted(
        r.inputs["availabilityZone"]
        for r in mocks.of_type("aws:ec2/subnet:Subnet")
        if r.name.startswith(SITE)
    )
    assert availability_zones == [f"{WEST}a", f"{WEST}b", f"{WEST}c"]
    services = sorted(
        r.inputs["serviceName"]
        for r in mocks.of_type("aws:ec2/vpcEndpoint:VpcEndpoint")
        if r.name.startswith(SITE)
    )
    assert services == sorted(
        f"com.amazonaws.{WEST}.{s}"
        for s in ("s3", "ssm", "ssmmessages", "ec2messages", "logs", "kms", "monitoring", "ec2", "sqs")
    )


def test_byok_home_key_is_a_multi_region_primary_and_the_site_holds_its_replica(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, _prod())
    home = mocks.one("aws:kms/externalKey:ExternalKey", f"{NAME}-key-key").inputs
    assert (home["multiRegion"], home["region"]) == (True, HOME)
    replica = mocks.one("aws:kms/replicaExternalKey:ReplicaExternalKey", f"{SITE}-key-key").inputs
    assert (replica["primaryKeyArn"], replica["region"]) == (HOME_KEY_ARN, WEST)
    assert "CloudTrailEncryptsLogs" not in statements_by_sid(replica)
    assert mocks.of_type("aws:kms/key:Key") == []


def test_replica_bucket_matches_the_primary_in_its_region_and_replication_runs_both_ways(
    run_pulumi: Runner,
) -> None:
    mocks = _run(run_pulumi, _prod())
    primary = mocks.one("aws:s3/bucket:Bucket", f"{NAME}-storage-bucket").inputs
    replica = mocks.one("aws:s3/bucket:Bucket", f"{SITE}-storage-bucket").inputs
    assert replica["tags"] == primary["tags"]
    assert replica["tags"]["data-classification"] == "restricted"
    lifecycle = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
    assert (
        mocks.one(lifecycle, f"{SITE}-storage-lifecycle").inputs["rules"]
        == mocks.one(lifecycle, f"{NAME}-storage-lifecycle").inputs["rules"]
    )
    sse = mocks.one(
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        f"{SITE}-storage-encryption",
    ).inputs
    assert sse["rules"][0]["applyServerSideEncryptionByDefault"]["kmsMasterKeyId"] == WEST_KEY_ARN
    replication = {
        r.name: (r.inputs["bucket"], r.inputs["region"], r.inputs["rules"][0]["destination"])
        for r in mocks.of_type("aws:s3/bucketReplicationConfig:BucketReplicationConfig")
    }
    assert replication == {
        f"{NAME}-replication-to-replica": (
            f"{NAME}-storage-bucket-0a1b2c3",
            HOME,
            {
                "bucket": WEST_BUCKET_ARN,
                "storageClass": "STANDARD",
                "encryptionConfiguration": {"replicaKmsKeyId": WEST_KEY_ARN},
            },
        ),
        f"{NAME}-replication-to-primary": (
            f"{SITE}-storage-bucket-0a1b2c3",
            WEST,
            {
                "bucket": HOME_BUCKET_ARN,
                "storageClass": "STANDARD",
                "encryptionConfiguration": {"replicaKmsKeyId": HOME_KEY_ARN},
            },
        ),
    }


def test_west_pool_runs_on_the_site_with_the_same_hardening(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, _prod())
    template = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", f"{WEST_POOL}-lt").inputs
    home_template = mocks.one(
        "aws:ec2/launchTemplate:LaunchTemplate", f"{NAME}-pool-inference-a10g-lt"
    ).inputs
    assert template["metadataOptions"] == home_template["metadataOptions"]
    assert template["metadataOptions"]["httpTokens"] == "required"
    assert template["networkInterfaces"][0]["associatePublicIpAddress"] == "false"
    assert template["networkInterfaces"][0]["securityGroups"] == [f"{SITE}-network-instances-sg-id"]
    assert "keyName" not in template
    ebs = template["blockDeviceMappings"][0]["ebs"]
    assert (ebs["encrypted"], ebs["kmsKeyId"], ebs["volumeType"]) == ("true", WEST_KEY_ARN, "gp3")
    profile = f"arn:aws:iam:{HOME}:{ACCOUNT}:instanceprofile/{WEST_POOL}-profile-0a1b2c3"
    assert template["iamInstanceProfile"] == {"arn": profile}
    ami_regions = [str(a.get("region")) for t, a in mocks.calls if t == "aws:ec2/getAmi:getAmi"]
    assert sorted(ami_regions) == [HOME, HOME, WEST]
    group = mocks.one("aws:autoscaling/group:Group", f"{WEST_POOL}-asg").inputs
    assert group["vpcZoneIdentifiers"] == [f"{SITE}-network-private-{i}-id" for i in range(3)]
    assert group["maxSize"] == 4
    assert group["mixedInstancesPolicy"]["instancesDistribution"]["onDemandPercentageAboveBaseCapacity"] == 30


def test_site_logs_sessions_in_its_region_under_its_own_key_when_the_fleet_owns_the_baseline(
    run_pulumi: Runner,
) -> None:
    raw = _prod()
    raw["account"] = {"baseline": "in-stack"}
    mocks = _run(run_pulumi, raw)
    groups = {
        r.name: (r.inputs["name"], r.inputs["kmsKeyId"], r.inputs["retentionInDays"], r.inputs["region"])
        for r in mocks.of_type("aws:cloudwatch/logGroup:LogGroup")
        if r.name.startswith(SITE)
    }
    assert groups == {
        f"{SITE}-audit-agent-logs": (f"/gpufleet/{NAME}/agent", WEST_KEY_ARN, 365, WEST),
        f"{SITE}-audit-session-logs": (f"/gpufleet/{NAME}/sessions", WEST_KEY_ARN, 365, WEST),
    }
    prefs = mocks.one("aws:ssm/document:Document", f"{SITE}-audit-session-prefs").inputs
    assert (prefs["name"], prefs["region"]) == ("SSM-SessionManagerRunShell", WEST)
    assert prefs["tags"]["gpufleet:account-baseline"] == NAME
    content = json.loads(prefs["content"])["inputs"]
    assert (content["cloudWatchLogGroupName"], content["kmsKeyId"]) == (
        f"/gpufleet/{NAME}/sessions",
        WEST_KEY_ARN,
    )
    statements = statements_by_sid(
        mocks.one("aws:iam/rolePolicy:RolePolicy", f"{WEST_POOL}-permissions").inputs
    )
    assert statements["DecryptSessions"]["Resource"] == [WEST_KEY_ARN]


def test_site_of_a_baselined_account_uses_the_baselines_session_logs_and_key(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, _prod())
    assert mocks.of_type("aws:ssm/document:Document") == []
    assert [r.name for r in mocks.of_type("aws:cloudwatch/logGroup:LogGroup") if r.name.startswith(SITE)] == [
        f"{SITE}-audit-agent-logs"
    ]
    statements = statements_by_sid(
        mocks.one("aws:iam/rolePolicy:RolePolicy", f"{WEST_POOL}-permissions").inputs
    )
    baseline_logs = f"arn:aws:logs:{WEST}:{ACCOUNT}:log-group:/gpufleet/account/sessions"
    assert baseline_logs in statements["WriteOwnLogs"]["Resource"]
    assert f"{baseline_logs}:log-stream:*" in statements["WriteOwnLogs"]["Resource"]
    # The baseline's key in the site's region, found by its fixed alias.
    assert statements["DecryptSessions"]["Resource"] == [f"arn:aws:kms:{WEST}:{ACCOUNT}:key/baseline-{WEST}"]
    assert ("aws:kms/getAlias:getAlias", {"name": f"alias/gpufleet-account-{WEST}", "region": WEST}) in [
        (t, {k: v for k, v in a.items() if k in ("name", "region")}) for t, a in mocks.calls
    ]


def test_site_role_reads_the_replica_in_its_own_region_only(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, _prod())
    statements = statements_by_sid(
        mocks.one("aws:iam/rolePolicy:RolePolicy", f"{WEST_POOL}-permissions").inputs
    )
    assert statements["ReadWriteCheckpoints"]["Resource"] == [f"{WEST_BUCKET_ARN}/checkpoints/*"]
    assert statements["ReadData"]["Resource"] == [f"{WEST_BUCKET_ARN}/data/*"]
    assert statements["UseBucketKeyThroughS3"]["Resource"] == [WEST_KEY_ARN]
    assert statements["UseBucketKeyThroughS3"]["Condition"] == {
        "StringEquals": {"kms:ViaService": f"s3.{WEST}.amazonaws.com"}
    }
    home = statements_by_sid(
        mocks.one("aws:iam/rolePolicy:RolePolicy", f"{NAME}-pool-inference-a10g-permissions").inputs
    )
    assert home["UseBucketKeyThroughS3"]["Resource"] == [HOME_KEY_ARN]


def test_sse_kms_replica_gets_a_new_rotating_key_and_no_pool_network(run_pulumi: Runner) -> None:
    raw = _prod()
    raw.update(environment="dev")
    raw["storage"]["checkpoints"].update(encryption="sse-kms", classification="internal")
    del raw["storage"]["checkpoints"]["byok_material"]
    del raw["pools"]["burst-a10g-west"]
    del raw["network"]["regions"]
    mocks = _run(run_pulumi, raw)
    keys = {r.name: r.inputs for r in mocks.of_type("aws:kms/key:Key")}
    assert sorted(keys) == [f"{NAME}-key-key", f"{SITE}-key-key"]
    assert "multiRegion" not in keys[f"{NAME}-key-key"]
    assert (keys[f"{SITE}-key-key"]["enableKeyRotation"], keys[f"{SITE}-key-key"]["region"]) == (True, WEST)
    site = sorted(r.type for r in mocks.registrations if r.name.startswith(f"{SITE}-") and not r.custom)
    assert site == ["gpufleet:keys:FleetKey", "gpufleet:storage:CheckpointBucket"]
    assert mocks.of_type("aws:kms/replicaExternalKey:ReplicaExternalKey") == []


def test_pool_in_a_region_without_a_replica_reads_the_home_bucket(run_pulumi: Runner) -> None:
    raw = _prod()
    del raw["storage"]["checkpoints"]["replicate_to"]
    mocks = _run(run_pulumi, raw)
    assert mocks.of_type("aws:s3/bucketReplicationConfig:BucketReplicationConfig") == []
    assert sorted(r.name for r in mocks.of_type("aws:s3/bucket:Bucket")) == [
        f"{NAME}-storage-bucket",
    ]
    statements = statements_by_sid(
        mocks.one("aws:iam/rolePolicy:RolePolicy", f"{WEST_POOL}-permissions").inputs
    )
    assert statements["ReadWriteCheckpoints"]["Resource"] == [f"{HOME_BUCKET_ARN}/checkpoints/*"]
    # The home bucket is reached through S3 in the home region, so that is where the key is used.
    assert statements["UseBucketKeyThroughS3"]["Resource"] == [HOME_KEY_ARN]
    assert statements["UseBucketKeyThroughS3"]["Condition"] == {
        "StringEquals": {"kms:ViaService": f"s3.{HOME}.amazonaws.com"}
    }
    # Its own region still gets a key, for its volumes and logs.
    assert (
        mocks.one("aws:kms/replicaExternalKey:ReplicaExternalKey", f"{SITE}-key-key").inputs["region"] == WEST
    )
    template = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", f"{WEST_POOL}-lt").inputs
    assert template["blockDeviceMappings"][0]["ebs"]["kmsKeyId"] == WEST_KEY_ARN


def test_region_problems_are_reported_together(run_pulumi: Runner) -> None:
    raw = _prod()
    raw["storage"]["checkpoints"]["replicate_to"] = HOME
    raw["network"]["regions"] = {
        HOME: {"vpc_cidr": "10.43.0.0/16"},
        "eu-west-1": {"vpc_cidr": "10.44.0.0/16"},
    }
    raw["pools"]["train-a100"]["region"] = "US-EAST"
    with pytest.raises(FleetError) as raised:
        _run(run_pulumi, raw)
    assert str(raised.value).splitlines() == [
        "pools.train-a100.region: 'US-EAST' is not an AWS region name like us-west-2",
        "pools.burst-a10g-west.region: us-west-2 differs from the stack's aws:region us-east-1 and needs its "
        "own network: add network.regions.us-west-2.vpc_cidr, a range that overlaps none of the fleet's "
        "others",
        "storage.checkpoints.replicate_to: us-east-1 is the stack's own aws:region; the replica must be in a "
        "second region to survive a regional outage",
        "network.regions.us-east-1: this is the stack's own aws:region, whose network is network.vpc_cidr; "
        "remove the entry",
        "network.regions.eu-west-1: no pool runs in eu-west-1; remove the entry or add a pool with that "
        "region",
    ]


def test_dev_stays_in_one_region(run_pulumi: Runner) -> None:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
    mocks = _run(run_pulumi, config["gpufleet:fleet"])
    assert {r.inputs.get("region", HOME) for r in _regional(mocks.registrations)} == {HOME}
    assert mocks.of_type("gpufleet:fleet:RegionalSite") == []
    assert mocks.of_type("aws:s3/bucketReplicationConfig:BucketReplicationConfig") == []
    assert "multiRegion" not in mocks.one("aws:kms/key:Key", f"{NAME}-key-key").inputs


def test_regional_networks_may_not_overlap_each_other_or_home() -> None:
    raw = _prod()
    raw["network"]["regions"] = {
        WEST: {"vpc_cidr": "10.41.128.0/17"},
        "eu-west-1": {"vpc_cidr": "10.41.0.0/24"},
    }
    with pytest.raises(SpecError) as raised:
        parse_fleet(raw, source="test")
    assert raised.value.errors == [
        (
            "gpufleet:fleet.network.regions.us-west-2.vpc_cidr",
            "10.41.128.0/17 overlaps network.vpc_cidr (10.41.0.0/16); give each region its own range",
        ),
        (
            "gpufleet:fleet.network.regions.eu-west-1.vpc_cidr",
            "10.41.0.0/24 overlaps network.vpc_cidr (10.41.0.0/16); give each region its own range",
        ),
    ]
