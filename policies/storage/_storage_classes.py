"""Lifecycle storage classes per cloud: the youngest age a transition accepts and the minimum
storage duration billed after the move.

S3: STANDARD_IA and ONEZONE_IA need objects at least 30 days old (the API rejects earlier
transitions) and bill 30 days; GLACIER_IR and GLACIER bill 90 days, DEEP_ARCHIVE 180;
INTELLIGENT_TIERING has neither limit. It moves objects to its own infrequent tier after 30 days
without access, which is why it is the infrequent-access capable class for early transitions.
OSS: IA 30 days, Archive 60, ColdArchive and DeepColdArchive 180, any age accepted.
COS: STANDARD_IA, MAZ_STANDARD_IA and INTELLIGENT_TIERING 30 days, ARCHIVE 90, DEEP_ARCHIVE 180,
any age accepted.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StorageClass:
    name: str
    min_age_days: int
    min_duration_days: int


def _table(*classes: tuple[str, int, int]) -> dict[str, StorageClass]:
    return {name.upper(): StorageClass(name, age, duration) for name, age, duration in classes}


CLASSES: dict[str, dict[str, StorageClass]] = {
    "aws": _table(
        ("INTELLIGENT_TIERING", 0, 0),
        ("STANDARD_IA", 30, 30),
        ("ONEZONE_IA", 30, 30),
        ("GLACIER_IR", 0, 90),
        ("GLACIER", 0, 90),
        ("DEEP_ARCHIVE", 0, 180),
    ),
    "alicloud": _table(
        ("IA", 0, 30), ("Archive", 0, 60), ("ColdArchive", 0, 180), ("DeepColdArchive", 0, 180)
    ),
    "tencentcloud": _table(
        ("STANDARD_IA", 0, 30),
        ("MAZ_STANDARD_IA", 0, 30),
        ("INTELLIGENT_TIERING", 0, 30),
        ("MAZ_INTELLIGENT_TIERING", 0, 30),
        ("ARCHIVE", 0, 90),
        ("DEEP_ARCHIVE", 0, 180),
    ),
}
S3_COLD = frozenset({"GLACIER_IR", "GLACIER", "DEEP_ARCHIVE"})
S3_IA = frozenset({"STANDARD_IA", "ONEZONE_IA"})


def storage_class(cloud: str, name: str) -> StorageClass | None:
    return CLASSES[cloud].get(name.upper())


def cheapest_fit(cloud: str, transition_days: int, expire_days: int) -> StorageClass | None:
    """An infrequent-access capable class that accepts a move at `transition_days` and whose minimum
    storage duration ends by `expire_days`; None when the cloud has none."""
    for candidate in CLASSES[cloud].values():
        if (
            candidate.min_age_days <= transition_days
            and transition_days + candidate.min_duration_days <= expire_days
        ):
            return candidate
    return None
