"""Lifecycle storage classes per cloud: the youngest age a transition accepts and the minimum
storage duration billed after the move.

S3: STANDARD_IA and ONEZONE_IA need objects at least 30 days old (the API rejects earlier
transitions) and bill 30 days; GLACIER_IR and GLACIER bill 90 days, DEEP_ARCHIVE 180;
INTELLIGENT_TIERING has neither limit, but moves objects to its own cheaper infrequent tier only after
30 days without access, charging a transition fee and a monitoring fee per object meanwhile: a move
pays off only for objects kept more than 30 days after it (`cheaper_after_days`).
OSS: IA 30 days, Archive 60, ColdArchive and DeepColdArchive 180, any age accepted. OSS counts the IA
and Archive minimums from the object's last modification (its creation, for a lifecycle-managed
object), not from the move: an object moved to IA at day 7 and deleted at day 30 has met IA's 30
days. Only ColdArchive and DeepColdArchive count from the move
(https://www.alibabacloud.com/help/en/oss/product-overview/billing-method-for-objects-whose-storage-duration-is-less-than-the-minimum-storage-duration).
COS: STANDARD_IA, MAZ_STANDARD_IA and INTELLIGENT_TIERING 30 days, ARCHIVE 90, DEEP_ARCHIVE 180,
any age accepted. COS's billing page bills a class's data stored less than its minimum as stored
for the minimum and says nothing of counting from the upload
(https://www.tencentcloud.com/document/product/436/40099), so the minimum is counted from the move,
as on S3, whose minimums are time spent in the class
(https://docs.aws.amazon.com/AmazonS3/latest/userguide/lifecycle-transition-general-considerations.html).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpufleet.components.clouds import part_values
from gpufleet.policies.storage._buckets import PARTS


@dataclass(frozen=True)
class StorageClass:
    name: str
    min_age_days: int
    min_duration_days: int
    # Days after the move before an object is billed less than in the class it came from (0: at once).
    cheaper_after_days: int = 0
    # Whether the minimum storage duration counts from the object's creation rather than from the move.
    counted_from_creation: bool = False

    def billed_until(self, transition_days: int) -> int:
        """The day (of the object's age) until which an object moved at `transition_days` is billed
        at least."""
        if self.counted_from_creation:
            return max(transition_days, self.min_duration_days)
        return transition_days + self.min_duration_days

    def pays_off(self, transition_days: int, expire_days: int) -> bool:
        """Whether an object moved at `transition_days` and deleted at `expire_days` is ever cheaper."""
        return self.cheaper_after_days == 0 or transition_days + self.cheaper_after_days < expire_days


def _table(*classes: tuple[Any, ...]) -> dict[str, StorageClass]:
    """A cloud's classes by upper-case name, from its module's `STORAGE_CLASSES` rows (the fields of
    `StorageClass` in order)."""
    built = [StorageClass(*entry) for entry in classes]
    return {entry.name.upper(): entry for entry in built}


# Each cloud's classes, from the `STORAGE_CLASSES` of its storage module (`aws`, `alicloud`, ...).
CLASSES: dict[str, dict[str, StorageClass]] = {
    cloud: _table(*rows) for cloud, rows in part_values(PARTS, "STORAGE_CLASSES").items()
}


def storage_class(cloud: str, name: str) -> StorageClass | None:
    return CLASSES[cloud].get(name.upper())


def cheapest_fit(cloud: str, transition_days: int, expire_days: int) -> StorageClass | None:
    """An infrequent-access capable class that accepts a move at `transition_days`, whose minimum
    storage duration ends by `expire_days` and which pays off before then; None when the cloud has
    none. Each minimum is counted as the cloud bills it (`billed_until`): from the object's creation
    for OSS IA and Archive, so a move at day 7 with a 30-day expiry fits IA there; from the move
    elsewhere (S3, OSS's ColdArchive and DeepColdArchive, COS, whose documentation does not say)."""
    for candidate in CLASSES[cloud].values():
        if (
            candidate.min_age_days <= transition_days < expire_days
            and candidate.billed_until(transition_days) <= expire_days
            and candidate.pays_off(transition_days, expire_days)
        ):
            return candidate
    return None
