"""The AWS type tokens the operability rules share (pulumi-aws 7): Auto Scaling groups and policies,
CloudWatch alarms and the launch sources of instances."""

from __future__ import annotations

AWS_ASG = "aws:autoscaling/group:Group"
AWS_ASG_POLICY = "aws:autoscaling/policy:Policy"
AWS_APPAS_POLICY = "aws:appautoscaling/policy:Policy"
AWS_METRIC_ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_INSTANCE = "aws:ec2/instance:Instance"
