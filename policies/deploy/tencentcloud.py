"""Tencent Cloud's share of the deploy rules: the type tokens of the shipped stacks whose provider-schema
constraints `generate` extracts, and Tencent Cloud's facts for GF-DEPLOY-003."""

from __future__ import annotations

# The Tencent Cloud resources the fleet programs build (`generate` reads their constraints).
SCOPE = (
    "tencentcloud:As/scalingConfig:ScalingConfig",
    "tencentcloud:As/scalingGroup:ScalingGroup",
    "tencentcloud:As/scalingPolicy:ScalingPolicy",
    "tencentcloud:As/schedule:Schedule",
    "tencentcloud:Audit/track:Track",
    "tencentcloud:Billing/budget:Budget",
    "tencentcloud:Cam/policy:Policy",
    "tencentcloud:Cam/role:Role",
    "tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment",
    "tencentcloud:Cls/logset:Logset",
    "tencentcloud:Cls/topic:Topic",
    "tencentcloud:Cos/bucket:Bucket",
    "tencentcloud:Cos/bucketPolicy:BucketPolicy",
    "tencentcloud:Kms/key:Key",
    "tencentcloud:Monitor/alarmPolicy:AlarmPolicy",
    "tencentcloud:Route/table:Table",
    "tencentcloud:Route/tableEntry:TableEntry",
    "tencentcloud:Security/group:Group",
    "tencentcloud:Security/groupRuleSet:GroupRuleSet",
    "tencentcloud:Subnet/instance:Instance",
    "tencentcloud:Tat/command:Command",
    "tencentcloud:Tcmq/queue:Queue",
    "tencentcloud:Vpc/instance:Instance",
    "tencentcloud:Vpn/connection:Connection",
    "tencentcloud:Vpn/customerGateway:CustomerGateway",
    "tencentcloud:Vpn/gateway:Gateway",
    "tencentcloud:Vpn/gatewayRoute:GatewayRoute",
)

# GF-DEPLOY-003: the field holding a scheduled action's first run, by type token.
START_FIELDS = {"tencentcloud:As/schedule:Schedule": "startTime"}
