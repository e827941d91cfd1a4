"""IAM for a GPU training platform: a trainer role for EC2, a CI role for GitHub OIDC, a
cross-account reader trusted by the organisation, an operators group, a customer KMS key.

`training-iam:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import Output, ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
ACCOUNT = "123456789012"
ORG = "o-a1b2c3d4e5"
TAGS = {"project": "training", "team": "ml-platform", "cost-center": "cc-204", "env": "dev"}
provider = aws.Provider("usw2", region="us-west-2")
opts = ResourceOptions(provider=provider)
DATA = "arn:aws:s3:::acme-training-data"


class TrainerIdentity(pulumi.ComponentResource):
    """The team's own component: a role for training instances and its instance profile."""

    def __init__(self, name: str, key_arn: pulumi.Input[str], opts: ResourceOptions) -> None:
        super().__init__("mlplatform:iam:TrainerIdentity", name, None, opts)
        child = ResourceOptions(parent=self, provider=provider)
        trust = aws.iam.get_policy_document(
            statements=[
                aws.iam.GetPolicyDocumentStatementArgs(
                    actions=["sts:AssumeRole"],
                    principals=[
                        aws.iam.GetPolicyDocumentStatementPrincipalArgs(
                            type="Service", identifiers=["ec2.amazonaws.com"]
                        )
                    ],
                )
            ]
        )
        managed = ["arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"]
        if BREAK == "admin-managed-arns":
            managed.append("arn:aws:iam::aws:policy/AdministratorAccess")
        if BREAK == "s3-full-access":
            managed.append("arn:aws:iam::aws:policy/AmazonS3FullAccess")
        inline_actions = ["ec2:DescribeInstances", "ec2:DescribeTags"]
        if BREAK == "inline-wildcard":
            inline_actions = ["ec2:*"]
        self.role = aws.iam.Role(
            f"{name}-role",
            assume_role_policy=trust.json,
            managed_policy_arns=managed,
            inline_policies=[
                aws.iam.RoleInlinePolicyArgs(
                    name="describe",
                    policy=json.dumps(
                        {
                            "Version": "2012-10-17",
                            "Statement": [{"Effect": "Allow", "Action": inline_actions, "Resource": "*"}],
                        }
                    ),
                )
            ],
            tags=TAGS,
            opts=child,
        )
        data_actions = ["s3:GetObject", "S3:PutObject", "s3:AbortMultipartUpload"]
        data_resource: object = [DATA, f"{DATA}/*"]
        statement_extra: dict = {}
        if BREAK == "mixed-case-wildcard":
            data_actions = "S3:*"
        if BREAK == "unscoped-write":
            data_resource = "*"
        if BREAK == "not-resource":
            data_resource = None
            statement_extra = {"NotResource": "arn:aws:s3:::acme-secrets/*"}
        if BREAK == "objects-any-bucket":
            data_resource = [DATA, "arn:aws:s3:::*/*"]
        if BREAK == "conditioned-write":
            data_resource = "*"
            statement_extra = {"Condition": {"StringEquals": {"aws:ResourceTag/project": "training"}}}
        data_statement = {"Sid": "Data", "Effect": "Allow", "Action": data_actions, **statement_extra}
        if data_resource is not None:
            data_statement["Resource"] = data_resource

        def document(key: str) -> str:
            return json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        data_statement,
                        {
                            "Sid": "Key",
                            "Effect": "Allow",
                            "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
                            "Resource": key,
                        },
                        # A guard rail: a Deny with NotAction is never a grant.
                        {
                            "Sid": "RegionFence",
                            "Effect": "Deny",
                            "NotAction": ["iam:*", "sts:*"],
                            "Resource": "*",
                            "Condition": {"StringNotEquals": {"aws:RequestedRegion": "us-west-2"}},
                        },
                    ],
                }
            )

        aws.iam.RolePolicy(
            f"{name}-data",
            role=self.role.id,
            policy=Output.all(key_arn).apply(lambda args: document(args[0])),
            opts=child,
        )
        self.profile = aws.iam.InstanceProfile(f"{name}-profile", role=self.role.name, tags=TAGS, opts=child)
        self.register_outputs({"role_arn": self.role.arn})


key_statements: list[dict] = [
    {
        "Sid": "Root",
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
        "Action": "kms:*",
        "Resource": "*",
    },
    {
        "Sid": "AccountUse",
        "Effect": "Allow",
        "Principal": "*",
        "Action": ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*", "kms:DescribeKey"],
        "Resource": "*",
        "Condition": {
            "StringEquals": {"kms:CallerAccount": ACCOUNT, "kms:ViaService": "s3.us-west-2.amazonaws.com"}
        },
    },
]
if BREAK == "kms-wildcard":
    key_statements.append(
        {"Sid": "Anyone", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "kms:*", "Resource": "*"}
    )
