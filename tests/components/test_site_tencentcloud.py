"""The Tencent Cloud site under the recording mocks, built from a hand-made spec and site plan."""

from __future__ import annotations

import base64
import json
from typing import Any

import pulumi
import pytest

from gpufleet.components.catalog import load_catalog
from gpufleet.components.sites import site_factory
from gpufleet.components.sites.base import SiteError
from gpufleet.components.sites.tencentcloud import TencentSite
from gpufleet.components.storage.tencentcloud import tls_only_policy
from tests.components.conftest import Runner
from tests.components.tencent_support import SITE, TencentMocks, build_site, inputs, plan, site_args, spec

KEY = "tencentcloud:Kms/key:Key"
EXTERNAL_KEY = "tencentcloud:Kms/externalKey:ExternalKey"
BUCKET = "tencentcloud:Cos/bucket:Bucket"
CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
ALARM = "tencentcloud:Monitor/alarmPolicy:AlarmPolicy"
BANDS = ("queue-deep", "queue-deep-x2", "queue-deep-x4", "queue-deep-x8")
SCHEDULE = "tencentcloud:As/schedule:Schedule"
BUCKET_NAME = "gf-dev-ckpt-779ec5-1250000000"  # within COS's 60-character request domain


def test_children_are_exactly_the_site(run_pulumi: Runner) -> None:
    mocks, site = build_site(run_pulumi, site_args())
    s = SITE
    assert mocks.names_by_type() == sorted(
        [
            ("gpufleet:sites:TencentSite", s),
            ("pulumi:providers:tencentcloud", f"{s}-provider"),
            ("gpufleet:keys:TencentKey", f"{s}-key"),
            (KEY, f"{s}-key-key"),
            ("gpufleet:audit:TencentAudit", f"{s}-audit"),
            ("tencentcloud:Cls/logset:Logset", f"{s}-audit-logs"),
            ("tencentcloud:Cls/topic:Topic", f"{s}-audit-cloudaudit"),
            ("tencentcloud:Cls/topic:Topic", f"{s}-audit-nodes"),
            ("tencentcloud:Audit/track:Track", f"{s}-audit-track"),
            ("gpufleet:storage:TencentBucket", f"{s}-checkpoints"),
            (BUCKET, f"{s}-checkpoints-bucket"),
            ("tencentcloud:Cos/bucketPolicy:BucketPolicy", f"{s}-checkpoints-tls-only"),
            ("gpufleet:network:TencentNetwork", f"{s}-network"),
            ("tencentcloud:Vpc/instance:Instance", f"{s}-network-vpc"),
            ("tencentcloud:Route/table:Table", f"{s}-network-private"),
            ("tencentcloud:Subnet/instance:Instance", f"{s}-network-private-0"),
            ("tencentcloud:Subnet/instance:Instance", f"{s}-network-private-1"),
            ("tencentcloud:Security/group:Group", f"{s}-network-nodes"),
            ("tencentcloud:Security/groupRuleSet:GroupRuleSet", f"{s}-network-nodes-rules"),
            ("gpufleet:identity:TencentIdentity", f"{s}-identity"),
            ("tencentcloud:Cam/role:Role", f"{s}-identity-nodes"),
            ("tencentcloud:Cam/policy:Policy", f"{s}-identity-nodes-policy"),
            (
                "tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment",
                f"{s}-identity-nodes-policy-attach",
            ),
            ("tencentcloud:Tat/command:Command", f"{s}-gpu-health"),
            ("gpufleet:pools:TencentPool", f"{s}-pool-t4"),
            ("tencentcloud:Tcmq/queue:Queue", f"{s}-pool-t4-queue"),
            (CONFIG, f"{s}-pool-t4-spot-config"),
            (GROUP, f"{s}-pool-t4-spot"),
            ("tencentcloud:As/scalingPolicy:ScalingPolicy", f"{s}-pool-t4-spot-scale-out"),
            ("tencentcloud:As/scalingPolicy:ScalingPolicy", f"{s}-pool-t4-spot-scale-in"),
            *[
                ("tencentcloud:As/scalingPolicy:ScalingPolicy", f"{s}-pool-t4-spot-scale-{band}")
                for band in BANDS
            ],
            ("tencentcloud:As/lifecycleHook:LifecycleHook", f"{s}-pool-t4-spot-drain"),
            (SCHEDULE, f"{s}-pool-t4-spot-off-hours-stop"),
            (SCHEDULE, f"{s}-pool-t4-spot-off-hours-start"),
            (ALARM, f"{s}-pool-t4-gpu-high"),
            *[(ALARM, f"{s}-pool-t4-{band}") for band in BANDS],
            *[
                ("tencentcloud:Monitor/policyBindingObject:PolicyBindingObject", f"{s}-pool-t4-{band}-queue")
                for band in BANDS
            ],
            (ALARM, f"{s}-pool-t4-gpu-low"),
            ("tencentcloud:Cam/policy:Policy", f"{s}-pool-t4-protection"),
            (
                "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName",
                f"{s}-pool-t4-protection-attach",
            ),
            ("gpufleet:cost:TencentBudget", f"{s}-cost"),
            ("tencentcloud:Billing/budget:Budget", f"{s}-cost-budget"),
        ]
    )
    assert mocks.one("pulumi:providers:tencentcloud", f"{SITE}-provider").inputs["region"] == "ap-guangzhou"
    outputs = site.outputs
    assert (outputs.cloud, outputs.region, outputs.currency, outputs.vpc_cidr) == (
        "tencentcloud",
        "ap-guangzhou",
        "CNY",
        "10.50.0.0/16",
    )
    assert list(outputs.pools) == ["t4"]
    assert len(outputs.pools["t4"].groups) == 1


