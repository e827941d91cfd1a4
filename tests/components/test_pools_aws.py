from __future__ import annotations

import json

import pytest

from gpufleet.components.pools.aws import DLAMI_NAME_FILTER, GpuPool, GpuPoolArgs
from gpufleet.components.pools.aws_queue import ExistingQueue, NewQueue
from gpufleet.components.pools.scaling import ScalingRules

from .builders import ACCOUNT, KEY_ARN, OFF_HOURS, STACK, TAGS, pool_args
from .conftest import OptionsRecorder, Runner, statements_by_sid

ASG = "pool-asg-0a1b2c3"
QUEUE = "pool-queue-0a1b2c3"
QUEUE_ARN = f"arn:aws:sqs:us-east-1:{ACCOUNT}:queue/{QUEUE}"
DLQ_ARN = f"arn:aws:sqs:us-east-1:{ACCOUNT}:queue/pool-dlq-0a1b2c3"
SQS_CONSUMER = [
    "sqs:ReceiveMessage",
    "sqs:DeleteMessage",
    "sqs:ChangeMessageVisibility",
    "sqs:GetQueueAttributes",
    "sqs:GetQueueUrl",
]


def _build(args: GpuPoolArgs, recorder: OptionsRecorder | None = None):  # type: ignore[no-untyped-def]
    return lambda: GpuPool("pool", args, recorder.opts() if recorder else None)


def test_children(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(off_hours=OFF_HOURS)))
    assert mocks.names_by_type() == [
        ("aws:autoscaling/group:Group", "pool-asg"),
        ("aws:autoscaling/lifecycleHook:LifecycleHook", "pool-drain"),
        ("aws:autoscaling/policy:Policy", "pool-backlog"),
        ("aws:autoscaling/policy:Policy", "pool-scale-in"),
        ("aws:autoscaling/policy:Policy", "pool-scale-out"),
        ("aws:autoscaling/schedule:Schedule", "pool-start"),
        ("aws:autoscaling/schedule:Schedule", "pool-stop"),
        ("aws:cloudwatch/metricAlarm:MetricAlarm", "pool-gpu-high"),
        ("aws:cloudwatch/metricAlarm:MetricAlarm", "pool-gpu-low"),
        ("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt"),
        ("aws:iam/rolePolicy:RolePolicy", "pool-protection"),
        ("aws:iam/rolePolicy:RolePolicy", "pool-queue-access"),
        ("aws:sqs/queue:Queue", "pool-dlq"),
        ("aws:sqs/queue:Queue", "pool-queue"),
        ("aws:sqs/queuePolicy:QueuePolicy", "pool-dlq-policy"),
        ("aws:sqs/queuePolicy:QueuePolicy", "pool-queue-policy"),
        ("aws:sqs/redriveAllowPolicy:RedriveAllowPolicy", "pool-dlq-redrive-allow"),
        ("gpufleet:pools:GpuPool", "pool"),
    ]


def test_launch_template_is_hardened(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(disk_gib=500)))
    lt = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt").inputs
    assert lt["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpTokens": "required",
        "httpPutResponseHopLimit": 2,
        "instanceMetadataTags": "disabled",
    }
    assert "keyName" not in lt
    assert "userData" not in lt
    assert lt["blockDeviceMappings"] == [
        {
            "deviceName": "/dev/xvda",
            "ebs": {
                "volumeType": "gp3",
                "volumeSize": 500,
                "encrypted": "true",
                "kmsKeyId": KEY_ARN,
                "deleteOnTermination": "true",
            },
        }
    ]
    assert lt["networkInterfaces"] == [
        {
            "deviceIndex": 0,
            "associatePublicIpAddress": "false",
            "deleteOnTermination": "true",
            "securityGroups": ["sg-1"],
        }
    ]
    assert lt["iamInstanceProfile"] == {"arn": "arn:aws:iam::123456789012:instance-profile/gpu"}
    assert lt["imageId"] == "ami-0dlami000000000"
    ami_calls = [args for token, args in mocks.calls if token == "aws:ec2/getAmi:getAmi"]
    assert ami_calls[0]["owners"] == ["amazon"] and ami_calls[0]["mostRecent"] is True
    assert {"name": "name", "values": [DLAMI_NAME_FILTER]} in ami_calls[0]["filters"]
    assert [spec["resourceType"] for spec in lt["tagSpecifications"]] == [
        "instance",
        "volume",
        "network-interface",
    ]


