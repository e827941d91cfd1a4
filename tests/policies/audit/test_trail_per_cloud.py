from __future__ import annotations

from gpufleet.policies.audit.trail_per_cloud import POLICY, RULE
from tests.policies.support import run_stack as stack_tagged

from .helpers import UNKNOWN_BOOLEAN_VALUE, res, run_stack, urn_of

AWS_TRAIL = "aws:cloudtrail/trail:Trail"
ALI_TRAIL = "alicloud:actiontrail/trail:Trail"
TC_TRACK = "tencentcloud:Audit/track:Track"
TC_AUDIT = "tencentcloud:Audit/instance:Instance"

AWS_BUCKET = res("aws:s3/bucket:Bucket", "ckpt", {"bucket": "ckpt"})
ALI_BUCKET = res("alicloud:oss/bucket:Bucket", "ckpt-ali", {"bucket": "ckpt"})
TC_BUCKET = res("tencentcloud:Cos/bucket:Bucket", "ckpt-tc", {"bucket": "ckpt-125"})
K8S_NS = res("kubernetes:core/v1:Namespace", "train", {"metadata": {"name": "train"}})

GOOD_AWS = {"name": "org", "s3BucketName": "trail-logs", "isMultiRegionTrail": True}
GOOD_ALI = {"trailName": "org", "status": "Enable", "eventRw": "All", "slsProjectArn": "acs:log:*"}
GOOD_TC = {
    "name": "org",
    "status": 1,
    "actionType": "*",
    "resourceType": "*",
    "eventNames": ["*"],
    "storage": {"storageType": "cls", "storageName": "topic", "storageRegion": "ap-guangzhou"},
}
AWS_HINT = (
    "; the stack's AWS account needs a CloudTrail trail (aws.cloudtrail.Trail, isMultiRegionTrail=true)"
)
ALI_HINT = (
    "; the stack's Alibaba Cloud account needs an ActionTrail trail "
    "(alicloud.actiontrail.Trail, status Enable, eventRw All)"
)
TC_HINT = (
    "; the stack's Tencent Cloud account needs a CloudAudit track "
    "(tencentcloud.audit.Track, status 1, actionType *)"
)


def test_metadata() -> None:
    assert RULE.id == "GF-AUD-001"
    assert RULE.clouds == ("aws", "alicloud", "tencentcloud")
    assert POLICY.enforcement_level.value == "advisory"


def test_every_cloud_with_its_trail_passes() -> None:
    resources = [
        AWS_BUCKET,
        res(AWS_TRAIL, "trail", GOOD_AWS),
        ALI_BUCKET,
        res(ALI_TRAIL, "trail-ali", GOOD_ALI),
        TC_BUCKET,
        res(TC_TRACK, "track", GOOD_TC),
        K8S_NS,
    ]
    assert run_stack(POLICY, resources) == []


def test_alibaba_defaults_are_all_regions_all_events() -> None:
    assert run_stack(POLICY, [ALI_BUCKET, res(ALI_TRAIL, "t", {"trailName": "org"})]) == []


def test_a_cloud_without_resources_needs_no_trail() -> None:
    assert run_stack(POLICY, [K8S_NS, AWS_BUCKET, res(AWS_TRAIL, "trail", GOOD_AWS)]) == []


def test_cloud_without_trail_is_named() -> None:
    assert run_stack(POLICY, [AWS_BUCKET, ALI_BUCKET, res(AWS_TRAIL, "trail", GOOD_AWS)]) == [
        (
            "The stack deploys 1 Alibaba Cloud resource(s) but declares no audit trail; add an "
            "ActionTrail trail (alicloud.actiontrail.Trail, status Enable, eventRw All)",
            None,
        )
    ]


def test_tencent_without_track() -> None:
    assert run_stack(POLICY, [TC_BUCKET, TC_BUCKET]) == [
        (
            "The stack deploys 2 Tencent Cloud resource(s) but declares no audit trail; add a "
            "CloudAudit track (tencentcloud.audit.Track, status 1, actionType *)",
            None,
        )
    ]


def test_aws_single_region_trail() -> None:
    trail = res(AWS_TRAIL, "trail", {**GOOD_AWS, "isMultiRegionTrail": False})
    assert run_stack(POLICY, [AWS_BUCKET, trail]) == [
        (
            "CloudTrail trail 'trail' is single-region (isMultiRegionTrail is not true)" + AWS_HINT,
            urn_of(AWS_TRAIL, "trail"),
        )
    ]


def test_aws_logging_off() -> None:
    trail = res(AWS_TRAIL, "trail", {**GOOD_AWS, "enableLogging": False})
    assert run_stack(POLICY, [AWS_BUCKET, trail]) == [
        (
            "CloudTrail trail 'trail' has logging turned off (enableLogging false)" + AWS_HINT,
            urn_of(AWS_TRAIL, "trail"),
        )
    ]


def test_one_good_trail_is_enough() -> None:
    bad = res(AWS_TRAIL, "regional", {**GOOD_AWS, "isMultiRegionTrail": False})
    assert run_stack(POLICY, [AWS_BUCKET, bad, res(AWS_TRAIL, "trail", GOOD_AWS)]) == []


