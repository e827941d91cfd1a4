"""Tencent Cloud facts of GF-COST-009: where disk types are set (CBS storage, CVM instances, AS
launch configurations), the legacy types (with the advice an AS launch configuration takes) and the
remediation sentence."""

from __future__ import annotations

TC_AS_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"

# token -> [(path, list item key or None, default when unset or None)]
FIELDS: dict[str, list[tuple[str, str | None, str | None]]] = {
    "tencentcloud:Cbs/storage:Storage": [("storageType", None, None)],
    "tencentcloud:Instance/instance:Instance": [
        ("systemDiskType", None, None),
        ("dataDisks", "dataDiskType", None),
    ],
    TC_AS_CONFIG: [
        ("systemDiskType", None, None),
        ("dataDisks", "diskType", None),
    ],
}
# A disk type, upper-cased, -> the advice.
LEGACY = {"CLOUD_BASIC": "CLOUD_BSSD (or CLOUD_PREMIUM)"}
# The provider checks an AS launch configuration's disk types against its allow list, which has no
# CLOUD_BSSD (policies/deploy/overrides.json): the advice there is a type it takes.
LEGACY_BY_TYPE = {TC_AS_CONFIG: {"CLOUD_BASIC": "CLOUD_SSD (or CLOUD_PREMIUM)"}}
REMEDIATION = (
    "Tencent Cloud: set `storageType` / `systemDiskType` / `dataDisks[].dataDiskType` to CLOUD_BSSD or "
    "CLOUD_PREMIUM (an AS launch configuration's `systemDiskType` / `dataDisks[].diskType` to CLOUD_SSD "
    "or CLOUD_PREMIUM: the provider refuses CLOUD_BSSD there)."
)


def normalise(value: str) -> str:
    """The form `LEGACY` is keyed by (disk types are upper case)."""
    return value.upper()