def test_an_explicit_image_skips_the_lookup(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(image_id="ami-pinned")))
    assert mocks.one("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt").inputs["imageId"] == "ami-pinned"
    assert all(token != "aws:ec2/getAmi:getAmi" for token, _ in mocks.calls)


@pytest.mark.parametrize(("spot", "base", "above_base"), [(100, 0, 0), (50, 1, 50), (0, 2, 100)])
def test_group_mixes_spot_above_an_on_demand_base(
    run_pulumi: Runner, spot: int, base: int, above_base: int
) -> None:
    mocks = run_pulumi(_build(pool_args(spot_percent=spot, on_demand_base=base)))
    group = mocks.one("aws:autoscaling/group:Group", "pool-asg").inputs
    assert group["mixedInstancesPolicy"]["instancesDistribution"] == {
        "onDemandBaseCapacity": base,
        "onDemandPercentageAboveBaseCapacity": above_base,
        "spotAllocationStrategy": "price-capacity-optimized",
        "onDemandAllocationStrategy": "prioritized",
    }
    assert group["capacityRebalance"] is (spot > 0)


def test_group_size_overrides_subnets_and_tag_list(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args()))
    group = mocks.one("aws:autoscaling/group:Group", "pool-asg").inputs
    assert (group["minSize"], group["maxSize"]) == (0, 4)
    assert group["vpcZoneIdentifiers"] == ["subnet-a", "subnet-b"]
    template = group["mixedInstancesPolicy"]["launchTemplate"]
    assert template["overrides"] == [{"instanceType": "g5.xlarge"}, {"instanceType": "g4dn.xlarge"}]
    assert template["launchTemplateSpecification"] == {"launchTemplateId": "pool-lt-id", "version": "1"}
    assert group["tags"] == [
        *(
            {"key": k, "value": v, "propagateAtLaunch": True}
            for k, v in sorted({**TAGS, "gpufleet:pool": "experiments"}.items())
        ),
        # The group's own: its alarms size it (one scaler per group, GF-COST-006).
        {"key": "gpufleet:scaler", "value": "alarms", "propagateAtLaunch": False},
    ]
    assert (group["defaultCooldown"], group["defaultInstanceWarmup"]) == (300, 300)


def test_scale_out_steps_with_warmup_and_scale_in_is_simple_with_the_cooldown(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(scaling=ScalingRules(cooldown_s=600))))
    out = mocks.one("aws:autoscaling/policy:Policy", "pool-scale-out").inputs
    scale_in = mocks.one("aws:autoscaling/policy:Policy", "pool-scale-in").inputs
    # A step policy re-runs every minute its alarm holds; instances warming up pace its scale-out.
    assert {k: out[k] for k in out if k != "autoscalingGroupName"} == {
        "policyType": "StepScaling",
        "adjustmentType": "ChangeInCapacity",
        "metricAggregationType": "Average",
        "estimatedInstanceWarmup": 600,
        "stepAdjustments": [{"scalingAdjustment": 1, "metricIntervalLowerBound": "0"}],
    }
    # Scale-in is simple scaling: one instance per cooldown, not one a minute while the alarm holds.
    assert {k: scale_in[k] for k in scale_in if k != "autoscalingGroupName"} == {
        "policyType": "SimpleScaling",
        "adjustmentType": "ChangeInCapacity",
        "scalingAdjustment": -1,
        "cooldown": 600,
    }
    assert out["autoscalingGroupName"] == scale_in["autoscalingGroupName"] == ASG


