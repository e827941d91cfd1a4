"""The Tencent Cloud site's audit trail and logs: a CloudAudit track delivering every API event of
the region to a CLS topic kept ``log_retention_days`` (0: for good), and the GPU nodes' log topic.

CLS keeps a topic's logs ``period`` days; a topic without one takes its log set's (30 days), and 3640
means forever. The track is built by the cloud's home site only (``trail``): one per account is enough.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.tags import check_cost_tags

CLS_FOREVER_DAYS = 3640


def cls_period(retention_days: int) -> int:
    """CLS ``period`` for a spec retention (0: keep forever)."""
    return CLS_FOREVER_DAYS if retention_days == 0 else min(retention_days, CLS_FOREVER_DAYS)


@dataclass(frozen=True, kw_only=True)
class TencentAuditArgs:
    region: str
    tags: Mapping[str, str]
    retention_days: int = 180
    trail: bool = True
    provider: pulumi.ProviderResource | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.retention_days < 0:
            problems.append(f"retention_days: {self.retention_days} must be 0 (forever) or more")
        if problems:
            raise ValueError("TencentAuditArgs: " + "; ".join(problems))


class TencentAudit(pulumi.ComponentResource):
    """``cls.Logset``, ``cls.Topic`` ``<name>-cloudaudit`` and ``<name>-nodes``, and (``trail``) an
    ``audit.Track`` of every event into the first."""

    audit_topic_id: pulumi.Output[str]
    nodes_topic_id: pulumi.Output[str]

    def __init__(self, name: str, args: TencentAuditArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:audit:TencentAudit", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=args.provider)
        tags = dict(args.tags)
        logset = tencentcloud.cls.Logset(f"{name}-logs", logset_name=name, tags=tags, opts=child)
        period = cls_period(args.retention_days)
        topics = {
            purpose: tencentcloud.cls.Topic(
                f"{name}-{purpose}",
                topic_name=f"{name}-{purpose}",
                logset_id=logset.id,
                auto_split=True,
                max_split_partitions=10,
                partition_count=1,
                period=period,
                storage_type="hot",
                tags=tags,
                opts=child,
            )
            for purpose in ("cloudaudit", "nodes")
        }
        if args.trail:
            tencentcloud.audit.Track(
                f"{name}-track",
                name=name[:48],
                action_type="*",
                event_names=["*"],
                resource_type="*",
                status=1,
                track_for_all_members=0,
                storage=tencentcloud.audit.TrackStorageArgs(
                    storage_name=topics["cloudaudit"].id,
                    storage_prefix="cloudaudit",
                    storage_region=args.region,
                    storage_type="cls",
                ),
                opts=child,
            )
        self.audit_topic_id = topics["cloudaudit"].id
        self.nodes_topic_id = topics["nodes"].id
        self.register_outputs({"audit_topic_id": self.audit_topic_id, "nodes_topic_id": self.nodes_topic_id})