def test_alibaba_disabled_and_partial() -> None:
    for change, defect in [
        ({"status": "Disable"}, "has status 'Disable' (expected Enable)"),
        ({"eventRw": "Write"}, "records only 'Write' events (eventRw should be All)"),
        ({"trailRegion": "cn-hangzhou"}, "covers only region 'cn-hangzhou' (trailRegion should be All)"),
    ]:
        trail = res(ALI_TRAIL, "t", {**GOOD_ALI, **change})
        assert run_stack(POLICY, [ALI_BUCKET, trail]) == [
            (f"ActionTrail trail 't' {defect}" + ALI_HINT, urn_of(ALI_TRAIL, "t"))
        ]


def test_alibaba_deprecated_trail_counts() -> None:
    trail = res("alicloud:actiontrail/trailDeprecated:TrailDeprecated", "t", {"name": "org"})
    assert run_stack(POLICY, [ALI_BUCKET, trail]) == []


def test_tencent_closed_and_read_only() -> None:
    closed = res(TC_TRACK, "track", {**GOOD_TC, "status": 0})
    assert run_stack(POLICY, [TC_BUCKET, closed]) == [
        ("CloudAudit track 'track' has status 0 (expected 1, open)" + TC_HINT, urn_of(TC_TRACK, "track"))
    ]
    reads = res(TC_TRACK, "track", {**GOOD_TC, "actionType": "Read"})
    assert run_stack(POLICY, [TC_BUCKET, reads]) == [
        (
            "CloudAudit track 'track' records only 'Read' calls (actionType should be *)" + TC_HINT,
            urn_of(TC_TRACK, "track"),
        )
    ]


def test_tencent_legacy_audit_instance() -> None:
    assert run_stack(POLICY, [TC_BUCKET, res(TC_AUDIT, "a", {"auditSwitch": True})]) == []
    assert run_stack(POLICY, [TC_BUCKET, res(TC_AUDIT, "a", {"auditSwitch": False})]) == [
        ("CloudAudit instance 'a' has auditSwitch off" + TC_HINT, urn_of(TC_AUDIT, "a"))
    ]


def test_unknown_multi_region_flag_is_not_a_pass() -> None:
    trail = res(AWS_TRAIL, "trail", {**GOOD_AWS, "isMultiRegionTrail": UNKNOWN_BOOLEAN_VALUE})
    assert run_stack(POLICY, [AWS_BUCKET, trail]) == [
        (
            "CloudTrail trail 'trail' could not be judged at preview: the boolean value at "
            ".isMultiRegionTrail can't be known during preview" + AWS_HINT,
            urn_of(AWS_TRAIL, "trail"),
        )
    ]


def test_proxied_props_as_the_engine_sends_them() -> None:
    good = res(AWS_TRAIL, "trail", GOOD_AWS, proxy=True)
    assert run_stack(POLICY, [AWS_BUCKET, good]) == []
    unknown = res(TC_TRACK, "track", {**GOOD_TC, "status": UNKNOWN_BOOLEAN_VALUE}, proxy=True)
    [(message, urn)] = run_stack(POLICY, [TC_BUCKET, unknown])
    assert message.startswith(
        "CloudAudit track 'track' could not be judged at preview: the boolean value at .status"
    )
    assert urn == urn_of(TC_TRACK, "track")


def test_provider_and_component_resources_do_not_count() -> None:
    provider = res("pulumi:providers:aws", "east", {"region": "us-east-1"})
    component = res("gpufleet:fleet:HybridGpuFleet", "fleet", {})
    assert run_stack(POLICY, [provider, component, K8S_NS]) == (
        "N/A: the stack deploys no AWS, Alibaba Cloud or Tencent Cloud resources"
    )


def test_an_aws_trail_owned_by_the_account_baseline_stack() -> None:
    tags = {"gpufleet:account-baseline-stack": "account"}
    # The fleet names its baseline stack: the account's trail is judged there.
    assert stack_tagged(POLICY, [AWS_BUCKET], stack_tags=tags) == []
    # Only AWS's trail: another cloud of the stack still needs its own.
    assert stack_tagged(POLICY, [AWS_BUCKET, ALI_BUCKET], stack_tags=tags) == [
        (
            "The stack deploys 1 Alibaba Cloud resource(s) but declares no audit trail; add an ActionTrail "
            "trail (alicloud.actiontrail.Trail, status Enable, eventRw All)",
            None,
        )
    ]
    # A defective trail in the stack is still reported.
    single = res(AWS_TRAIL, "trail", {**GOOD_AWS, "isMultiRegionTrail": False})
    assert [m for m, _ in stack_tagged(POLICY, [AWS_BUCKET, single], stack_tags=tags)] == [
        "CloudTrail trail 'trail' is single-region (isMultiRegionTrail is not true)" + AWS_HINT
    ]
    # The tag's name comes from the pack's config.
    assert (
        stack_tagged(POLICY, [AWS_BUCKET], {"baseline_stack_tag": "landing-zone"}, {"landing-zone": "core"})
        == []
    )
    assert len(stack_tagged(POLICY, [AWS_BUCKET], stack_tags={"landing-zone": "core"})) == 1