def test_gpu_alarms_read_metrics_that_are_published(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(min_size=1)))
    alarms = {r.name: r.inputs for r in mocks.of_type("aws:cloudwatch/metricAlarm:MetricAlarm")}
    assert sorted(alarms) == ["pool-gpu-high", "pool-gpu-low"]
    high = alarms["pool-gpu-high"]
    out_arn = "arn:aws:autoscaling:us-east-1:123456789012:policy/pool-scale-out-0a1b2c3"
    in_arn = "arn:aws:autoscaling:us-east-1:123456789012:policy/pool-scale-in-0a1b2c3"
    gpu_dimensions = {"AutoScalingGroupName": ASG, "Stack": STACK}
    # The CloudWatch agent's rolled-up series (see test_userdata): group and stack.
    assert (
        high["namespace"],
        high["metricName"],
        high["dimensions"],
        high["statistic"],
        high["comparisonOperator"],
        high["threshold"],
        high["period"],
        high["evaluationPeriods"],
        high["datapointsToAlarm"],
        high["treatMissingData"],
        high["alarmActions"],
    ) == (
        f"gpufleet/{STACK}",
        "nvidia_smi_utilization_gpu",
        gpu_dimensions,
        "Average",
        "GreaterThanThreshold",
        70,
        60,
        5,
        5,
        "notBreaching",
        [out_arn],
    )
    low = alarms["pool-gpu-low"]
    # Below 30 % for six 5-minute periods (30 minutes), and only while no message waits: the GPU
    # rule never scales in against the backlog policy. Both series take SQS's 5-minute period.
    assert {k: low[k] for k in low if k not in ("alarmDescription", "tags")} == {
        "comparisonOperator": "LessThanThreshold",
        "threshold": 30,
        "evaluationPeriods": 6,
        "datapointsToAlarm": 6,
        "treatMissingData": "notBreaching",
        "metricQueries": [
            {
                "id": "gpu",
                "metric": {
                    "namespace": f"gpufleet/{STACK}",
                    "metricName": "nvidia_smi_utilization_gpu",
                    "dimensions": gpu_dimensions,
                    "period": 300,
                    "stat": "Average",
                },
                "returnData": False,
            },
            {
                "id": "queue",
                "metric": {
                    "namespace": "AWS/SQS",
                    "metricName": "ApproximateNumberOfMessagesVisible",
                    "dimensions": {"QueueName": QUEUE},
                    "period": 300,
                    "stat": "Maximum",
                },
                "returnData": False,
            },
            {
                "id": "idle",
                "expression": "IF(FILL(queue, 0) > 0, 100, gpu)",
                "label": "nvidia_smi_utilization_gpu while the queue is empty (100 while work waits)",
                "returnData": True,
            },
        ],
        "alarmActions": [in_arn],
    }


def _backlog_queries(group: str = ASG) -> list[dict[str, object]]:
    return [
        {
            "id": "m1",
            "metricStat": {
                "metric": {
                    "namespace": "AWS/SQS",
                    "metricName": "ApproximateNumberOfMessagesVisible",
                    "dimensions": [{"name": "QueueName", "value": QUEUE}],
                },
                "stat": "Sum",
            },
            "returnData": False,
        },
        {
            "id": "m2",
            "metricStat": {
                "metric": {
                    "namespace": "AWS/AutoScaling",
                    "metricName": "GroupInServiceInstances",
                    "dimensions": [{"name": "AutoScalingGroupName", "value": group}],
                },
                "stat": "Average",
            },
            "returnData": False,
        },
        {
            "id": "m3",
            "metricStat": {
                "metric": {
                    "namespace": "AWS/SQS",
                    "metricName": "ApproximateNumberOfMessagesNotVisible",
                    "dimensions": [{"name": "QueueName", "value": QUEUE}],
                },
                "stat": "Sum",
            },
            "returnData": False,
        },
    ]