def test_key_is_enabled_and_rotates(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    key = inputs(mocks, KEY, f"{SITE}-key-key")
    assert (key["isEnabled"], key["keyRotationEnabled"], key["keyUsage"]) == (True, True, "ENCRYPT_DECRYPT")
    assert key["pendingDeleteWindowInDays"] == 7


def test_bucket_is_private_kms_encrypted_versioned_and_tls_only(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    bucket = inputs(mocks, BUCKET, f"{SITE}-checkpoints-bucket")
    assert bucket["bucket"] == BUCKET_NAME
    assert (bucket["acl"], bucket["encryptionAlgorithm"], bucket["kmsId"]) == (
        "private",
        "KMS",
        f"{SITE}-key-key-id",
    )
    assert bucket["versioningEnable"] is True
    # IA after 7 days would be billed 30 days of IA for objects deleted on day 30: no transition.
    # Only checkpoints expire; the datasets under data/ stay.
    assert bucket["lifecycleRules"] == [
        {
            "id": "checkpoints",
            "filterPrefix": "checkpoints/",
            "expiration": {"days": 30},
            "nonCurrentExpiration": {"nonCurrentDays": 7},
        },
        {
            "id": "abort-incomplete-uploads",
            "filterPrefix": "",
            "abortIncompleteMultipartUpload": {"daysAfterInitiation": 1},
        },
    ]
    policy = inputs(mocks, "tencentcloud:Cos/bucketPolicy:BucketPolicy", f"{SITE}-checkpoints-tls-only")
    assert policy["bucket"] == BUCKET_NAME
    statement = json.loads(policy["policy"])["Statement"][0]
    assert statement["Effect"] == "Deny"
    assert statement["Condition"] == {"bool_equal": {"cos:secure-transport": "false"}}
    base = f"qcs::cos:ap-guangzhou:uid/1250000000:{BUCKET_NAME}"
    assert statement["Resource"] == [f"{base}/", f"{base}/*"]
    assert policy["policy"] == tls_only_policy("ap-guangzhou", "1250000000", BUCKET_NAME)


def test_ia_transition_when_objects_live_long_enough(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args(spec(checkpoints={"expire_after_days": 60})))
    rule, _ = inputs(mocks, BUCKET, f"{SITE}-checkpoints-bucket")["lifecycleRules"]
    assert rule["transitions"] == [{"days": 7, "storageClass": "STANDARD_IA"}]
    assert rule["expiration"] == {"days": 60}


def test_role_trusts_cvm_only_and_policy_is_scoped(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    role = inputs(mocks, "tencentcloud:Cam/role:Role", f"{SITE}-identity-nodes")
    assert json.loads(role["document"])["statement"] == [
        {"action": ["name/sts:AssumeRole"], "effect": "allow", "principal": {"service": ["cvm.qcloud.com"]}}
    ]
    assert role["consoleLogin"] is False
    policy = json.loads(
        inputs(mocks, "tencentcloud:Cam/policy:Policy", f"{SITE}-identity-nodes-policy")["document"]
    )
    resources = [r for s in policy["statement"] for r in s["resource"]]
    base = f"qcs::cos:ap-guangzhou:uid/1250000000:{BUCKET_NAME}"
    assert resources == [
        f"{base}/data/*",
        f"{base}/checkpoints/*",
        f"qcs::kms:ap-guangzhou:uin/100000000001:key/creatorUin/100000000001/{SITE}-key-key-id",
        f"qcs::cls:ap-guangzhou:uin/100000000001:topic/{SITE}-audit-nodes-id",
        f"qcs::cmqqueue:ap-guangzhou:uin/100000000001:queueName/uin/100000000001/{SITE}-t4",
    ]
    assert all("*" not in a for s in policy["statement"] for a in s["action"])
    assert [s["effect"] for s in policy["statement"]] == ["allow"] * 5


def test_launch_configuration_has_no_credentials_no_public_ip_and_locks_logins(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    config = inputs(mocks, CONFIG, f"{SITE}-pool-t4-spot-config")
    assert "password" not in config and "keyIds" not in config and "keepImageLogin" not in config
    boot = base64.b64decode(config["userData"]).decode()
    assert "passwd -l root" in boot
    # The public image has no NVIDIA driver: the boot script installs it (no driver, no Gpuutil).
    assert "https://mirrors.tencentyun.com/install/GPU/auto_install.sh" in boot
    assert "DRIVER_VERSION=535.161.07\nCUDA_VERSION=12.4.0\nCUDNN_VERSION=8.9.7\n" in boot
    assert (config["publicIpAssigned"], config["internetMaxBandwidthOut"]) == (False, 0)
    assert (config["instanceChargeType"], config["spotInstanceType"]) == ("SPOTPAID", "one-time")
    # The bid is capped at the catalogue's on-demand price of GN7.2XLARGE32 in Guangzhou (1.26 USD),
    # in CNY at the catalogue's rate, rounded up to the fen: never '1000'.
    assert config["spotMaxPrice"] == "9.08"
    assert config["camRoleName"] == f"{SITE}-identity-nodes"
    assert "dataDisks" not in config
    assert (config["systemDiskType"], config["systemDiskSize"]) == ("CLOUD_SSD", 200)
    assert config["enhancedAutomationToolsService"] is True and config["enhancedMonitorService"] is True
    assert config["instanceTags"]["gpufleet:pool"] == "t4"


def test_security_group_admits_training_ports_from_the_vpc_only(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    rules = inputs(mocks, "tencentcloud:Security/groupRuleSet:GroupRuleSet", f"{SITE}-network-nodes-rules")
    assert [(r["cidrBlock"], r["protocol"], r["port"]) for r in rules["ingresses"]] == [
        ("10.50.0.0/16", "TCP", "29500-29510")
    ]
    assert [(r["cidrBlock"], r["protocol"], r["port"]) for r in rules["egresses"]] == [
        ("183.60.83.19/32", "UDP", "53"),
        ("183.60.83.19/32", "TCP", "53"),
        ("183.60.82.98/32", "UDP", "53"),
        ("183.60.82.98/32", "TCP", "53"),
        ("169.254.0.23/32", "TCP", "80"),
        ("169.254.10.10/32", "TCP", "80"),
        ("169.254.0.4/32", "TCP", "80"),
        ("169.254.0.5/32", "TCP", "80"),
        ("169.254.0.15/32", "TCP", "80"),
        ("10.50.0.0/16", "ALL", "ALL"),
        ("0.0.0.0/0", "TCP", "443"),
    ]


def test_security_group_lets_nodes_reach_dns_metadata_and_the_monitor_agent_only(run_pulumi: Runner) -> None:
    # Tencent's internal DNS, the metadata service (the CAM role's credentials) and the Cloud Monitor
    # agent's endpoints (Gpuutil), each by /32 and port, accepted; nothing else outside the VPC but HTTPS.
    mocks, _ = build_site(run_pulumi, site_args())
    rules = inputs(mocks, "tencentcloud:Security/groupRuleSet:GroupRuleSet", f"{SITE}-network-nodes-rules")
    outside = [r for r in rules["egresses"] if r["cidrBlock"] not in ("10.50.0.0/16", "0.0.0.0/0")]
    dns = "Tencent internal DNS"
    metadata = "instance metadata and CAM role credentials"
    agent = "Cloud Monitor agent (Gpuutil)"
    assert outside == [
        {"action": "ACCEPT", "cidrBlock": cidr, "protocol": protocol, "port": port, "description": what}
        for cidr, protocol, port, what in [
            ("183.60.83.19/32", "UDP", "53", f"{dns} (udp)"),
            ("183.60.83.19/32", "TCP", "53", f"{dns} (tcp)"),
            ("183.60.82.98/32", "UDP", "53", f"{dns} (udp)"),
            ("183.60.82.98/32", "TCP", "53", f"{dns} (tcp)"),
            ("169.254.0.23/32", "TCP", "80", metadata),
            ("169.254.10.10/32", "TCP", "80", metadata),
            ("169.254.0.4/32", "TCP", "80", agent),
            ("169.254.0.5/32", "TCP", "80", agent),
            ("169.254.0.15/32", "TCP", "80", agent),
        ]
    ]


def test_subnets_are_in_zones_that_sell_the_pool_types(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    subnets = [
        inputs(mocks, "tencentcloud:Subnet/instance:Instance", f"{SITE}-network-private-{i}") for i in (0, 1)
    ]
    assert [(s["availabilityZone"], s["cidrBlock"]) for s in subnets] == [
        ("ap-guangzhou-3", "10.50.0.0/20"),
        ("ap-guangzhou-4", "10.50.16.0/20"),
    ]
    [types_call] = [args for token, args in mocks.calls if token == "tencentcloud:Instance/getTypes:getTypes"]
    assert types_call["filters"] == [{"name": "instance-family", "values": ["GN7"]}]


def test_gpu_and_queue_alarms_trigger_the_groups_policies(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    high = inputs(mocks, ALARM, f"{SITE}-pool-t4-gpu-high")
    assert (high["namespace"], high["monitorType"]) == ("cvm_device", "MT_QCE")
    [rule] = high["conditions"]["rules"]
    assert (rule["metricName"], rule["operator"], rule["value"], rule["period"], rule["continuePeriod"]) == (
        "Gpuutil", "gt", "70", 60, 5,
    )  # fmt: skip
    # A raised alarm runs the scaling task again after the pool's cooldown (0 would run it once).
    assert (rule["noticeFrequency"], rule["isPowerNotice"]) == (300, 0)
    assert high["policyTags"] == [{"key": "gpufleet:pool", "value": "t4"}]
    [task] = high["triggerTasks"]
    assert task["type"] == "AS"
    assert json.loads(task["taskConfig"]) == {
        "Region": "ap-guangzhou",
        "Group": f"{SITE}-pool-t4-spot-id",
        "Policy": f"{SITE}-pool-t4-spot-scale-out-id",
    }
    queue = inputs(mocks, ALARM, f"{SITE}-pool-t4-queue-deep")
    # The policy type id of CMQ queues, not the metric namespace QCE/CMQ.
    assert (queue["namespace"], queue["conditions"]["rules"][0]["metricName"]) == ("cmq", "visibleMsgNum")
    assert queue["conditions"]["rules"][0]["noticeFrequency"] == 300
    # A queue carries no tags: the alarm is bound to it as an object, by its dimensions.
    assert "policyTags" not in queue
    binding = inputs(
        mocks,
        "tencentcloud:Monitor/policyBindingObject:PolicyBindingObject",
        f"{SITE}-pool-t4-queue-deep-queue",
    )
    assert binding["policyId"] == f"{SITE}-pool-t4-queue-deep-id"
    assert binding["dimensions"] == [
        {
            "dimensionsJson": json.dumps({"queueId": f"{SITE}-pool-t4-queue-id", "queueName": f"{SITE}-t4"}),
            "region": "ap-guangzhou",
        }
    ]
    # A pool at zero wakes like any other once more than queue_out (10) wait.
    assert [(r["operator"], r["value"]) for r in queue["conditions"]["rules"]] == [("gt", "10"), ("le", "20")]
    low = inputs(mocks, ALARM, f"{SITE}-pool-t4-gpu-low")
    assert low["conditions"]["rules"][0]["continuePeriod"] == 30
    assert json.loads(low["triggerTasks"][0]["taskConfig"])["Policy"] == f"{SITE}-pool-t4-spot-scale-in-id"


def test_off_hours_schedules_at_utc_plus_8(run_pulumi: Runner) -> None:
    hours = {"timezone": "Europe/Berlin", "scale_to_zero": "20:00-08:00", "weekends": True}
    mocks, _ = build_site(run_pulumi, site_args(spec(pool_t4={"off_hours": hours})))
    stop = inputs(mocks, SCHEDULE, f"{SITE}-pool-t4-spot-off-hours-stop")
    start = inputs(mocks, SCHEDULE, f"{SITE}-pool-t4-spot-off-hours-start")
    assert (stop["recurrence"], stop["maxSize"], stop["desiredCapacity"]) == ("0 3 * * *", 0, 0)
    assert (start["recurrence"], start["maxSize"], start["minSize"]) == ("0 14 * * 1-5", 4, 0)
    assert stop["startTime"].endswith("+08:00")


def test_prod_ignores_off_hours(run_pulumi: Runner) -> None:
    prod = spec(
        environment="prod", tags={"project": "vision", "team": "ml-platform", "cost-center": "cc-042"}
    )
    mocks, _ = build_site(run_pulumi, site_args(prod))
    assert mocks.of_type(SCHEDULE) == []


def test_spot_share_builds_two_groups_and_alarms_drive_both(run_pulumi: Runner) -> None:
    mocks, site = build_site(
        run_pulumi, site_args(spec(pool_t4={"spot_percent": 60, "size": {"min": 0, "max": 10}}))
    )
    groups = {r.name: (r.inputs["minSize"], r.inputs["maxSize"]) for r in mocks.of_type(GROUP)}
    assert groups == {f"{SITE}-pool-t4-spot": (0, 6), f"{SITE}-pool-t4-ondemand": (0, 4)}
    assert (
        inputs(mocks, CONFIG, f"{SITE}-pool-t4-ondemand-config")["instanceChargeType"] == "POSTPAID_BY_HOUR"
    )
    assert "spotInstanceType" not in inputs(mocks, CONFIG, f"{SITE}-pool-t4-ondemand-config")
    tasks = inputs(mocks, ALARM, f"{SITE}-pool-t4-gpu-high")["triggerTasks"]
    assert [json.loads(t["taskConfig"])["Group"] for t in tasks] == [
        f"{SITE}-pool-t4-spot-id",
        f"{SITE}-pool-t4-ondemand-id",
    ]
    assert len(site.outputs.pools["t4"].groups) == 2


def test_budget_in_usd_is_converted_to_cny(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    budget = inputs(mocks, "tencentcloud:Billing/budget:Budget", f"{SITE}-cost-budget")
    expected = round(load_catalog().convert(1000, "USD", "CNY"), 2)
    assert budget["budgetQuota"] == f"{expected:.2f}"
    assert (budget["cycleType"], budget["feeType"], budget["planType"]) == ("MONTH", "REAL_COST", "FIX")
    assert budget["warnJsons"] == [{"warnType": "ACTUAL", "calType": "PERCENTAGE", "thresholdValue": "80"}]


def test_budget_in_cny_is_taken_as_is(run_pulumi: Runner) -> None:
    budget_spec = spec(budget={"monthly": 8000, "currency": "CNY", "alert_percent": 75})
    mocks, _ = build_site(run_pulumi, site_args(budget_spec))
    budget = inputs(mocks, "tencentcloud:Billing/budget:Budget", f"{SITE}-cost-budget")
    assert (budget["budgetQuota"], budget["warnJsons"][0]["thresholdValue"]) == ("8000.00", "75")


def test_audit_track_to_cls_kept_for_the_spec_retention(run_pulumi: Runner) -> None:
    mocks, _ = build_site(run_pulumi, site_args())
    topic = inputs(mocks, "tencentcloud:Cls/topic:Topic", f"{SITE}-audit-cloudaudit")
    assert topic["period"] == 180
    track = inputs(mocks, "tencentcloud:Audit/track:Track", f"{SITE}-audit-track")
    assert (track["actionType"], track["eventNames"], track["status"]) == ("*", ["*"], 1)
    assert track["storage"] == {
        "storageName": f"{SITE}-audit-cloudaudit-id",
        "storagePrefix": "cloudaudit",
        "storageRegion": "ap-guangzhou",
        "storageType": "cls",
    }


def test_forever_retention_and_no_trail_on_a_second_site(run_pulumi: Runner) -> None:
    audit = {"trail": True, "log_retention_days": 0}
    mocks, _ = build_site(run_pulumi, site_args(spec(audit=audit), plan(home=False)))
    assert inputs(mocks, "tencentcloud:Cls/topic:Topic", f"{SITE}-audit-cloudaudit")["period"] == 3640
    assert mocks.of_type("tencentcloud:Audit/track:Track") == []
    assert mocks.of_type("tencentcloud:Billing/budget:Budget") == []


def test_nat_egress_routes_the_private_subnets_out(run_pulumi: Runner) -> None:
    network = {"vpc_cidr": "10.50.0.0/16", "availability_zones": 2, "egress": "nat"}
    mocks, _ = build_site(run_pulumi, site_args(spec(network=network)))
    nat = inputs(mocks, "tencentcloud:Nat/gateway:Gateway", f"{SITE}-network-nat")
    eip = inputs(mocks, "tencentcloud:Eip/instance:Instance", f"{SITE}-network-nat-eip")
    assert eip["internetChargeType"] == "TRAFFIC_POSTPAID_BY_HOUR"
    assert len(nat["assignedEipSets"]) == 1
    assert nat["vpcId"] == f"{SITE}-network-vpc-id"
    route = inputs(mocks, "tencentcloud:Route/tableEntry:TableEntry", f"{SITE}-network-default-route")
    assert (route["destinationCidrBlock"], route["nextType"], route["nextHub"]) == (
        "0.0.0.0/0", "NAT", f"{SITE}-network-nat-id",
    )  # fmt: skip
    assert route["routeTableId"] == f"{SITE}-network-private-id"


def test_existing_subnets_build_no_vpc(run_pulumi: Runner) -> None:
    site_plan = plan(vpc_cidr=None, subnet_ids=("subnet-aaaa1111", "subnet-bbbb2222"))
    mocks, site = build_site(run_pulumi, site_args(site_plan=site_plan))
    assert site.outputs.vpc_cidr is None
    assert mocks.of_type("tencentcloud:Vpc/instance:Instance") == []
    assert mocks.of_type("tencentcloud:Subnet/instance:Instance") == []
    group = inputs(mocks, GROUP, f"{SITE}-pool-t4-spot")
    assert group["subnetIds"] == ["subnet-aaaa1111", "subnet-bbbb2222"]
    assert group["vpcId"].startswith("vpc-")


def test_byok_pending_builds_the_key_alone(run_pulumi: Runner) -> None:
    byok = {"encryption": "byok", "byok_material": "pending", "classification": "restricted"}
    mocks, site = build_site(run_pulumi, site_args(spec(checkpoints=byok)))
    assert [r.type for r in mocks.custom()] == ["pulumi:providers:tencentcloud", EXTERNAL_KEY]
    assert site.keys_pending_import is True
    assert site.outputs.bucket_name is None


def test_byok_config_imports_the_secret_material(run_pulumi: Runner) -> None:
    byok = {"encryption": "byok", "byok_material": "config", "classification": "restricted"}
    material = base64.b64encode(b"k" * 32).decode()
    mocks, _ = build_site(run_pulumi, site_args(spec(checkpoints=byok), byok_material_base64=material))
    key = inputs(mocks, EXTERNAL_KEY, f"{SITE}-key-key")
    # The material reaches the engine as a secret.
    assert key["keyMaterialBase64"]["value"] == material
    assert key["keyMaterialBase64"]["4dabf18193072939515e22adb298388d"] == "1b47061264138c4ac30d75fd1eb44270"
    assert (key["isEnabled"], key["validTo"]) == (True, 0)
    assert key["wrappingAlgorithm"] == "RSAES_OAEP_SHA_256"
    assert mocks.of_type(KEY) == []
    assert inputs(mocks, BUCKET, f"{SITE}-checkpoints-bucket")["kmsId"] == f"{SITE}-key-key-id"


@pytest.mark.parametrize(
    ("changes", "extra", "message"),
    [
        (
            {"checkpoints": {"replica_regions": {"tencentcloud": "ap-guangzhou"}}},
            {},
            "storage.checkpoints.replica_regions.tencentcloud: ap-guangzhou is this site's region",
        ),
        (
            {
                "checkpoints": {
                    "encryption": "byok",
                    "byok_material": "config",
                    "classification": "restricted",
                }
            },
            {},
            "storage.checkpoints.byok_material: config needs the key material",
        ),
        ({"pool_t4": {"queue": {"name": "jobs"}}}, {}, "pools.t4.queue: name/arn name an existing SQS queue"),
        ({"pool_t4": {"cloud": "aws", "instance_types": ["g4dn.xlarge"]}}, {}, "pools.t4.cloud: 'aws' pools"),
        (
            # Within the spec's 12,000 characters of workload, beyond CVM's 16 KB of base64 user data.
            {"pool_t4": {"workload": {"user_data": "echo " + "x" * 11_900}}},
            {},
            "pools.t4.workload: the boot script would be ",
        ),
    ],
)
def test_what_tencent_cannot_build_is_a_site_error_naming_the_field(
    run_pulumi: Runner, changes: dict[str, Any], extra: dict[str, Any], message: str
) -> None:
    with pytest.raises(SiteError, match=r"^site tencentcloud:ap-guangzhou: ") as error:
        build_site(run_pulumi, site_args(spec(**changes), **extra))
    assert message in str(error.value)


class OneZoneMocks(TencentMocks):
    """GN7 on sale in ap-guangzhou-4 only."""

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        found, failures = super().call(args)
        if args.token == "tencentcloud:Instance/getTypes:getTypes":
            found = {
                **found,
                "instanceTypes": [r for r in found["instanceTypes"] if r["availabilityZone"].endswith("-4")],
            }
        return found, failures


def _build_with(run_pulumi: Runner, mocks: TencentMocks, availability_zones: int) -> TencentMocks:
    pulumi.runtime.set_mocks(mocks, project="gpufleet", stack="tc-test", preview=False)
    run_pulumi(
        lambda: TencentSite(SITE, site_args(site_plan=plan(availability_zones=availability_zones)), None)
    )
    return mocks


def test_subnets_go_only_where_the_types_are_sold(run_pulumi: Runner) -> None:
    mocks = _build_with(run_pulumi, OneZoneMocks(), 1)
    subnet = inputs(mocks, "tencentcloud:Subnet/instance:Instance", f"{SITE}-network-private-0")
    assert subnet["availabilityZone"] == "ap-guangzhou-4"


def test_the_sites_dispatch_builds_this_site() -> None:
    assert site_factory("tencentcloud") is TencentSite


def test_as_scaling_policies_own_alarms_are_in_range_and_never_fire(run_pulumi: Runner) -> None:
    # AS wants a metric alarm on each policy (MetricAlarm.Threshold: CPU_UTILIZATION and MEM_UTILIZATION
    # take 1..100 %; Period 60 or 300 s; ContinuousTime 1..10). The Cloud Monitor alarm policies decide;
    # these placeholders sit at 100 %, which utilisation never exceeds, in range.
    mocks, _ = build_site(run_pulumi, site_args())
    policy = "tencentcloud:As/scalingPolicy:ScalingPolicy"
    fields = ("metricName", "comparisonOperator", "threshold", "period", "continuousTime", "statistic")
    out = inputs(mocks, policy, f"{SITE}-pool-t4-spot-scale-out")
    scale_in = inputs(mocks, policy, f"{SITE}-pool-t4-spot-scale-in")
    assert [out[f] for f in fields] == ["CPU_UTILIZATION", "GREATER_THAN", 100, 60, 5, "AVERAGE"]
    assert [scale_in[f] for f in fields] == ["MEM_UTILIZATION", "GREATER_THAN", 100, 300, 6, "AVERAGE"]
    assert (out["adjustmentType"], out["adjustmentValue"], scale_in["adjustmentValue"]) == (
        "CHANGE_IN_CAPACITY",
        1,
        -1,
    )


def test_the_default_image_carries_no_architecture_tag(run_pulumi: Runner) -> None:
    """The TencentOS lookup names no architecture: nothing is claimed for it."""
    mocks, _ = build_site(run_pulumi, site_args(spec()))
    config = inputs(mocks, CONFIG, f"{SITE}-pool-t4-spot-config")
    assert "gpufleet:image-arch" not in config["tags"]


@pytest.mark.parametrize(
    ("image", "arch"), [({"id": "img-eb30mz89", "arch": "arm64"}, "arm64"), ({"id": "img-eb30mz89"}, None)]
)
def test_a_named_image_boots_the_pool_with_its_architecture(
    run_pulumi: Runner, image: dict[str, str], arch: str | None
) -> None:
    mocks, _ = build_site(run_pulumi, site_args(spec(pool_t4={"image": image})))
    config = inputs(mocks, CONFIG, f"{SITE}-pool-t4-spot-config")
    assert config["imageId"] == "img-eb30mz89"
    assert config["tags"].get("gpufleet:image-arch") == arch
    # The instances keep the cost tags only.
    assert "gpufleet:image-arch" not in config["instanceTags"]
