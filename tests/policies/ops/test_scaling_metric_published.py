"""GF-OPS-001: an alarm that drives scaling watches a metric something in the stack publishes."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from gpufleet.policies.ops.scaling_metric_published import POLICY, RULE

from .helpers import ACCOUNT, NotApplicable, asg_policy_arn, res, run_stack

ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
TAGS_AND_METRICS = [
    {
        "Effect": "Allow",
        "Action": ["cloudwatch:PutMetricData"],
        "Resource": "*",
        "Condition": {"StringEquals": {"cloudwatch:namespace": "CWAgent"}},
    },
    {"Effect": "Allow", "Action": ["ec2:DescribeTags"], "Resource": "*"},
]


class Fleet:
    """A GPU pool in private subnets with monitoring and ec2 endpoints, whose role lets the CloudWatch
    agent publish to CWAgent and read tags, scaled out by an alarm on the agent's GPU metric."""

    def __init__(
        self,
        statements: list[dict[str, Any]] | None = None,
        endpoints: tuple[str, ...] = ("monitoring", "ec2"),
    ) -> None:
        self.vpc = res("aws:ec2/vpc:Vpc", "vpc", {"id": "vpc-1"})
        self.subnet = res(
            "aws:ec2/subnet:Subnet",
            "private-a",
            {"vpcId": "vpc-1", "id": "subnet-a"},
            prop_deps={"vpcId": [self.vpc]},
        )
        self.table = res(
            "aws:ec2/routeTable:RouteTable",
            "private-rt",
            {"vpcId": "vpc-1", "id": "rtb-1"},
            prop_deps={"vpcId": [self.vpc]},
        )
        self.association = res(
            "aws:ec2/routeTableAssociation:RouteTableAssociation",
            "private-a-rt",
            {"subnetId": "subnet-a", "routeTableId": "rtb-1"},
            prop_deps={"subnetId": [self.subnet], "routeTableId": [self.table]},
        )
        self.endpoints = [
            res(
                "aws:ec2/vpcEndpoint:VpcEndpoint",
                service,
                {
                    "vpcId": "vpc-1",
                    "serviceName": f"com.amazonaws.us-east-1.{service}",
                    "vpcEndpointType": "Interface",
                    "privateDnsEnabled": True,
                },
                prop_deps={"vpcId": [self.vpc]},
            )
            for service in endpoints
        ]
        policy = {
            "Version": "2012-10-17",
            "Statement": TAGS_AND_METRICS if statements is None else statements,
        }
        self.role = res("aws:iam/role:Role", "gpu-node", {"name": "gpu-node"})
        self.role_policy = res(
            "aws:iam/rolePolicy:RolePolicy",
            "gpu-node-agent",
            {"role": "gpu-node", "policy": json.dumps(policy)},
            prop_deps={"role": [self.role]},
        )
        self.profile = res(
            "aws:iam/instanceProfile:InstanceProfile",
            "gpu-node",
            {"role": "gpu-node", "name": "gpu-node"},
            prop_deps={"role": [self.role]},
        )
        self.template = res(
            "aws:ec2/launchTemplate:LaunchTemplate",
            "gpu-lt",
            {
                "id": "lt-1",
                "iamInstanceProfile": {"arn": f"arn:aws:iam::{ACCOUNT}:instance-profile/gpu-node"},
            },
            prop_deps={"iamInstanceProfile": [self.profile]},
        )
        self.group = res(
            "aws:autoscaling/group:Group",
            "gpu-asg",
            {
                "name": "gpu-asg",
                "vpcZoneIdentifiers": ["subnet-a"],
                "launchTemplate": {"id": "lt-1"},
                "maxSize": 4,
            },
            prop_deps={"vpcZoneIdentifiers": [self.subnet], "launchTemplate": [self.template]},
        )
        self.policy = res(
            "aws:autoscaling/policy:Policy",
            "scale-out",
            {"autoscalingGroupName": "gpu-asg"},
            prop_deps={"autoscalingGroupName": [self.group]},
        )
        self.alarm = self.alarm_on(
            "CWAgent", "nvidia_smi_utilization_gpu", {"AutoScalingGroupName": "gpu-asg"}
        )
        self.extra: list[Any] = []

    def alarm_on(
        self, namespace: str, metric: str, dimensions: dict[str, str], name: str = "gpu-busy"
    ) -> Any:
        deps: dict[str, list[Any]] = {"alarmActions": [self.policy]}
        if "AutoScalingGroupName" in dimensions:
            deps["dimensions"] = [self.group]
        return res(
            ALARM,
            name,
            {
                "namespace": namespace,
                "metricName": metric,
                "dimensions": dimensions,
                "alarmActions": [asg_policy_arn("scale-out")],
            },
            prop_deps=deps,
        )

    def resources(self) -> list[Any]:
        return [
            self.vpc, self.subnet, self.table, self.association, *self.endpoints, self.role, self.role_policy,
            self.profile, self.template, self.group, self.policy, self.alarm, *self.extra,
        ]  # fmt: skip

    def findings(self, config: dict[str, Any] | None = None) -> list[str]:
        reported = run_stack(POLICY, self.resources(), config)
        assert all(urn == self.alarm.urn for _, urn in reported), reported
        return [message for message, _ in reported]


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.clouds) == (
        "GF-OPS-001",
        "scaling-metric-published",
        ("aws", "alicloud", "tencentcloud"),
    )
    assert RULE.defaults() == {"published_namespaces": []}


