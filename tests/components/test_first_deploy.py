"""The AWS fleet on a fresh account, checked against AWS's own rules (issue 8's deploy findings): the
key policy's role, the account singletons, BYOK on the first deploy, creation order, images and egress.

Each test names the documented constraint the built inputs satisfy. They run the real program
(infra/) through the offline engine, which records dependencies as the Pulumi engine would. The other
findings are in test_first_deploy_paths.py and test_first_deploy_claims.py.
"""

from __future__ import annotations

import json

import pytest
import yaml

from gpufleet.engine import EngineError, run_program
from tests.components.first_deploy_support import (
    ACCOUNT,
    KEY_TYPES,
    ROLE_ARN,
    ROOT,
    SINGLETONS,
    SLR,
    fleet,
    one,
    prod_with,
    run,
    shipped,
    statements,
)

# ---- finding 1: the key policy names a role that exists at creation -------------------------------


def test_in_stack_fleet_creates_the_autoscaling_role_and_its_keys_wait_for_it() -> None:
    graph = run("dev", account={"baseline": "in-stack"})
    role = one(graph, SLR, "gpufleet-dev-autoscaling-role")
    assert role.inputs["awsServiceName"] == "autoscaling.amazonaws.com"
    assert role.inputs["tags"]["gpufleet:account-baseline"] == "gpufleet-dev"
    key = one(graph, "aws:kms/key:Key", "gpufleet-dev-key-key")
    # KMS rejects a policy naming a principal that does not exist yet (MalformedPolicyDocumentException).
    assert role.urn in key.dependencies
    assert statements(key)["AutoScalingUsesKeyForVolumes"]["Principal"] == {"AWS": [ROLE_ARN]}


def test_existing_role_is_named_but_not_created() -> None:
    graph = run("dev", account={"baseline": "in-stack", "service_linked_roles": "existing"})
    assert graph.of_type(SLR) == []
    key = one(graph, "aws:kms/key:Key", "gpufleet-dev-key-key")
    assert statements(key)["AutoScalingGrantsForVolumes"]["Principal"] == {"AWS": [ROLE_ARN]}


def test_every_regional_key_of_an_in_stack_fleet_waits_for_the_role() -> None:
    graph = run("prod", account={"baseline": "in-stack"})
    role = one(graph, SLR, "gpufleet-prod-autoscaling-role")
    keys = [r for r in graph.custom_resources() if r.type in KEY_TYPES]
    assert sorted(k.name for k in keys) == ["gpufleet-prod-key-key", "gpufleet-prod-us-west-2-key-key"]
    assert all(role.urn in k.dependencies for k in keys)


# ---- finding 2: account singletons in one stack of the account ------------------------------------


def test_shipped_fleets_create_no_account_singleton() -> None:
    for stack in ("dev", "prod"):
        graph = shipped(stack)
        assert [r.name for t in SINGLETONS for r in graph.of_type(t)] == [], stack


def test_account_baseline_stack_owns_every_singleton() -> None:
    graph = shipped("account")
    owned = sorted((r.type, r.name) for t in SINGLETONS for r in graph.of_type(t))
    assert owned == sorted(
        [
            (SLR, "gpufleet-account-autoscaling-role"),
            (
                "aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock",
                "gpufleet-account-us-east-1-settings-s3-public-access",
            ),
            *[
                (t, f"gpufleet-account-{region}-{suffix}")
                for region in ("us-east-1", "us-west-2")
                for t, suffix in (
                    ("aws:ssm/document:Document", "session-prefs"),
                    ("aws:ebs/encryptionByDefault:EncryptionByDefault", "settings-ebs-encryption"),
                    ("aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults", "settings-imds"),
                )
            ],
        ]
    )
    imds = one(
        graph,
        "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults",
        "gpufleet-account-us-west-2-settings-imds",
    )
    assert (imds.inputs["httpTokens"], imds.inputs["httpPutResponseHopLimit"], imds.inputs["region"]) == (
        "required",
        2,
        "us-west-2",
    )
    block = one(
        graph,
        "aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock",
        "gpufleet-account-us-east-1-settings-s3-public-access",
    )
    assert all(
        block.inputs[k] is True
        for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
    )
    ebs = one(
        graph,
        "aws:ebs/encryptionByDefault:EncryptionByDefault",
        "gpufleet-account-us-east-1-settings-ebs-encryption",
    )
    assert ebs.inputs["enabled"] is True
    # Every taggable baseline resource says which stack owns the account's singletons.
    taggable = [r for r in graph.custom_resources() if "tags" in r.inputs]
    assert taggable and all(r.inputs["tags"].get("gpufleet:account-baseline") == "account" for r in taggable)
    assert graph.config["pulumi:tags"] == {"gpufleet:account-baseline": "account"} or json.loads(
        graph.config["pulumi:tags"]
    ) == {"gpufleet:account-baseline": "account"}


