"""Defaults set elsewhere, retention where the audit goes, and every compute that launches GPU
instances, on a raw-SDK program across three clouds (see gpu_estate/__main__.py): the compliant
program, one mistake per variant, and the first preview where ids of resources created in the same
program are unknown. Judged with the whole pack; asserted for the rules these classes belong to."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.aws.harness import as_preview
from tests.realworld.netaccess.support import graph_of, judge, outcome

ESTATE = Path(__file__).resolve().parent / "gpu_estate"
RULES = {"GF-ACC-002", "GF-ACC-004", "GF-ACC-005", "GF-AUD-002", "GF-STOR-002", "GF-STOR-008"}
KEY_TAIL = "; GPU instances carry no SSH key or login password: connect through a session manager"
IP_TAIL = "; GPU instances get no public IP: keep them private behind NAT"
IMDS_TAIL = "; require IMDSv2 tokens (httpTokens: required) with a hop limit of at most 2"
AUDIT_TAIL = "; keep audit logs at least 180 days (expire them later, or not at all)"
UNSET = "allows IMDSv1 (httpTokens is unset (optional))"

# variant -> {(rule id, resource name, message)}
VARIANTS: dict[str, set[tuple[str, str, str]]] = {
    # Without the account default only the AMI id from get_ami fails: the SSM-named AL2023 templates pass.
    "no-imds-defaults": {("GF-ACC-004", "embed", f"EC2 instance 'embed' {UNSET}{IMDS_TAIL}")},
    "imds-defaults-optional": {
        ("GF-ACC-004", "embed", f"EC2 instance 'embed' {UNSET}{IMDS_TAIL}"),
        (
            "GF-ACC-004",
            "account-imds",
            "EC2 instance metadata defaults 'account-imds' allows IMDSv1 (httpTokens is optional)"
            f"{IMDS_TAIL}",
        ),
    },
    "ebs-default-off": {
        (
            "GF-STOR-008",
            "embed",
            "EC2 instance 'embed' has an unencrypted root volume (rootBlockDevice.encrypted); encrypt it or "
            "enable the account's default volume encryption",
        ),
        (
            "GF-STOR-008",
            "al2023",
            "EC2 launch template 'al2023' has an unencrypted volume /dev/xvda (ebs.encrypted); encrypt it or "
            "enable the account's default volume encryption",
        ),
        (
            "GF-STOR-008",
            "fleet-tpl",
            "EC2 launch template 'fleet-tpl' has an unencrypted root volume (no blockDeviceMappings[].ebs); "
            "encrypt it or enable the account's default volume encryption",
        ),
        # No launch template: Batch launches the ECS-optimised image's unencrypted root volume.
        (
            "GF-STOR-008",
            "train",
            "Batch compute environment 'train' has an unencrypted root volume (no "
            "computeResources.launchTemplate with encrypted volumes); encrypt it or enable the account's "
            "default volume encryption",
        ),
    },
    "restricted-generated-key": {
        (
            "GF-STOR-002",
            "data",
            "S3 bucket 'data' is classified data-classification=restricted but its key 'data-key' "
            "(aws:kms/key:Key) has provider-generated key material; use a key whose material is imported "
            "(origin EXTERNAL)",
        )
    },
    "trail-bucket-90d": {
        (
            "GF-AUD-002",
            "org",
            "CloudTrail trail 'org' delivers to S3 bucket 'audit', whose lifecycle rule 'expire-audit' "
            f"expires the trail's files after 90 days{AUDIT_TAIL}",
        )
    },
    "actiontrail-oss-30d": {
        (
            "GF-AUD-002",
            "org",
            "ActionTrail trail 'org' delivers to OSS bucket 'actiontrail', whose lifecycle rule "
            f"'expire-trail' expires the trail's files after 30 days{AUDIT_TAIL}",
        )
    },
    "cloudaudit-cos-30d": {
        (
            "GF-AUD-002",
            "org",
            "CloudAudit track 'org' delivers to COS bucket 'cloudaudit', whose lifecycle rule 'expire-audit' "
            f"expires the trail's files after 30 days{AUDIT_TAIL}",
        )
    },
    "batch-key-pair": {
        (
            "GF-ACC-002",
            "train",
            "Batch compute environment 'train' (g5, g6) has SSH key pair 'ops' "
            f"(computeResources.ec2KeyPair){KEY_TAIL}",
        )
    },
    "batch-public-subnet": {
        (
            "GF-ACC-005",
            "train",
            "Batch compute environment 'train' (g5, g6) launches into subnet 'public', which gives every "
            "instance a public IP (mapPublicIpOnLaunch is true), and nothing sets "
            f"associatePublicIpAddress to false{IP_TAIL}",
        )
    },
    "node-group-ssh": {
        (
            "GF-ACC-002",
            "gpu-nodes",
            "EKS node group 'gpu-nodes' (AL2023_x86_64_NVIDIA) has SSH key pair 'ops' "
            f"(remoteAccess.ec2SshKey){KEY_TAIL}",
        )
    },
    "fleet-template-key": {
        (
            "GF-ACC-002",
            "fleet-tpl",
            f"EC2 launch template 'fleet-tpl' (g5.2xlarge) has SSH key pair 'ops' (keyName){KEY_TAIL}",
        )
    },
    "spot-fleet-public-ip": {
        (
            "GF-ACC-005",
            "spot",
            "EC2 spot fleet request 'spot' launch specification 1 (g4dn.xlarge) gets a public IP "
            f"(associatePublicIpAddress is true){IP_TAIL}",
        )
    },
    "ack-password": {
        (
            "GF-ACC-002",
            "ack-gpu",
            f"ACK node pool 'ack-gpu' (ecs.gn7i-c8g1.2xlarge) has a login password (password){KEY_TAIL}",
        )
    },
    "ack-public-ip": {
        (
            "GF-ACC-005",
            "ack-gpu",
            "ACK node pool 'ack-gpu' (ecs.gn7i-c8g1.2xlarge) gets a public IP (internetMaxBandwidthOut is 10 "
            f"(a public IP with outbound bandwidth)){IP_TAIL}",
        )
    },
    "tke-key": {
        (
            "GF-ACC-002",
            "tke-gpu",
            "TKE node pool 'tke-gpu' (GN7.2XLARGE32) has SSH key pair 'skey-ops' "
            f"(autoScalingConfig.keyIds){KEY_TAIL}",
        )
    },
    "tke-public-ip": {
        (
            "GF-ACC-005",
            "tke-gpu",
            "TKE node pool 'tke-gpu' (GN7.2XLARGE32) gets a public IP (autoScalingConfig.publicIpAssigned is "
            f"true){IP_TAIL}",
        )
    },
}


def findings(variant: str, *, preview: bool = False) -> set[tuple[str, str, str]]:
    found = judge(as_preview(graph_of(ESTATE, variant))) if preview else outcome(ESTATE, variant)
    return {(v.rule_id, v.urn.rsplit("::", 1)[-1], v.message) for v in found.violations if v.rule_id in RULES}


def test_compliant_estate_relies_on_defaults_and_passes() -> None:
    assert findings("none") == set()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_mistake_is_reported_by_its_rule(variant: str) -> None:
    assert findings(variant) == VARIANTS[variant]


def test_first_preview_with_unknown_ids_stays_compliant() -> None:
    assert findings("none", preview=True) == set()


@pytest.mark.parametrize(
    "variant", ["trail-bucket-90d", "batch-public-subnet", "fleet-template-key", "no-imds-defaults"]
)
def test_mistakes_joined_through_unknown_ids_are_found_at_first_preview(variant: str) -> None:
    assert findings(variant, preview=True) == VARIANTS[variant]
