"""The fleet's KMS key on Alibaba Cloud, one per site (KMS keys never leave their region).

``sse-kms``: a customer master key whose material KMS makes, rotated automatically once a year.
``byok``: a key of origin ``EXTERNAL`` whose material the owner imports out of band (KMS
``GetParametersForImport`` + ``ImportKeyMaterial``): pulumi-alicloud has no resource that imports
material, so until the import the key is ``PendingImport`` and nothing can encrypt with it. The site
builds such a key alone on the first deploy (``storage.checkpoints.byok_material: pending``), see
docs/alicloud.md. KMS does not rotate imported material: rotate by importing into a new key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.keys.material import MATERIAL_TAG
from gpufleet.components.tags import check_cost_tags

ROTATION_INTERVAL = "365d"


@dataclass(frozen=True, kw_only=True)
class AlicloudKeyArgs:
    """``material_imported`` (byok): the owner has imported the material in an earlier deployment; the
    key is tagged ``gpufleet:key-material = imported`` so GF-OPS-005 knows it is usable."""

    encryption: Literal["sse-kms", "byok"]
    tags: Mapping[str, str]
    description: str = "gpufleet checkpoints, disks, queues and logs"
    pending_window_days: int = 30
    material_imported: bool = False

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.encryption not in ("sse-kms", "byok"):
            problems.append(f"encryption: {self.encryption!r} is not one of 'sse-kms', 'byok'")
        if self.material_imported and self.encryption != "byok":
            problems.append("material_imported: applies to byok keys only")
        if not 7 <= self.pending_window_days <= 366:
            problems.append(f"pending_window_days: {self.pending_window_days} is outside 7..366")
        if problems:
            raise ValueError("AlicloudKeyArgs: " + "; ".join(problems))


class AlicloudKey(pulumi.ComponentResource):
    """``alicloud.kms.Key`` (rotating, or origin EXTERNAL) with an alias ``alias/<name>``."""

    key_id: pulumi.Output[str]
    key_arn: pulumi.Output[str]
    byok: bool

    def __init__(self, name: str, args: AlicloudKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:keys:AlicloudKey", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.byok = args.encryption == "byok"
        tags = {**args.tags, MATERIAL_TAG: "imported"} if args.material_imported else dict(args.tags)
        if self.byok:
            key = alicloud.kms.Key(
                f"{name}-key",
                description=f"{args.description} (BYOK)",
                origin="EXTERNAL",
                key_usage="ENCRYPT/DECRYPT",
                pending_window_in_days=args.pending_window_days,
                tags=tags,
                opts=child,
            )
        else:
            key = alicloud.kms.Key(
                f"{name}-key",
                description=args.description,
                origin="Aliyun_KMS",
                key_usage="ENCRYPT/DECRYPT",
                automatic_rotation="Enabled",
                rotation_interval=ROTATION_INTERVAL,
                pending_window_in_days=args.pending_window_days,
                tags=tags,
                opts=child,
            )
        alicloud.kms.Alias(f"{name}-alias", alias_name=f"alias/{name}", key_id=key.id, opts=child)
        self.key_id = key.id
        self.key_arn = key.arn
        self.register_outputs({"key_id": self.key_id, "key_arn": self.key_arn})
