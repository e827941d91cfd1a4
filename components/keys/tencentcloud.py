"""The Tencent Cloud site's KMS key: a customer master key with rotation, or a BYOK key.

Tencent KMS keys are created disabled unless ``is_enabled`` is set, and a disabled key encrypts
nothing: the site's key is always created enabled. Rotation on Tencent is an on/off flag (yearly) and
applies to keys whose material KMS made; a BYOK key (``kms.ExternalKey``) cannot rotate. Its material
comes from the secret config value ``gpufleet:byokMaterial`` (``byok_material: config``), or is
imported out of band (``imported``: the key is tagged so GF-OPS-005 knows it is usable), or is still
to come (``pending``: the site builds the key alone on the first deploy; see docs/first-deploy.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.keys.material import MATERIAL_TAG
from gpufleet.components.tags import check_cost_tags

# The algorithm the material is wrapped with when ImportKeyMaterial is called (out of band or by the
# provider with key_material_base64).
WRAPPING_ALGORITHM = "RSAES_OAEP_SHA_256"


@dataclass(frozen=True, kw_only=True)
class TencentKeyArgs:
    """``encryption`` "sse-kms": a rotating key whose material KMS makes; "byok": an external key.
    ``material`` (byok only): how the material arrives; ``key_material_base64`` (a secret) with
    "config". ``alias`` is the key's alias in the region (letters, digits, ``_`` and ``-``)."""

    encryption: Literal["sse-kms", "byok"]
    alias: str
    tags: Mapping[str, str]
    provider: pulumi.ProviderResource | None = None
    material: Literal["pending", "imported", "config"] | None = None
    key_material_base64: pulumi.Input[str] | None = None
    description: str = "gpufleet checkpoints and volumes"
    pending_delete_days: int = 7

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.encryption not in ("sse-kms", "byok"):
            problems.append(f"encryption: {self.encryption!r} is not one of 'sse-kms', 'byok'")
        if self.encryption == "byok" and self.material is None:
            problems.append("material: a byok key needs one of 'pending', 'imported', 'config'")
        if self.encryption != "byok" and self.material is not None:
            problems.append("material: only byok keys take imported material")
        if (self.material == "config") != (self.key_material_base64 is not None):
            problems.append("key_material_base64: given exactly when material is 'config'")
        if not 7 <= self.pending_delete_days <= 30:
            problems.append(f"pending_delete_days: {self.pending_delete_days} is outside 7..30")
        if problems:
            raise ValueError("TencentKeyArgs: " + "; ".join(problems))


class TencentKey(pulumi.ComponentResource):
    """``kms.Key`` (enabled, rotating) or ``kms.ExternalKey`` (BYOK), named ``<name>-key``."""

    key_id: pulumi.Output[str]
    byok: bool

    def __init__(self, name: str, args: TencentKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:keys:TencentKey", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=args.provider)
        self.byok = args.encryption == "byok"
        key: tencentcloud.kms.Key | tencentcloud.kms.ExternalKey
        if self.byok:
            tags = {**args.tags, MATERIAL_TAG: "imported"} if args.material == "imported" else dict(args.tags)
            key = tencentcloud.kms.ExternalKey(
                f"{name}-key",
                alias=args.alias,
                description=f"{args.description} (BYOK)",
                wrapping_algorithm=WRAPPING_ALGORITHM,
                key_material_base64=(
                    pulumi.Output.secret(args.key_material_base64)
                    if args.key_material_base64 is not None
                    else None
                ),
                # 0: the material never expires. A key without material cannot be enabled yet.
                valid_to=0,
                is_enabled=True if args.material == "config" else None,
                pending_delete_window_in_days=args.pending_delete_days,
                tags=tags,
                opts=child,
            )
        else:
            key = tencentcloud.kms.Key(
                f"{name}-key",
                alias=args.alias,
                description=args.description,
                key_usage="ENCRYPT_DECRYPT",
                is_enabled=True,
                key_rotation_enabled=True,
                pending_delete_window_in_days=args.pending_delete_days,
                tags=dict(args.tags),
                opts=child,
            )
        self.key_id = key.id
        self.register_outputs({"key_id": self.key_id})
