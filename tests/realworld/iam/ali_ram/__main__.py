"""RAM for GPU nodes on Alibaba Cloud: an ECS role reading one OSS bucket, an operator user.

`ali-ram:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_alicloud as alicloud
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}
provider = alicloud.Provider("hangzhou", region="cn-hangzhou")
opts = ResourceOptions(provider=provider)

principal: dict = {"Service": ["ecs.aliyuncs.com"]}
if BREAK == "trust-any":
    principal = {"RAM": ["*"]}
role = alicloud.ram.Role(
    "gpu-node",
    role_name="gpu-node",
    assume_role_policy_document=json.dumps(
        {
            "Version": "1",
            "Statement": [{"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": principal}],
        }
    ),
    tags=TAGS,
    opts=opts,
)
actions: object = ["oss:GetObject", "oss:PutObject", "oss:ListObjects"]
resources: object = ["acs:oss:*:*:vision-ckpt", "acs:oss:*:*:vision-ckpt/*"]
if BREAK == "wildcard-action":
    actions = "oss:*"
if BREAK == "unscoped-write":
    resources = "*"
if BREAK == "every-bucket-arn":
    resources = ["acs:oss:*:*:vision-ckpt", "acs:oss:*:*:*/*"]
policy_args: dict = {}
if BREAK == "legacy-statements":
    policy_args["statements"] = [
        alicloud.ram.PolicyStatementArgs(
            effect="Allow", actions=["ecs:*"], resources=["acs:ecs:*:*:instance/*"]
        )
    ]
else:
    policy_args["policy_document"] = json.dumps(
        {"Version": "1", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": resources}]}
    )
policy = alicloud.ram.Policy(
    "ckpt-rw", policy_name="ckpt-rw", description="checkpoints", tags=TAGS, opts=opts, **policy_args
)
alicloud.ram.RolePolicyAttachment(
    "gpu-node-ckpt", role_name=role.role_name, policy_name=policy.policy_name, policy_type="Custom", opts=opts
)
alicloud.ram.RolePolicyAttachment(
    "gpu-node-readonly",
    role_name=role.role_name,
    policy_name="AliyunOSSFullAccess" if BREAK == "system-full-access" else "AliyunOSSReadOnlyAccess",
    policy_type="System",
    opts=opts,
)
operator = alicloud.ram.User("operator", name="operator", display_name="Operator", tags=TAGS, opts=opts)
if BREAK == "access-key":
    alicloud.ram.AccessKey("operator-key", user_name=operator.name, status="Inactive", opts=opts)