def test_agent_metric_with_grants_and_endpoints_passes() -> None:
    assert Fleet().findings() == []


def test_agent_without_describe_tags_drops_the_group_dimension() -> None:
    assert Fleet(TAGS_AND_METRICS[:1]).findings() == [
        "alarm 'gpu-busy' watches CWAgent nvidia_smi_utilization_gpu by AutoScalingGroupName, which the "
        "CloudWatch agent on 'gpu-lt' appends only after ec2:DescribeTags succeeds, but role 'gpu-node' does "
        "not allow it, so every metric is dropped; allow ec2:DescribeTags"
    ]


def test_without_the_group_dimension_describe_tags_is_not_needed() -> None:
    fleet = Fleet(TAGS_AND_METRICS[:1], endpoints=("monitoring",))
    fleet.alarm = fleet.alarm_on("CWAgent", "nvidia_smi_utilization_gpu", {"InstanceType": "g5.xlarge"})
    assert fleet.findings() == []


def test_put_metric_data_for_another_namespace() -> None:
    statements = [
        dict(TAGS_AND_METRICS[0], Condition={"StringEquals": {"cloudwatch:namespace": "gpufleet"}}),
        TAGS_AND_METRICS[1],
    ]
    assert Fleet(statements).findings() == [
        "alarm 'gpu-busy' scales on CWAgent nvidia_smi_utilization_gpu, but role 'gpu-node' of 'gpu-lt' may "
        "not call cloudwatch:PutMetricData for namespace CWAgent; allow it (cloudwatch:namespace = CWAgent)"
    ]


def test_a_deny_takes_the_grant_away() -> None:
    deny = {"Effect": "Deny", "Action": "cloudwatch:PutMetricData", "Resource": "*"}
    assert len(Fleet([*TAGS_AND_METRICS, deny]).findings()) == 1


def test_no_endpoint_and_no_route_out() -> None:
    assert Fleet(endpoints=("monitoring",)).findings() == [
        "alarm 'gpu-busy': the CloudWatch agent on 'gpu-lt' cannot reach ec2 from subnet 'private-a': no "
        "route out and no interface endpoint for ec2 with private DNS in the VPC; add the endpoint or a NAT "
        "route"
    ]


def test_endpoint_without_private_dns_does_not_count() -> None:
    fleet = Fleet()
    fleet.endpoints[1].props["privateDnsEnabled"] = False
    assert len(fleet.findings()) == 1


def test_a_nat_route_is_a_way_out() -> None:
    fleet = Fleet(endpoints=())
    fleet.table.props["routes"] = [{"cidrBlock": "0.0.0.0/0", "natGatewayId": "nat-1"}]
    assert fleet.findings() == []