def test_scale_out_on_backlog_per_instance_is_target_tracking(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(min_size=0, scaling=ScalingRules(queue_out=10))))
    backlog = mocks.one("aws:autoscaling/policy:Policy", "pool-backlog").inputs
    # AWS's SQS pattern with jobs that hold an instance: jobs per instance in service (in flight, and
    # waiting ones once more than queue_out wait), held at one: proportional scale-out; at zero
    # instances every waiting job counts, so one job wakes the pool.
    assert backlog == {
        "autoscalingGroupName": ASG,
        "policyType": "TargetTrackingScaling",
        "estimatedInstanceWarmup": 300,
        "targetTrackingConfiguration": {
            "targetValue": 1,
            "disableScaleIn": True,
            "customizedMetricSpecification": {
                "metrics": [
                    *_backlog_queries(),
                    {
                        "id": "e1",
                        "expression": "IF(m2 > 0, (m3 + IF(m1 > 10, m1, 0)) / m2, m1)",
                        "label": "jobs per instance in service",
                        "returnData": True,
                    },
                ]
            },
        },
    }
    # m2 exists only for a group that collects it.
    group = mocks.one("aws:autoscaling/group:Group", "pool-asg").inputs
    assert (group["enabledMetrics"], group["metricsGranularity"]) == (["GroupInServiceInstances"], "1Minute")
    # No alarm fires on one message any more.
    assert [r.name for r in mocks.of_type("aws:cloudwatch/metricAlarm:MetricAlarm")] == [
        "pool-gpu-high",
        "pool-gpu-low",
    ]


def test_terminations_wait_on_the_drain_hook(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(spot_percent=100)))
    hook = mocks.one("aws:autoscaling/lifecycleHook:LifecycleHook", "pool-drain").inputs
    assert hook == {
        "name": "gpufleet-drain",
        "autoscalingGroupName": ASG,
        "lifecycleTransition": "autoscaling:EC2_INSTANCE_TERMINATING",
        "heartbeatTimeout": 900,
        "defaultResult": "CONTINUE",
    }
    group = mocks.one("aws:autoscaling/group:Group", "pool-asg").inputs
    assert group["capacityRebalance"] is True


def test_the_worker_may_protect_its_own_instance_only(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args()))
    protection = mocks.one("aws:iam/rolePolicy:RolePolicy", "pool-protection").inputs
    # The test mocks' ARN of the group (a real one names autoScalingGroup:<id>:autoScalingGroupName/).
    group_arn = f"arn:aws:autoscaling:us-east-1:{ACCOUNT}:group/{ASG}"
    assert json.loads(protection["policy"])["Statement"] == [
        {
            "Sid": "ProtectOwnInstance",
            "Effect": "Allow",
            "Action": [
                "autoscaling:SetInstanceProtection",
                "autoscaling:CompleteLifecycleAction",
                "autoscaling:RecordLifecycleActionHeartbeat",
            ],
            "Resource": [group_arn],
        },
        {
            "Sid": "ReadOwnState",
            "Effect": "Allow",
            "Action": ["autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances"],
            "Resource": ["*"],
        },
    ]
    queue_access = mocks.one("aws:iam/rolePolicy:RolePolicy", "pool-queue-access").inputs
    assert protection["role"] == queue_access["role"]
    consume = statements_by_sid(queue_access)["ConsumeOwnPoolQueue"]
    assert consume["Action"] == SQS_CONSUMER


def test_the_pool_creates_an_encrypted_queue_with_a_dead_letter_queue(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(queue=NewQueue(visibility_timeout_s=3600, max_receives=3))))
    queue = mocks.one("aws:sqs/queue:Queue", "pool-queue").inputs
    dlq = mocks.one("aws:sqs/queue:Queue", "pool-dlq").inputs
    assert queue["kmsMasterKeyId"] == dlq["kmsMasterKeyId"] == KEY_ARN
    assert json.loads(queue["redrivePolicy"]) == {"deadLetterTargetArn": DLQ_ARN, "maxReceiveCount": 3}
    assert queue["visibilityTimeoutSeconds"] == 3600
    assert dlq["messageRetentionSeconds"] == 1_209_600
    allow = mocks.one("aws:sqs/redriveAllowPolicy:RedriveAllowPolicy", "pool-dlq-redrive-allow").inputs
    assert json.loads(allow["redriveAllowPolicy"]) == {
        "redrivePermission": "byQueue",
        "sourceQueueArns": [QUEUE_ARN],
    }
    assert queue["tags"] == {**TAGS, "gpufleet:pool": "experiments"}
    for name, arn in (("pool-queue-policy", QUEUE_ARN), ("pool-dlq-policy", DLQ_ARN)):
        policy = mocks.one("aws:sqs/queuePolicy:QueuePolicy", name).inputs
        assert statements_by_sid(policy) == {
            "DenyInsecureTransport": {
                "Sid": "DenyInsecureTransport",
                "Effect": "Deny",
                "Action": ["sqs:*"],
                "Principal": "*",
                "Resource": [arn],
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            }
        }