if BREAK == "kms-not-action":
    key_statements.append(
        {
            "Sid": "Anyone",
            "Effect": "Allow",
            "Principal": {"AWS": ["*"]},
            "NotAction": "kms:ScheduleKeyDeletion",
            "Resource": "*",
        }
    )
key = aws.kms.Key(
    "training-key",
    description="training data",
    enable_key_rotation=True,
    deletion_window_in_days=30,
    policy=json.dumps({"Version": "2012-10-17", "Statement": key_statements}),
    tags=TAGS,
    opts=opts,
)

trainer = TrainerIdentity("trainer", key.arn, opts)

# CI: GitHub Actions through OIDC, scoped to one repository.
oidc = aws.iam.OpenIdConnectProvider(
    "github",
    url="https://token.actions.githubusercontent.com",
    client_id_lists=["sts.amazonaws.com"],
    thumbprint_lists=["6938fd4d98bab03faadb97b34396831e3780aea1"],
    tags=TAGS,
    opts=opts,
)
ci_trust = oidc.arn.apply(
    lambda arn: json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Federated": arn},
                    "Action": "sts:AssumeRoleWithWebIdentity",
                    "Condition": {
                        "StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"},
                        "StringLike": {
                            "token.actions.githubusercontent.com:sub": "repo:*"
                            if BREAK == "ci-any-repository"
                            else "repo:acme/training:*"
                        },
                    },
                }
            ],
        }
    )
)
ci = aws.iam.Role("ci", assume_role_policy=ci_trust, tags=TAGS, opts=opts)
pass_resource: pulumi.Input[str] = trainer.role.arn
pass_action = "iam:PassRole"
if BREAK == "passrole-any":
    pass_resource = "*"
if BREAK == "passrole-account-roles":
    pass_resource = f"arn:aws:iam::{ACCOUNT}:role/*"
if BREAK == "pass-prefix-any":
    pass_resource, pass_action = "*", "iam:Pass*"
if BREAK == "passrole-role-glob":
    pass_resource = f"arn:aws:iam::{ACCOUNT}:role*"
# Launching is scoped by the one subnet, security group and image the trainers use.
REGION_ARN = f"arn:aws:ec2:us-west-2:{ACCOUNT}"
launch_resources = [
    f"{REGION_ARN}:instance/*",
    f"{REGION_ARN}:volume/*",
    f"{REGION_ARN}:network-interface/*",
    f"{REGION_ARN}:subnet/subnet-0a1b2c3d4e5f60718",
    f"{REGION_ARN}:security-group/sg-0a1b2c3d4e5f60718",
    "arn:aws:ec2:us-west-2::image/ami-0a1b2c3d4e5f60718",
]
if BREAK == "launch-account-wide":
    launch_resources = [f"{REGION_ARN}:*"]
ci_doc = aws.iam.get_policy_document_output(
    statements=[
        aws.iam.GetPolicyDocumentStatementArgs(
            sid="PassTrainer",
            actions=[pass_action],
            resources=[pass_resource],
            conditions=[
                aws.iam.GetPolicyDocumentStatementConditionArgs(
                    test="StringEquals", variable="iam:PassedToService", values=["ec2.amazonaws.com"]
                )
            ],
        ),
        aws.iam.GetPolicyDocumentStatementArgs(
            sid="Launch",
            actions=["ec2:RunInstances", "ec2:CreateTags"],
            resources=launch_resources,
        ),
    ]
)
ci_policy = aws.iam.Policy("ci-deploy", policy=ci_doc.json, tags=TAGS, opts=opts)
aws.iam.RolePolicyAttachment("ci-deploy", role=ci.name, policy_arn=ci_policy.arn, opts=opts)

# A reader role any account of the organisation may assume.
reader_trust: dict = {
    "Effect": "Allow",
    "Principal": {"AWS": "*"},
    "Action": "sts:AssumeRole",
    "Condition": {"StringEquals": {"aws:PrincipalOrgID": ORG}},
}
if BREAK == "trust-any":
    del reader_trust["Condition"]
# Conditions that look like restrictions but let any account in.
if BREAK == "trust-external-id-only":
    reader_trust["Condition"] = {"StringEquals": {"sts:ExternalId": "acme-reader-7f3a"}}
if BREAK == "trust-org-like-star":
    reader_trust["Condition"] = {"StringLike": {"aws:PrincipalOrgID": "*"}}
if BREAK == "trust-org-not-equals":
    reader_trust["Condition"] = {"StringNotEquals": {"aws:PrincipalOrgID": "o-zzzzzzzzzz"}}
if BREAK == "trust-org-if-exists":
    reader_trust["Condition"] = {"StringEqualsIfExists": {"aws:PrincipalOrgID": ORG}}
