"""A joined AWS pool (:mod:`gpufleet.components.pools.join`): its join secret, the role's read on it,
the boot script's AWS parts and the Auto Scaling group's cluster-autoscaler tags.

- The secret: an ``aws.secretsmanager.Secret`` under the fleet's KMS key, built *without* a value (no
  ``SecretVersion``): the operator puts the join command in with ``aws secretsmanager
  put-secret-value``, so it is never in the program or the state (a version resource would be read
  back by ``pulumi refresh``, and put back over the operator's once Secrets Manager retires it). The
  instances reach Secrets Manager through the site's ``secretsmanager`` interface endpoint
  (:data:`ENDPOINT_SERVICE`; the site adds it when it has a joined pool).
- The read: ``secretsmanager:GetSecretValue`` on that secret alone, and ``kms:Decrypt`` on the fleet
  key only through Secrets Manager in the region (``kms:ViaService``).
- The boot script reads it with the AWS CLI v2 of the image (the Deep Learning Base AMI ships it) under
  the instance profile's role, and the instance's zone and id from IMDSv2 for ``--provider-id``
  ``aws:///<zone>/<instance id>``.
- The group's tags: cluster-autoscaler's auto-discovery (``k8s.io/cluster-autoscaler/enabled`` and
  ``k8s.io/cluster-autoscaler/<cluster>``) and the node template it scales up from zero with (the
  flavor's label and taint, the GPUs of one instance), not propagated to the instances
  (cluster-autoscaler's AWS README, "Auto-Discovery Setup" and "Scaling a node group to 0").
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document
from gpufleet.components.pools.join import PoolJoin, render_join, scaler_tags
from gpufleet.components.pools.workload import MAX_USER_DATA_BYTES

ENDPOINT_SERVICE = "secretsmanager"
GPU_RESOURCE = "nvidia.com/gpu"
TEMPLATE_TAG = "k8s.io/cluster-autoscaler/node-template"
RECOVERY_WINDOW_DAYS = 7  # Secrets Manager takes 7..30 (or 0: no recovery)
IMDS = "http://169.254.169.254/latest"


def discovery_tags(join: PoolJoin) -> dict[str, str]:
    """The group tags the fleet's AWS autoscaler discovers it by (``--node-group-auto-discovery``) and
    builds the node template of a node that does not exist yet from."""
    taint = join.taint
    return {
        "k8s.io/cluster-autoscaler/enabled": "true",
        f"k8s.io/cluster-autoscaler/{join.cluster}": "owned",
        **{f"{TEMPLATE_TAG}/label/{k}": v for k, v in sorted(join.node_labels.items())},
        f"{TEMPLATE_TAG}/taint/{taint['key']}": f"{taint['value']}:{taint['effect']}",
        f"{TEMPLATE_TAG}/resources/{GPU_RESOURCE}": str(join.gpus_per_instance),
    }


def group_tags(join: PoolJoin | None) -> dict[str, str]:
    """The tags the group carries alone (not propagated): who sizes it, and, for a joined pool, the
    autoscaler's discovery and node-template tags."""
    return {**scaler_tags(join), **(discovery_tags(join) if join is not None else {})}


def identity_script() -> str:
    """ZONE, REGION and INSTANCE from IMDSv2 (the launch template requires tokens)."""
    return (
        f'imds_token=$(curl -fsS -X PUT "{IMDS}/api/token" -H "X-aws-ec2-metadata-token-ttl-seconds: 300")\n'
        f'md() {{ curl -fsS -H "X-aws-ec2-metadata-token: $imds_token" "{IMDS}/meta-data/$1"; }}\n'
        "ZONE=$(md placement/availability-zone)\n"
        "REGION=$(md placement/region)\n"
        "INSTANCE=$(md instance-id)\n"
        "command -v aws >/dev/null 2>&1 || { log 'aws (the AWS CLI v2) is not in the image'; exit 1; }\n"
    )


def read_secret(secret: str, region: str) -> str:
    """Print the secret's current value with the instance profile's credentials."""
    return (
        f"aws secretsmanager get-secret-value --region {region} --secret-id {secret} "
        "--query SecretString --output text"
    )


def join_user_data(join: PoolJoin | None, secret: str, region: str) -> str:
    """The joined pool's launch-template user data (base64)."""
    if join is None:
        raise AssertionError("join_user_data without a join")
    script = render_join(
        join, identity=identity_script(), read_secret=read_secret(secret, region), secret=secret
    ).encode()
    if len(script) > MAX_USER_DATA_BYTES:
        raise ValueError(f"the join script is {len(script)} bytes; EC2 takes at most {MAX_USER_DATA_BYTES}")
    return base64.b64encode(script).decode()


def read_statements(
    secret_arn: pulumi.Input[str], kms_key_arn: pulumi.Input[str], region: pulumi.Input[str]
) -> list[Statement]:
    """The instance role reads its pool's join secret and no other, and decrypts it through Secrets
    Manager only."""
    return [
        Statement(sid="ReadJoinSecret", actions=["secretsmanager:GetSecretValue"], resources=[secret_arn]),
        Statement(
            sid="DecryptJoinSecret",
            actions=["kms:Decrypt"],
            resources=[kms_key_arn],
            conditions={
                "StringEquals": {
                    "kms:ViaService": pulumi.Output.concat("secretsmanager.", region, ".amazonaws.com")
                }
            },
        ),
    ]


def join_secret(
    name: str,
    *,
    secret: str,
    pool: str,
    kms_key_arn: pulumi.Input[str],
    role_name: pulumi.Input[str],
    region: str | None,
    region_name: pulumi.Input[str],
    tags: Mapping[str, str],
    opts: pulumi.ResourceOptions,
) -> aws.secretsmanager.Secret:
    """``-join``: the pool's join secret (no value: the operator's), and ``-join-read``: its role's
    read on it."""
    found = aws.secretsmanager.Secret(
        f"{name}-join",
        name=secret,
        description=(
            f"gpufleet pool {pool}: kubeadm join command for its nodes; put the output of "
            "kubeadm token create --print-join-command (docs/hybrid.md)"
        ),
        kms_key_id=kms_key_arn,
        recovery_window_in_days=RECOVERY_WINDOW_DAYS,
        region=region,
        tags=dict(tags),
        opts=opts,
    )
    aws.iam.RolePolicy(
        f"{name}-join-read",
        role=role_name,
        policy=document(read_statements(found.arn, kms_key_arn, region_name)),
        opts=opts,
    )
    return found