def test_instances_consume_their_own_queue_and_no_other(run_pulumi: Runner) -> None:
    recorder = OptionsRecorder()
    mocks = run_pulumi(_build(pool_args(), recorder))
    access = mocks.one("aws:iam/rolePolicy:RolePolicy", "pool-queue-access").inputs
    assert access["role"] == "gpu-role"
    assert statements_by_sid(access) == {
        "ConsumeOwnPoolQueue": {
            "Sid": "ConsumeOwnPoolQueue",
            "Effect": "Allow",
            "Action": SQS_CONSUMER,
            "Resource": [QUEUE_ARN],
        },
        # The queue's messages are encrypted with the pool's key: decrypt them, through SQS only.
        "DecryptOwnPoolQueue": {
            "Sid": "DecryptOwnPoolQueue",
            "Effect": "Allow",
            "Action": ["kms:Decrypt"],
            "Resource": [KEY_ARN],
            "Condition": {"StringEquals": {"kms:ViaService": "sqs.us-east-1.amazonaws.com"}},
        },
    }
    # No instance boots before its role may take work from the queue.
    assert recorder.depends_on("pool-asg") == ["pool-queue-access"]


def test_an_existing_queue_by_name_is_read_not_created(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(queue=ExistingQueue(name="render-jobs"))))
    assert mocks.of_type("aws:sqs/queue:Queue") == []
    assert mocks.of_type("aws:sqs/queuePolicy:QueuePolicy") == []
    backlog = mocks.one("aws:autoscaling/policy:Policy", "pool-backlog").inputs
    m1 = backlog["targetTrackingConfiguration"]["customizedMetricSpecification"]["metrics"][0]
    assert m1["metricStat"]["metric"]["dimensions"] == [{"name": "QueueName", "value": "render-jobs"}]
    access = mocks.one("aws:iam/rolePolicy:RolePolicy", "pool-queue-access").inputs
    resources = statements_by_sid(access)["ConsumeOwnPoolQueue"]["Resource"]
    assert resources == [f"arn:aws:sqs:us-east-1:{ACCOUNT}:render-jobs"]
    # Its owner's key, if any, is not the fleet's to grant.
    assert "DecryptOwnPoolQueue" not in statements_by_sid(access)


def test_an_existing_queue_by_arn(run_pulumi: Runner) -> None:
    arn = f"arn:aws:sqs:us-west-2:{ACCOUNT}:train.fifo"
    mocks = run_pulumi(_build(pool_args(region="us-west-2", queue=ExistingQueue(arn=arn))))
    backlog = mocks.one("aws:autoscaling/policy:Policy", "pool-backlog").inputs
    m1 = backlog["targetTrackingConfiguration"]["customizedMetricSpecification"]["metrics"][0]
    assert m1["metricStat"]["metric"]["dimensions"] == [{"name": "QueueName", "value": "train.fifo"}]
    access = mocks.one("aws:iam/rolePolicy:RolePolicy", "pool-queue-access").inputs
    assert statements_by_sid(access)["ConsumeOwnPoolQueue"]["Resource"] == [arn]


def test_an_existing_queues_customer_key_is_decrypted_through_sqs_only(run_pulumi: Runner) -> None:
    key = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/mrk-0123456789abcdef"
    mocks = run_pulumi(
        _build(pool_args(region="us-east-1", queue=ExistingQueue(name="jobs", kms_key_arn=key)))
    )
    access = statements_by_sid(mocks.one("aws:iam/rolePolicy:RolePolicy", "pool-queue-access").inputs)
    assert access["DecryptOwnPoolQueue"] == {
        "Sid": "DecryptOwnPoolQueue",
        "Effect": "Allow",
        "Action": ["kms:Decrypt"],
        "Resource": [key],
        "Condition": {"StringEquals": {"kms:ViaService": "sqs.us-east-1.amazonaws.com"}},
    }