if BREAK == "trust-source-arn-star":
    reader_trust["Condition"] = {"ArnLike": {"aws:SourceArn": "*"}}
if BREAK == "trust-star-string":
    reader_trust = {"Effect": "Allow", "Principal": "*", "Action": ["sts:AssumeRole", "sts:TagSession"]}
reader = aws.iam.Role(
    "org-reader",
    assume_role_policy={"Version": "2012-10-17", "Statement": [reader_trust]},
    tags=TAGS,
    opts=opts,
)
read_actions: object = ["s3:GetObject", "s3:ListBucket"]
if BREAK == "star-everything":
    read_actions = "*"
if BREAK == "not-action":
    read_actions = None
reader_statement: dict = {"Effect": "Allow", "Resource": [DATA, f"{DATA}/*"]}
if read_actions is not None:
    reader_statement["Action"] = read_actions
else:
    reader_statement["NotAction"] = ["iam:*", "organizations:*"]
    reader_statement["Resource"] = "*"
if BREAK == "star-everything":
    reader_statement["Resource"] = "*"
reader_policy = aws.iam.Policy(
    "org-read",
    policy=json.dumps({"Version": "2012-10-17", "Statement": reader_statement}),
    tags=TAGS,
    opts=opts,
)
aws.iam.PolicyAttachment("org-read", roles=[reader.name], policy_arn=reader_policy.arn, opts=opts)
exclusive = [reader_policy.arn]
if BREAK == "iamfull-exclusive":
    exclusive.append("arn:aws:iam::aws:policy/IAMFullAccess")
aws.iam.RolePolicyAttachmentsExclusive(
    "org-reader-only", role_name=reader.name, policy_arns=exclusive, opts=opts
)

# Operators: people, in a group, with read-only tooling.
operators = aws.iam.Group("operators", opts=opts)
alice = aws.iam.User("alice", tags=TAGS, opts=opts)
aws.iam.GroupMembership("operators", group=operators.name, users=[alice.name], opts=opts)
group_statement: dict = {
    "Effect": "Allow",
    "Action": ["cloudwatch:GetMetricData", "ec2:Describe*"],
    "Resource": "*",
}
if BREAK == "group-unscoped-delete":
    group_statement = {"Effect": "Allow", "Action": "s3:DeleteObject", "Resource": "*"}
aws.iam.GroupPolicy(
    "operators-observe",
    group=operators.name,
    policy=json.dumps({"Version": "2012-10-17", "Statement": [group_statement]}),
    opts=opts,
)
user_statement: dict = {
    "Effect": "Allow",
    "Action": "iam:GetUser",
    "Resource": f"arn:aws:iam::{ACCOUNT}:user/alice",
}
if BREAK == "user-attach-policy":
    user_statement = {
        "Effect": "Allow",
        "Action": ["iam:AttachRolePolicy"],
        "Resource": f"arn:aws:iam::{ACCOUNT}:role/ci",
    }
if BREAK == "user-iam-star":
    user_statement = {"Effect": "Allow", "Action": ["iam:*"], "Resource": f"arn:aws:iam::{ACCOUNT}:role/ci"}
aws.iam.UserPolicy(
    "alice-self",
    user=alice.name,
    policy=json.dumps({"Version": "2012-10-17", "Statement": user_statement}),
    opts=opts,
)
if BREAK == "admin-attachment-govcloud":
    aws.iam.RolePolicyAttachment(
        "ci-admin", role=ci.name, policy_arn="arn:aws-us-gov:iam::aws:policy/AdministratorAccess", opts=opts
    )
if BREAK == "poweruser-users":
    aws.iam.PolicyAttachment(
        "power", users=[alice.name], policy_arn="arn:aws:iam::aws:policy/PowerUserAccess", opts=opts
    )
if BREAK == "admin-group-china":
    aws.iam.GroupPolicyAttachment(
        "operators-admin",
        group=operators.name,
        policy_arn="arn:aws-cn:iam::aws:policy/AdministratorAccess",
        opts=opts,
    )
if BREAK == "sysadmin-job-function":
    aws.iam.GroupPolicyAttachment(
        "operators-sysadmin",
        group=operators.name,
        policy_arn="arn:aws:iam::aws:policy/job-function/SystemAdministrator",
        opts=opts,
    )
if BREAK == "access-key":
    aws.iam.AccessKey("alice-key", user=alice.name, opts=opts)

aws.budgets.Budget(
    "training-iam",
    budget_type="COST",
    limit_amount="2000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        aws.budgets.BudgetNotificationArgs(
            comparison_operator="GREATER_THAN",
            threshold=80,
            threshold_type="PERCENTAGE",
            notification_type="FORECASTED",
            subscriber_email_addresses=["ml-platform@example.com"],
        )
    ],
    tags=TAGS,
    opts=opts,
)

pulumi.export("trainer_profile", trainer.profile.name)
