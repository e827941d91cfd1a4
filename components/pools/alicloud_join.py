"""A joined Alibaba Cloud pool (:mod:`gpufleet.components.pools.join`): its join secret, its role's read
on it, the boot script's Alibaba parts, and the pool that has no scaling rules or alarms.

- The secret: an ``alicloud.kms.Secret`` (KMS Secrets Manager) under the site's key, created with a
  placeholder (``secret_data`` is required) that the operator replaces with ``aliyun kms PutSecretValue``;
  the program ignores later changes of its data and version. The provider's read copies the current
  value into the state on ``pulumi refresh`` (as a secret output, encrypted): docs/hybrid.md says how
  to refresh without it.
- The read: a RAM policy allowing ``kms:GetSecretValue`` on that secret alone and ``kms:Decrypt`` on
  the site's key, attached to the pool's role.
- The boot script reads it with the Alibaba Cloud CLI (``aliyun``, in the image) as the instance's RAM
  role (``--mode EcsRAMRole``) through KMS's VPC endpoint, and the instance's region and id from the
  hardened metadata service for ``--provider-id`` ``<region>.<instance id>``.
- cluster-autoscaler's Alibaba provider finds groups by ``--nodes=<min>:<max>:<group id>`` only
  (alicloud_cloud_provider.go: "only support static discovery scaling group in alicloud for now"):
  the autoscaler Deployment lists the pool's group id, so the group carries no discovery tags.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.pools.alicloud import AlicloudGpuPool
from gpufleet.components.pools.join import PoolJoin, render_join, secret_name
from gpufleet.components.pools.workload import MAX_USER_DATA_BYTES

METADATA = "http://100.100.100.200/latest"
PLACEHOLDER = "replace with: kubeadm token create --print-join-command --ttl 24h (docs/hybrid.md)"
PLACEHOLDER_VERSION = "placeholder"
RECOVERY_WINDOW_DAYS = 7  # kms.Secret: 7..30


def pool_secret_name(name_prefix: str, pool: str) -> str:
    return secret_name(f"{name_prefix}-{pool}", pool)


def identity_script() -> str:
    """ZONE, REGION, INSTANCE and the RAM role's name from the metadata service (hardened mode)."""
    return (
        f'md_token=$(curl -fsS -X PUT "{METADATA}/api/token" \\\n'
        '  -H "X-aliyun-ecs-metadata-token-ttl-seconds: 300")\n'
        f'md() {{ curl -fsS -H "X-aliyun-ecs-metadata-token: $md_token" "{METADATA}/meta-data/$1"; }}\n'
        "ZONE=$(md zone-id)\n"
        "REGION=$(md region-id)\n"
        "INSTANCE=$(md instance-id)\n"
        "ROLE=$(md ram/security-credentials/)\n"
        "command -v aliyun >/dev/null 2>&1 \\\n"
        "  || { log 'aliyun (the Alibaba Cloud CLI) is not in the image'; exit 1; }\n"
    )


def read_secret(secret: str, region: str) -> str:
    """Print the secret's current value as the instance's RAM role, through KMS's VPC endpoint."""
    return (
        f"aliyun kms GetSecretValue --SecretName {secret} --region {region} "
        f'--endpoint kms-vpc.{region}.aliyuncs.com --mode EcsRAMRole --ram-role-name "$ROLE" '
        "| python3 -c 'import json, sys; print(json.load(sys.stdin)[\"SecretData\"])'"
    )


def join_user_data(join: PoolJoin, secret: str, region: str) -> str:
    """The joined pool's launch-template user data (base64)."""
    script = render_join(
        join, identity=identity_script(), read_secret=read_secret(secret, region), secret=secret
    ).encode()
    if len(script) > MAX_USER_DATA_BYTES:
        raise ValueError(f"the join script is {len(script)} bytes; ECS takes at most {MAX_USER_DATA_BYTES}")
    return base64.b64encode(script).decode()


def read_document(region: str, account: str, secret: str, key_id: str) -> str:
    """The RAM policy: read this secret, decrypt with the site's key; nothing else."""
    return json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["kms:GetSecretValue"],
                    "Resource": [f"acs:kms:{region}:{account}:secret/{secret}"],
                },
                {
                    "Effect": "Allow",
                    "Action": ["kms:Decrypt"],
                    "Resource": [f"acs:kms:{region}:{account}:key/{key_id}"],
                },
            ],
        },
        sort_keys=True,
    )


def join_secret(
    name: str,
    *,
    secret: str,
    pool: str,
    region: str,
    account: pulumi.Input[str],
    key_id: pulumi.Input[str],
    role_name: pulumi.Input[str],
    tags: Mapping[str, str],
    opts: pulumi.ResourceOptions,
) -> alicloud.kms.Secret:
    """``-join`` (the secret, a placeholder the operator replaces), ``-join-read`` (the RAM policy) and
    ``-join-read-attach`` (on the pool's role)."""
    found = alicloud.kms.Secret(
        f"{name}-join",
        secret_name=secret,
        secret_data=PLACEHOLDER,
        version_id=PLACEHOLDER_VERSION,
        secret_type="Generic",
        encryption_key_id=key_id,
        description=f"gpufleet pool {pool}: kubeadm join command for its nodes (docs/hybrid.md)",
        recovery_window_in_days=RECOVERY_WINDOW_DAYS,
        tags=dict(tags),
        # The operator's value and version are never the program's.
        opts=pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(ignore_changes=["secretData", "versionId"])
        ),
    )
    policy_name = f"{secret}-read"
    policy = alicloud.ram.Policy(
        f"{name}-join-read",
        policy_name=policy_name,
        policy_document=pulumi.Output.all(account, key_id).apply(
            lambda ids: read_document(region, ids[0], secret, ids[1])
        ),
        description=f"gpufleet pool {pool}: read its join secret",
        tags=dict(tags),
        opts=opts,
    )
    alicloud.ram.RolePolicyAttachment(
        f"{name}-join-read-attach",
        role_name=role_name,
        policy_name=policy.policy_name.apply(lambda value: value or policy_name),
        policy_type="Custom",
        opts=opts,
    )
    return found


class JoinedAlicloudGpuPool(AlicloudGpuPool):
    """An :class:`AlicloudGpuPool` whose nodes join the on-prem cluster: cluster-autoscaler alone sizes
    its group, so it has no scaling rules and no alarms (the queue, template, group, drain hook and
    protection stay, under the same names)."""

    def _scaling(self, *args: object, **kwargs: object) -> None:
        return None
