"""A joined Tencent Cloud pool (:mod:`gpufleet.components.pools.join`): its join secret, its role's read
on it and the boot script's Tencent parts.

- The secret: a ``tencentcloud.ssm.Secret`` (SSM, Secrets Manager) under the site's key, built *without*
  a version: the operator adds the join command as version :data:`SECRET_VERSION` (``tccli ssm
  PutSecretValue``) and replaces it on rotation (``tccli ssm UpdateSecret``), so it is never in the
  program or the state.
- The read: a CAM policy allowing ``ssm:GetSecretValue`` on that secret alone, attached to the site's
  instance role (Tencent sites share one role across their pools; it already decrypts with the site's
  key: :mod:`gpufleet.components.identity.tencentcloud`).
- The boot script reads it with the Tencent Cloud CLI (``tccli``, in the image) as the instance's CAM
  role (``--use-cvm-role``), and the instance's zone and id from the metadata service for
  ``--provider-id`` ``qcloud:///<zone>/<instance id>``; it locks the password logins CVM sets first.
- cluster-autoscaler's Tencent provider requires TKE (its README: "Cluster Autoscaler requires TKE"; its
  manager reads the cluster's node pools through the TKE API with a ``CLUSTER_ID``): it does not size
  AS groups of a cluster that is not TKE's. The nodes join and run work, but nothing scales their
  groups until a Tencent autoscaler is in place (docs/hybrid.md; ``gpufleet plan`` says so).
"""

from __future__ import annotations

import base64
import json

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.pools.join import PoolJoin, render_join
from gpufleet.components.pools.tencentcloud import LOCK_LOGINS, physical
from gpufleet.components.pools.workload import MAX_USER_DATA_BYTES

METADATA = "http://metadata.tencentyun.com/latest/meta-data"
SECRET_VERSION = "current"  # the version id the operator writes and the boot script reads
RECOVERY_WINDOW_DAYS = 7  # ssm.Secret: 0..30
TKE_REQUIRED = (
    "tencentcloud: cluster-autoscaler's Tencent provider requires a TKE cluster; it does not size the "
    "AS groups of nodes joined to the on-prem cluster (docs/hybrid.md)"
)


def identity_script() -> str:
    """ZONE, REGION and INSTANCE from the CVM metadata service."""
    return (
        f"ZONE=$(curl -fsS {METADATA}/placement/zone)\n"
        f"REGION=$(curl -fsS {METADATA}/placement/region)\n"
        f"INSTANCE=$(curl -fsS {METADATA}/instance-id)\n"
        "command -v tccli >/dev/null 2>&1 \\\n"
        "  || { log 'tccli (the Tencent Cloud CLI) is not in the image'; exit 1; }\n"
    )


def read_secret(secret: str, region: str) -> str:
    """Print the secret's current version as the instance's CAM role."""
    return (
        f"tccli ssm GetSecretValue --region {region} --SecretName {secret} --VersionId {SECRET_VERSION} "
        "--use-cvm-role | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"SecretString\"])'"
    )


def join_user_data(join: PoolJoin, secret: str, region: str) -> str:
    """The joined pool's user data (base64): lock the logins, then join."""
    preamble = LOCK_LOGINS.removeprefix("#!/bin/bash\n")
    script = render_join(
        join,
        identity=identity_script(),
        read_secret=read_secret(secret, region),
        secret=secret,
        preamble=preamble,
    ).encode()
    if len(script) > MAX_USER_DATA_BYTES:
        raise ValueError(f"the join script is {len(script)} bytes; CVM takes at most {MAX_USER_DATA_BYTES}")
    return base64.b64encode(script).decode()


def read_document(region: str, uin: str, secret: str) -> str:
    """The CAM policy: read this secret, nothing else."""
    resource = f"qcs::ssm:{region}:uin/{uin}:secret/creatorUin/{uin}/{secret}"
    statements = [{"effect": "allow", "action": ["ssm:GetSecretValue"], "resource": [resource]}]
    return json.dumps({"version": "2.0", "statement": statements}, sort_keys=True)


def join_secret(
    name: str,
    *,
    secret: str,
    pool: str,
    region: str,
    uin: pulumi.Input[str],
    key_id: pulumi.Input[str],
    role_name: pulumi.Input[str],
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> tencentcloud.ssm.Secret:
    """``-join`` (the secret, no version), ``-join-read`` (the CAM policy) and ``-join-read-attach``."""
    found = tencentcloud.ssm.Secret(
        f"{name}-join",
        secret_name=secret,
        description=f"gpufleet pool {pool}: kubeadm join command for its nodes (docs/hybrid.md)",
        kms_key_id=key_id,
        is_enabled=True,
        recovery_window_in_days=RECOVERY_WINDOW_DAYS,
        tags=tags,
        opts=opts,
    )
    policy = tencentcloud.cam.Policy(
        f"{name}-join-read",
        name=physical(f"{secret}-read"),
        document=pulumi.Output.from_input(uin).apply(lambda u: read_document(region, str(u), secret)),
        description=f"gpufleet pool {pool}: read its join secret",
        opts=opts,
    )
    tencentcloud.cam.RolePolicyAttachmentByName(
        f"{name}-join-read-attach", role_name=role_name, policy_name=policy.name, opts=opts
    )
    return found
