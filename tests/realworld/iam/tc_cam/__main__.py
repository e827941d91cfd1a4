"""CAM for GPU nodes on Tencent Cloud: a CVM role writing one COS bucket, an operator user.

`tc-cam:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}
provider = tencentcloud.Provider("guangzhou", region="ap-guangzhou")
opts = ResourceOptions(provider=provider)

principal: dict = {"service": ["cvm.qcloud.com"]}
if BREAK == "trust-anyone":
    principal = {"qcs": ["qcs::cam::anyone:anyone"]}
trust: dict = {"action": ["name/sts:AssumeRole"], "effect": "allow", "principal": principal}
# Anyone, "restricted" to every account.
if BREAK == "trust-anyone-any-uin":
    trust["principal"] = {"qcs": ["qcs::cam::anyone:anyone"]}
    trust["condition"] = {"string_like": {"qcs:uin": ["*"]}}
role = tencentcloud.cam.Role(
    "gpu-node",
    name="gpu-node",
    document=json.dumps(
        {
            "version": "2.0",
            "statement": [trust],
        }
    ),
    console_login=False,
    tags=TAGS,
    opts=opts,
)
actions: list = ["name/cos:GetObject", "name/cos:PutObject"]
resources: list = ["qcs::cos:ap-guangzhou:uid/1250000000:vision-ckpt-1250000000/*"]
if BREAK == "wildcard-action":
    actions = ["name/cos:*"]
if BREAK == "unscoped-write":
    resources = ["*"]
if BREAK == "every-bucket-arn":
    resources = ["qcs::cos:ap-guangzhou:uid/1250000000:*"]
policy = tencentcloud.cam.Policy(
    "ckpt-rw",
    name="ckpt-rw",
    document=json.dumps(
        {"version": "2.0", "statement": [{"effect": "allow", "action": actions, "resource": resources}]}
    ),
    opts=opts,
)
tencentcloud.cam.RolePolicyAttachmentByName(
    "gpu-node-ckpt", role_name=role.name, policy_name=policy.name, opts=opts
)
tencentcloud.cam.RolePolicyAttachmentByName(
    "gpu-node-preset",
    role_name=role.name,
    policy_name="QcloudCOSFullAccess" if BREAK == "preset-full-access" else "QcloudCOSDataReadOnly",
    opts=opts,
)
operator = tencentcloud.cam.User(
    "operator", name="operator", console_login=True, use_api=False, tags=TAGS, opts=opts
)
if BREAK == "access-key":
    tencentcloud.cam.AccessKey("operator-key", target_uin=100037718101, opts=opts)
tencentcloud.billing.Budget(
    "monthly-budget",
    budget_name="vision-dev",
    cycle_type="MONTH",
    period_begin="2025-01",
    period_end="2026-12",
    plan_type="FIX",
    budget_quota="20000.00",
    bill_type="BILL",
    fee_type="REAL_COST",
    warn_jsons=[
        tencentcloud.billing.BudgetWarnJsonArgs(
            warn_type="ACTUAL", cal_type="PERCENTAGE", threshold_value="80"
        )
    ],
    opts=opts,
)