@pytest.mark.parametrize(
    ("queue", "problem"),
    [
        (ExistingQueue(), "queue: name one existing queue by name or by arn (exactly one of them)"),
        (
            ExistingQueue(name="jobs", kms_key_arn=f"arn:aws:kms:eu-west-1:{ACCOUNT}:key/abc"),
            "queue.kms_key_arn: the key is in eu-west-1 but the queue in us-east-1; SQS encrypts with a key "
            "of the queue's own region",
        ),
        (
            ExistingQueue(name="jobs", kms_key_arn="alias/jobs"),
            "queue.kms_key_arn: 'alias/jobs' is not a KMS key ARN like "
            "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        ),
        (
            ExistingQueue(name="a", arn=f"arn:aws:sqs:us-east-1:{ACCOUNT}:a"),
            "queue: name one existing queue by name or by arn (exactly one of them)",
        ),
        (
            ExistingQueue(arn=f"arn:aws:sqs:eu-west-1:{ACCOUNT}:jobs"),
            "queue.arn: the queue is in eu-west-1 but the pool runs in us-east-1; AWS/SQS metrics stay in "
            "the queue's region, so the pool's alarm could never see them",
        ),
        (
            ExistingQueue(arn="arn:aws:sns:us-east-1:123456789012:jobs"),
            "queue.arn: 'arn:aws:sns:us-east-1:123456789012:jobs' is not an SQS queue ARN like "
            "arn:aws:sqs:us-east-1:123456789012:jobs",
        ),
        (
            ExistingQueue(name="jobs queue"),
            "queue.name: 'jobs queue' is not an SQS queue name (1-80 letters, digits, '-' or '_', a FIFO "
            "queue ending in .fifo)",
        ),
        (NewQueue(max_receives=0), "max_receives: 0 must be within 1..1000"),
        (NewQueue(visibility_timeout_s=50_000), "visibility_timeout_s: 50000 must be within 0..43200"),
    ],
)
def test_bad_queue_sources_are_refused(queue: ExistingQueue | NewQueue, problem: str) -> None:
    with pytest.raises(ValueError) as raised:
        pool_args(region="us-east-1", queue=queue)
    assert str(raised.value) == f"GpuPoolArgs(experiments): {problem}"


def test_off_hours_schedule_scales_to_zero_in_its_time_zone(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(min_size=1, off_hours=OFF_HOURS)))
    stop = mocks.one("aws:autoscaling/schedule:Schedule", "pool-stop").inputs
    start = mocks.one("aws:autoscaling/schedule:Schedule", "pool-start").inputs
    assert {k: stop[k] for k in ("minSize", "maxSize", "desiredCapacity", "recurrence", "timeZone")} == {
        "minSize": 0,
        "maxSize": 0,
        "desiredCapacity": 0,
        "recurrence": "0 20 * * *",
        "timeZone": "Asia/Shanghai",
    }
    assert {k: start[k] for k in ("minSize", "maxSize", "desiredCapacity", "recurrence", "timeZone")} == {
        "minSize": 1,
        "maxSize": 4,
        "desiredCapacity": 1,
        "recurrence": "0 8 * * 1-5",
        "timeZone": "Asia/Shanghai",
    }
    assert stop["autoscalingGroupName"] == ASG


def test_no_schedule_without_off_hours(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args()))
    mocks.one("aws:autoscaling/group:Group", "pool-asg")
    assert mocks.of_type("aws:autoscaling/schedule:Schedule") == []


def test_args_report_every_problem() -> None:
    with pytest.raises(ValueError) as raised:
        pool_args(
            instance_types=[],
            min_size=5,
            max_size=2,
            spot_percent=120,
            disk_gib=4,
            scaling=ScalingRules(gpu_util_in=80),
        )
    assert str(raised.value) == (
        "GpuPoolArgs(experiments): instance_types: at least one instance type is needed; "
        "size: need 0 <= min (5) <= max (2); spot_percent: 120 is not a percentage; "
        "disk_gib: 4 is outside gp3's 8..16384 GiB; "
        "scaling.gpu_util_in (80) must be below gpu_util_out (70)"
    )
