"""Write and permissions-management actions that accept resource-level scoping, per cloud.

A curated subset for the services a GPU fleet touches (object storage, keys, identity, instances,
logs, Systems Manager). Every action listed accepts a resource ARN/ACS/QCS name in its `Resource`
element, so granting it on `*` is never necessary. Sources:

- AWS: Service Authorization Reference, "Actions defined by" pages for Amazon S3, AWS KMS, IAM,
  Amazon EC2, CloudWatch Logs and Systems Manager (access levels Write / Permissions management,
  with a resource type). Actions without a resource type (`ssmmessages:*`, `kms:CreateKey`) and
  `ssm:UpdateInstanceInformation` (granted on `*` by AWS's own AmazonSSMManagedInstanceCore) are
  left out on purpose.
- Alibaba Cloud: RAM "Services that work with RAM" authorization tables for OSS, ECS, KMS and RAM.
- Tencent Cloud: CAM "Services that support CAM" resource-level tables for COS, CVM, KMS and CAM.

Matching is case-insensitive (`gpufleet.policies.documents.action_matches`).
"""

from __future__ import annotations

from gpufleet.components.clouds import cloud_parts, part_values

# Each cloud's table is `SCOPED_WRITES` (service -> space-separated action names) of its module
# (`policies/iam/aws.py`, ...).
PARTS = cloud_parts("gpufleet.policies.iam")


def _expand(table: dict[str, str]) -> tuple[str, ...]:
    return tuple(f"{service}:{name}" for service, names in table.items() for name in names.split())


# cloud -> `service:Action` names, in the order the cloud's table lists them
SCOPED_WRITE_ACTIONS: dict[str, tuple[str, ...]] = {
    cloud: _expand(table) for cloud, table in part_values(PARTS, "SCOPED_WRITES").items()
}
