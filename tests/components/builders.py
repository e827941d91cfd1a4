"""Builders shared by the component tests: a full AWS component set with known arguments."""

from __future__ import annotations

from gpufleet.components.audit.aws import FleetAudit, FleetAuditArgs
from gpufleet.components.cost.aws import FleetBudget, FleetBudgetArgs
from gpufleet.components.identity.aws import InstanceIdentity, InstanceIdentityArgs
from gpufleet.components.keys.aws import FleetKey, FleetKeyArgs
from gpufleet.components.network.aws import FleetNetwork, FleetNetworkArgs
from gpufleet.components.pools.aws import GpuPool, GpuPoolArgs, OffHours
from gpufleet.components.storage.aws import CheckpointBucket, CheckpointBucketArgs

ACCOUNT = "123456789012"
REGION = "us-east-1"
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}
KEY_ARN = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
STACK = "gpufleet/test"  # <project>/<stack> of the test mocks
OFF_HOURS = OffHours(timezone="Asia/Shanghai", stop_cron="0 20 * * *", start_cron="0 8 * * 1-5")


def pool_args(**overrides: object) -> GpuPoolArgs:
    values: dict[str, object] = {
        "pool": "experiments",
        "instance_types": ["g5.xlarge", "g4dn.xlarge"],
        "min_size": 0,
        "max_size": 4,
        "spot_percent": 100,
        "subnet_ids": ["subnet-a", "subnet-b"],
        "security_group_id": "sg-1",
        "instance_profile_arn": f"arn:aws:iam::{ACCOUNT}:instance-profile/gpu",
        "kms_key_arn": KEY_ARN,
        "role_name": "gpu-role",
        "tags": TAGS,
        "stack": STACK,
    }
    values.update(overrides)
    return GpuPoolArgs(**values)  # type: ignore[arg-type]


def build_everything() -> None:
    """One of every component, wired the way the fleet wires them."""
    key = FleetKey("fk", FleetKeyArgs(encryption="sse-kms", account_id=ACCOUNT, region=REGION, tags=TAGS))
    FleetKey("bk", FleetKeyArgs(encryption="byok", account_id=ACCOUNT, region=REGION, tags=TAGS))
    bucket = CheckpointBucket("ckpt", CheckpointBucketArgs(kms_key_arn=key.key_arn, tags=TAGS))
    audit = FleetAudit(
        "audit",
        FleetAuditArgs(
            fleet="gpufleet-dev", kms_key_arn=key.key_arn, account_id=ACCOUNT, region=REGION, tags=TAGS
        ),
    )
    identity = InstanceIdentity(
        "ident",
        InstanceIdentityArgs(
            bucket_arn=bucket.bucket_arn,
            bucket_region=REGION,
            kms_key_arns=[key.key_arn],
            log_group_arns=[audit.agent_log_group_arn, audit.session_log_group_arn],
            tags=TAGS,
            metric_namespace=f"gpufleet/{STACK}",
        ),
    )
    network = FleetNetwork(
        "net", FleetNetworkArgs(region=REGION, tags=TAGS, availability_zones=["us-east-1a", "us-east-1b"])
    )
    FleetNetwork("byo", FleetNetworkArgs(region=REGION, tags=TAGS, subnet_ids=["subnet-1", "subnet-2"]))
    GpuPool(
        "pool",
        pool_args(
            subnet_ids=network.subnet_ids,
            security_group_id=network.security_group_id,
            instance_profile_arn=identity.instance_profile_arn,
            role_name=identity.role_name,
            kms_key_arn=key.key_arn,
            off_hours=OFF_HOURS,
        ),
    )
    FleetBudget(
        "budget",
        FleetBudgetArgs(
            monthly_limit=3000, stack=STACK, account_id=ACCOUNT, kms_key_arn=key.key_arn, tags=TAGS
        ),
    )