def test_an_internet_gateway_route_needs_a_public_ip() -> None:
    fleet = Fleet(endpoints=())
    fleet.extra.append(
        res(
            "aws:ec2/route:Route",
            "default",
            {"routeTableId": "rtb-1", "destinationCidrBlock": "0.0.0.0/0", "gatewayId": "igw-1"},
            prop_deps={"routeTableId": [fleet.table]},
        )
    )
    assert len(fleet.findings()) == 2
    fleet.subnet.props["mapPublicIpOnLaunch"] = True
    assert fleet.findings() == []


def test_template_without_instance_profile() -> None:
    fleet = Fleet()
    fleet.template.props.pop("iamInstanceProfile")
    fleet.template.property_dependencies = {}
    assert fleet.findings() == [
        "alarm 'gpu-busy' scales on CWAgent nvidia_smi_utilization_gpu, published by the CloudWatch agent on "
        "'gpu-lt', which has no instance profile, so the agent cannot call cloudwatch:PutMetricData"
    ]


def test_instance_profile_outside_the_stack_cannot_be_judged() -> None:
    fleet = Fleet()
    fleet.template.props["iamInstanceProfile"] = {"name": "shared-gpu-profile"}
    fleet.template.property_dependencies = {}
    assert fleet.findings() == [
        "could not be judged: 'gpu-lt' uses shared-gpu-profile, which is not created in the stack, so its "
        "role's grants are not known"
    ]


def test_known_managed_policy_grants_what_the_agent_needs() -> None:
    fleet = Fleet([])
    fleet.extra.append(
        res(
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "agent",
            {"role": "gpu-node", "policyArn": "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy"},
            prop_deps={"role": [fleet.role]},
        )
    )
    assert fleet.findings() == []


def test_unknown_managed_policy_cannot_be_judged() -> None:
    fleet = Fleet([])
    arn = f"arn:aws:iam::{ACCOUNT}:policy/platform-observability"
    fleet.extra.append(
        res(
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "obs",
            {"role": "gpu-node", "policyArn": arn},
            prop_deps={"role": [fleet.role]},
        )
    )
    assert fleet.findings() == [
        f"could not be judged: whether role 'gpu-node' may call cloudwatch:PutMetricData depends on '{arn}', "
        "which the pack cannot read"
    ]


def test_queue_metric_needs_the_queue_in_the_stack() -> None:
    fleet = Fleet()
    fleet.alarm = fleet.alarm_on("AWS/SQS", "ApproximateNumberOfMessagesVisible", {"QueueName": "ml-jobs"})
    assert fleet.findings() == [
        "alarm 'gpu-busy' scales on AWS/SQS ApproximateNumberOfMessagesVisible of queue 'ml-jobs', which the "
        "stack does not create: SQS publishes metrics only for a queue that exists; create the queue in the "
        "stack or list 'AWS/SQS:ml-jobs' in published_namespaces"
    ]
    assert fleet.findings({"published_namespaces": ["AWS/SQS:ml-jobs"]}) == []
    fleet.extra.append(res("aws:sqs/queue:Queue", "jobs", {"name": "ml-jobs"}))
    assert fleet.findings() == []


def test_custom_namespace_nobody_may_publish() -> None:
    fleet = Fleet()
    fleet.alarm = fleet.alarm_on("gpufleet", "QueueDepth", {"Pool": "experiments"})
    assert fleet.findings() == [
        "alarm 'gpu-busy' scales on gpufleet QueueDepth, which nothing in the stack may publish (no role "
        "allows cloudwatch:PutMetricData for gpufleet): the alarm never fires; scale on a metric the stack "
        "publishes, or list 'gpufleet' in published_namespaces if it is published outside the stack"
    ]
    assert fleet.findings({"published_namespaces": ["gpufleet"]}) == []
    publisher = res(
        "aws:iam/role:Role",
        "scheduler",
        {
            "inlinePolicies": [
                {
                    "name": "metrics",
                    "policy": json.dumps(
                        {
                            "Statement": [
                                {
                                    "Effect": "Allow",
                                    "Action": "cloudwatch:PutMetricData",
                                    "Resource": "*",
                                    "Condition": {"StringLike": {"cloudwatch:namespace": "gpu*"}},
                                }
                            ]
                        }
                    ),
                }
            ]
        },
    )
    fleet.extra.append(publisher)
    assert fleet.findings() == []