def test_baseline_sessions_are_encrypted_and_logged_for_180_days_under_its_own_key() -> None:
    graph = shipped("account")
    for region in ("us-east-1", "us-west-2"):
        key = one(graph, "aws:kms/key:Key", f"gpufleet-account-{region}-key")
        alias = one(graph, "aws:kms/alias:Alias", f"gpufleet-account-{region}-alias")
        assert (alias.inputs["name"], key.inputs["enableKeyRotation"]) == (
            f"alias/gpufleet-account-{region}",
            True,
        )
        assert one(graph, SLR, "gpufleet-account-autoscaling-role").urn in key.dependencies
        logs = one(graph, "aws:cloudwatch/logGroup:LogGroup", f"gpufleet-account-{region}-session-logs")
        assert (logs.inputs["name"], logs.inputs["retentionInDays"], logs.inputs["region"]) == (
            "/gpufleet/account/sessions",
            180,
            region,
        )
        assert logs.inputs["kmsKeyId"] == key.outputs["arn"]
        prefs = one(graph, "aws:ssm/document:Document", f"gpufleet-account-{region}-session-prefs")
        assert (prefs.inputs["name"], prefs.inputs["documentType"]) == (
            "SSM-SessionManagerRunShell",
            "Session",
        )
        inputs = json.loads(prefs.inputs["content"])["inputs"]
        assert (
            inputs["cloudWatchLogGroupName"],
            inputs["kmsKeyId"],
            inputs["cloudWatchEncryptionEnabled"],
        ) == (
            "/gpufleet/account/sessions",
            key.outputs["arn"],
            True,
        )
        # EBS encryption by default is on under AWS's aws/ebs key: the baseline key, which only Auto
        # Scaling's role may use for volumes, never becomes the key of every launch in the account.
        encryption = one(
            graph,
            "aws:ebs/encryptionByDefault:EncryptionByDefault",
            f"gpufleet-account-{region}-settings-ebs-encryption",
        )
        assert (encryption.inputs["enabled"], encryption.inputs["region"]) == (True, region)
    assert graph.of_type("aws:ebs/defaultKmsKey:DefaultKmsKey") == []


def test_baselined_fleet_reads_sessions_through_the_baseline_by_its_fixed_names() -> None:
    graph = shipped("dev")
    role = statements(
        one(graph, "aws:iam/rolePolicy:RolePolicy", "gpufleet-dev-pool-experiments-permissions")
    )
    logs = f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/gpufleet/account/sessions"
    assert logs in role["WriteOwnLogs"]["Resource"]
    assert role["DecryptSessions"]["Resource"][0].startswith(f"arn:aws:kms:us-east-1:{ACCOUNT}:key/")
    assert graph.of_type("aws:cloudwatch/logGroup:LogGroup") and all(
        not r.name.endswith("session-logs") for r in graph.of_type("aws:cloudwatch/logGroup:LogGroup")
    )


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_in_stack_fleet_leaves_the_default_ebs_key_to_aws(stack: str) -> None:
    # Neither an sse-kms (dev) nor a BYOK (prod) fleet key becomes the account's default EBS key: its
    # policy admits Auto Scaling's role only, so every other launch in the account would fail.
    graph = run(stack, account={"baseline": "in-stack"})
    assert graph.of_type("aws:ebs/defaultKmsKey:DefaultKmsKey") == []
    encryption = one(
        graph, "aws:ebs/encryptionByDefault:EncryptionByDefault", f"gpufleet-{stack}-account-ebs-encryption"
    )
    assert (encryption.inputs["enabled"], encryption.inputs["region"]) == (True, "us-east-1")


def test_in_stack_fleet_owns_the_account_settings() -> None:
    graph = run("prod", account={"baseline": "in-stack"})
    assert sorted(r.name for r in graph.of_type("aws:ebs/encryptionByDefault:EncryptionByDefault")) == [
        "gpufleet-prod-account-ebs-encryption",
        "gpufleet-prod-us-west-2-account-ebs-encryption",
    ]
    assert [r.name for r in graph.of_type("aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock")] == [
        "gpufleet-prod-account-s3-public-access"
    ]
    prefs = graph.of_type("aws:ssm/document:Document")
    assert sorted(r.inputs["region"] for r in prefs) == ["us-east-1", "us-west-2"]
    assert all(r.inputs["tags"]["gpufleet:account-baseline"] == "gpufleet-prod" for r in prefs)


def test_a_stack_is_a_fleet_or_the_baseline_not_both() -> None:
    account = yaml.safe_load((ROOT / "stacks" / "Pulumi.account.yaml").read_text())["config"][
        "gpufleet:account"
    ]
    with pytest.raises(EngineError, match=r"give gpufleet:fleet \(a fleet\) or gpufleet:account"):
        run_program(ROOT, "dev", config_overrides={"gpufleet:account": account})
    broken = {**account, "regions": ["us-east-1", "mars-1"], "color": "red"}
    with pytest.raises(EngineError) as raised:
        run_program(ROOT, "account", config_overrides={"gpufleet:account": broken})
    message = str(raised.value)
    assert "gpufleet:account.regions: must list AWS region names like us-east-1, got 'mars-1'" in message
    assert "gpufleet:account: unknown field 'color'" in message


