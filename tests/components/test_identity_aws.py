from __future__ import annotations

import pytest

from gpufleet.components.identity.aws import InstanceIdentity, InstanceIdentityArgs, permission_statements
from gpufleet.components.identity.documents import lint

from .builders import ACCOUNT, KEY_ARN, REGION, TAGS
from .conftest import Runner, document, statements_by_sid

BUCKET_ARN = "arn:aws:s3:::ckpt"
AGENT_LOGS = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/gpufleet/dev/agent"
SESSION_LOGS = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/gpufleet/dev/sessions"


def _args(**overrides: object) -> InstanceIdentityArgs:
    values: dict[str, object] = {
        "bucket_arn": BUCKET_ARN,
        "bucket_region": REGION,
        "kms_key_arns": [KEY_ARN],
        "log_group_arns": [AGENT_LOGS, SESSION_LOGS],
        "tags": TAGS,
        "metric_namespace": "gpufleet/gpufleet/dev",
    }
    values.update(overrides)
    return InstanceIdentityArgs(**values)  # type: ignore[arg-type]


def test_children(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: InstanceIdentity("id", _args()))
    assert mocks.names_by_type() == [
        ("aws:iam/instanceProfile:InstanceProfile", "id-profile"),
        ("aws:iam/role:Role", "id-role"),
        ("aws:iam/rolePolicy:RolePolicy", "id-permissions"),
        ("gpufleet:identity:InstanceIdentity", "id"),
    ]
    assert mocks.of_type("aws:ec2/keyPair:KeyPair") == []
    # No managed policy: AmazonSSMManagedInstanceCore would grant ssm:GetParameter* on every parameter.
    assert mocks.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment") == []


def test_role_trusts_ec2_only_and_gets_session_manager(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: InstanceIdentity("id", _args()))
    trust = document(mocks.one("aws:iam/role:Role", "id-role").inputs, "assumeRolePolicy")
    assert trust["Statement"] == [
        {
            "Sid": "Ec2AssumesRole",
            "Effect": "Allow",
            "Action": ["sts:AssumeRole"],
            "Principal": {"Service": ["ec2.amazonaws.com"]},
        }
    ]
    permissions = mocks.one("aws:iam/rolePolicy:RolePolicy", "id-permissions").inputs
    assert permissions["role"] == "id-role-0a1b2c3"
    # AWS's minimal instance profile permissions for Session Manager, and nothing of Run Command's,
    # State Manager's or Parameter Store's.
    assert statements_by_sid(permissions)["SessionManagerChannels"] == {
        "Sid": "SessionManagerChannels",
        "Effect": "Allow",
        "Action": [
            "ssm:UpdateInstanceInformation",
            "ssmmessages:CreateControlChannel",
            "ssmmessages:CreateDataChannel",
            "ssmmessages:OpenControlChannel",
            "ssmmessages:OpenDataChannel",
        ],
        "Resource": ["*"],
    }
    actions = [a for s in statements_by_sid(permissions).values() for a in s["Action"]]
    assert not [a for a in actions if a.startswith(("ssm:Get", "ec2messages:", "ssm:*"))]
    assert (
        mocks.one("aws:iam/instanceProfile:InstanceProfile", "id-profile").inputs["role"] == "id-role-0a1b2c3"
    )


def test_permissions_are_scoped_to_prefixes_key_and_log_groups(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: InstanceIdentity("id", _args()))
    statements = statements_by_sid(mocks.one("aws:iam/rolePolicy:RolePolicy", "id-permissions").inputs)
    assert {sid: (s["Action"], s["Resource"]) for sid, s in statements.items()} == {
        "SessionManagerChannels": (
            [
                "ssm:UpdateInstanceInformation",
                "ssmmessages:CreateControlChannel",
                "ssmmessages:CreateDataChannel",
                "ssmmessages:OpenControlChannel",
                "ssmmessages:OpenDataChannel",
            ],
            ["*"],
        ),
        "ListOwnPrefixes": (["s3:ListBucket"], [BUCKET_ARN]),
        "ReadData": (["s3:GetObject"], [f"{BUCKET_ARN}/data/*"]),
        "ReadWriteCheckpoints": (
            ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
            [f"{BUCKET_ARN}/checkpoints/*"],
        ),
        "UseBucketKeyThroughS3": (["kms:Decrypt", "kms:GenerateDataKey"], [KEY_ARN]),
        "WriteOwnLogs": (
            ["logs:CreateLogStream", "logs:PutLogEvents"],
            [AGENT_LOGS, SESSION_LOGS, f"{AGENT_LOGS}:log-stream:*", f"{SESSION_LOGS}:log-stream:*"],
        ),
        "FindLogGroups": (["logs:DescribeLogGroups"], ["*"]),
        "PublishGpuMetrics": (["cloudwatch:PutMetricData"], ["*"]),
        "ReadInstanceTags": (["ec2:DescribeTags"], ["*"]),
    }
    # S3 is the only way the role may use the bucket's key, and never to Encrypt (S3 does not need it).
    assert statements["UseBucketKeyThroughS3"]["Condition"] == {
        "StringEquals": {"kms:ViaService": f"s3.{REGION}.amazonaws.com"}
    }
    assert statements["ListOwnPrefixes"]["Condition"] == {
        "StringLike": {"s3:prefix": ["data/*", "checkpoints/*"]}
    }
    # The stack's own namespace: a node of another stack cannot publish what this stack scales on.
    assert statements["PublishGpuMetrics"]["Condition"] == {
        "StringEquals": {"cloudwatch:namespace": "gpufleet/gpufleet/dev"}
    }


def test_session_key_is_decrypt_only_for_session_data_keys(run_pulumi: Runner) -> None:
    session_key = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/sessions"
    mocks = run_pulumi(lambda: InstanceIdentity("id", _args(session_kms_key_arns=[session_key])))
    statements = statements_by_sid(mocks.one("aws:iam/rolePolicy:RolePolicy", "id-permissions").inputs)
    assert statements["DecryptSessions"] == {
        "Sid": "DecryptSessions",
        "Effect": "Allow",
        "Action": ["kms:Decrypt"],
        "Resource": [session_key],
        # Session Manager puts the session's id in the encryption context of each data key.
        "Condition": {"Null": {"kms:EncryptionContext:aws:ssm:SessionId": "false"}},
    }
    assert not any("kms:Encrypt" in s["Action"] for s in statements.values())


def test_permission_statements_pass_the_linter(run_pulumi: Runner) -> None:
    problems: list[str] = []
    run_pulumi(lambda: problems.extend(lint(permission_statements(_args()))))
    assert problems == []


def test_args_reject_wildcard_prefixes_and_missing_keys() -> None:
    with pytest.raises(ValueError) as raised:
        _args(kms_key_arns=[], data_prefix="*")
    assert str(raised.value) == (
        "InstanceIdentityArgs: kms_key_arns: at least one key is needed to read encrypted checkpoints; "
        "data_prefix: '*' must look like 'name/' without wildcards"
    )
    with pytest.raises(ValueError, match="bucket_region: 'east' is not an AWS region name"):
        _args(bucket_region="east")


def test_args_refuse_the_agents_shared_namespace() -> None:
    with pytest.raises(ValueError) as raised:
        _args(metric_namespace="CWAgent")
    assert str(raised.value) == (
        "InstanceIdentityArgs: metric_namespace: 'CWAgent' is shared by every stack; give the stack's own"
    )