def test_agent_namespace_set_in_the_agent_config_of_the_user_data() -> None:
    fleet = Fleet(
        [
            dict(TAGS_AND_METRICS[0], Condition={"StringEquals": {"cloudwatch:namespace": "GPU"}}),
            TAGS_AND_METRICS[1],
        ]
    )
    config = {
        "metrics": {
            "namespace": "GPU",
            "metrics_collected": {"nvidia_gpu": {"measurement": ["utilization_gpu"]}},
        }
    }
    fleet.template.props["userData"] = base64.b64encode(json.dumps(config).encode()).decode()
    fleet.alarm = fleet.alarm_on("GPU", "nvidia_smi_utilization_gpu", {"AutoScalingGroupName": "gpu-asg"})
    assert fleet.findings() == []
    fleet.role_policy.props["policy"] = json.dumps({"Statement": TAGS_AND_METRICS})
    assert fleet.findings() == [
        "alarm 'gpu-busy' scales on GPU nvidia_smi_utilization_gpu, but role 'gpu-node' of 'gpu-lt' may not "
        "call cloudwatch:PutMetricData for namespace GPU; allow it (cloudwatch:namespace = GPU)"
    ]


def test_group_metrics_need_collection_enabled() -> None:
    fleet = Fleet()
    fleet.alarm = fleet.alarm_on(
        "AWS/AutoScaling", "GroupInServiceInstances", {"AutoScalingGroupName": "gpu-asg"}
    )
    assert fleet.findings() == [
        "alarm 'gpu-busy' scales on AWS/AutoScaling GroupInServiceInstances, but group 'gpu-asg' does not "
        "collect it; add 'GroupInServiceInstances' to the group's enabledMetrics"
    ]
    fleet.group.props["enabledMetrics"] = ["GroupInServiceInstances"]
    assert fleet.findings() == []


def test_metric_queries_are_judged_metric_by_metric() -> None:
    fleet = Fleet()
    fleet.alarm = res(
        ALARM,
        "gpu-busy",
        {
            "alarmActions": [asg_policy_arn("scale-out")],
            "metricQueries": [
                {
                    "id": "backlog",
                    "metric": {
                        "namespace": "AWS/SQS",
                        "metricName": "ApproximateNumberOfMessagesVisible",
                        "dimensions": {"QueueName": "ml-jobs"},
                    },
                },
                {"id": "per_instance", "expression": "backlog / 4", "returnData": True},
            ],
        },
        prop_deps={"alarmActions": [fleet.policy]},
    )
    assert len(fleet.findings()) == 1


def test_unknown_aws_namespace_cannot_be_judged() -> None:
    fleet = Fleet()
    fleet.alarm = fleet.alarm_on("AWS/Bedrock", "InvocationLatency", {})
    assert fleet.findings() == [
        "could not be judged: alarm 'gpu-busy' scales on AWS/Bedrock InvocationLatency; which resources "
        "publish AWS/Bedrock is not known to the pack: list 'AWS/Bedrock' in published_namespaces if "
        "something publishes it"
    ]


def test_alarms_that_do_not_scale_are_not_judged() -> None:
    alarm = res(
        ALARM,
        "page",
        {
            "namespace": "gpufleet",
            "metricName": "QueueDepth",
            "alarmActions": [f"arn:aws:sns:us-east-1:{ACCOUNT}:ops"],
        },
    )
    with pytest.raises(
        NotApplicable, match="the stack has no alarm or target-tracking policy that drives scaling"
    ):
        run_stack(POLICY, [alarm])