# ---- finding 3: BYOK on the first deploy ----------------------------------------------------------


def test_byok_pending_builds_the_keys_and_nothing_that_would_use_them() -> None:
    graph = run_program(ROOT, "prod", config_overrides={"gpufleet:fleet": prod_with("pending")})
    custom = sorted(
        (r.type, r.name) for r in graph.custom_resources() if not r.name.startswith("gpufleet-prod-budget")
    )
    # The budget watches spend from the start; its topic uses the key only when an alert is sent.
    assert sorted(r.type for r in graph.custom_resources() if r.name.startswith("gpufleet-prod-budget")) == [
        "aws:budgets/budget:Budget",
        "aws:sns/topic:Topic",
        "aws:sns/topicPolicy:TopicPolicy",
    ]
    assert custom == [
        ("aws:kms/alias:Alias", "gpufleet-prod-key-alias"),
        ("aws:kms/alias:Alias", "gpufleet-prod-us-west-2-key-alias"),
        ("aws:kms/externalKey:ExternalKey", "gpufleet-prod-key-key"),
        ("aws:kms/replicaExternalKey:ReplicaExternalKey", "gpufleet-prod-us-west-2-key-key"),
    ]
    # Same URNs as the full deploy, so the keys (and their imported material) are kept in phase two.
    full = {r.urn for r in shipped("prod")}
    assert {r.urn for r in graph.custom_resources()} <= full
    assert set(graph.outputs["byok_keys_pending_import"]) == {"us-east-1", "us-west-2"}
    assert graph.outputs["pool_asg_names"] == {}


def test_byok_material_from_secret_config_reaches_both_keys() -> None:
    material = "A" * 43 + "="
    graph = run_program(
        ROOT,
        "prod",
        config_overrides={"gpufleet:fleet": prod_with("config"), "gpufleet:byokMaterial": material},
    )
    for key in (
        one(graph, "aws:kms/externalKey:ExternalKey", "gpufleet-prod-key-key"),
        one(graph, "aws:kms/replicaExternalKey:ReplicaExternalKey", "gpufleet-prod-us-west-2-key-key"),
    ):
        assert material in json.dumps(key.inputs["keyMaterialBase64"])
    assert graph.of_type("aws:autoscaling/group:Group")


def test_byok_config_without_the_secret_is_a_clean_error() -> None:
    with pytest.raises(EngineError, match="pulumi config set --secret gpufleet:byokMaterial"):
        run_program(ROOT, "prod", config_overrides={"gpufleet:fleet": prod_with("config")})


# ---- finding 10: order and zones ------------------------------------------------------------------


def test_creation_order_follows_what_aws_checks() -> None:
    baseline = shipped("account")
    lifecycle = one(
        baseline,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
        "gpufleet-account-audit-trail-bucket-lifecycle",
    )
    versioning = one(
        baseline,
        "aws:s3/bucketVersioning:BucketVersioning",
        "gpufleet-account-audit-trail-bucket-versioning",
    )
    assert versioning.urn in lifecycle.dependencies
    graph = shipped("dev")
    template = one(graph, "aws:ec2/launchTemplate:LaunchTemplate", "gpufleet-dev-pool-experiments-lt")
    policy = one(graph, "aws:iam/rolePolicy:RolePolicy", "gpufleet-dev-pool-experiments-permissions")
    assert policy.urn in template.dependencies


# ---- what a team needs: image, egress -------------------------------------------------------------


def test_pinned_images_reach_the_launch_template_and_skip_the_newest_ami_lookup() -> None:
    raw = fleet("dev")
    raw["pools"]["experiments"]["image"] = {"ami": "ami-0123456789abcdef0"}
    graph = run_program(ROOT, "dev", config_overrides={"gpufleet:fleet": raw})
    template = one(graph, "aws:ec2/launchTemplate:LaunchTemplate", "gpufleet-dev-pool-experiments-lt")
    assert template.inputs["imageId"] == "ami-0123456789abcdef0"
    parameter = (
        "/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id:17"
    )
    raw["pools"]["experiments"]["image"] = {"ssm_parameter": parameter}
    graph = run_program(ROOT, "dev", config_overrides={"gpufleet:fleet": raw})
    template = one(graph, "aws:ec2/launchTemplate:LaunchTemplate", "gpufleet-dev-pool-experiments-lt")
    assert template.inputs["imageId"] == f"resolve:ssm:{parameter}"


def test_nat_egress_is_built_and_priced() -> None:
    from gpufleet.cost import estimate_stack

    raw = fleet("dev")
    raw["network"]["egress"] = "nat"
    graph = run_program(ROOT, "dev", config_overrides={"gpufleet:fleet": raw})
    nat = one(graph, "aws:ec2/natGateway:NatGateway", "gpufleet-dev-network-nat")
    assert nat.inputs["connectivityType"] == "public"
    report = estimate_stack(graph)
    lines = [o for o in report.other if "nat" in o.key.lower()]
    assert len(lines) == 1 and lines[0].monthly_estimate > 0
    assert report.monthly_estimate > estimate_stack(shipped("dev")).monthly_estimate
