"""AWS facts of GF-COST-009: where EBS volume types are set (volumes, launch templates, instances,
spot requests, launch configurations), the legacy types and their current replacements, the
remediation sentence and the reference page."""

from __future__ import annotations

# token -> [(path, list item key or None, default when unset or None)]
FIELDS: dict[str, list[tuple[str, str | None, str | None]]] = {
    "aws:ebs/volume:Volume": [("type", None, "gp2")],
    "aws:ec2/launchTemplate:LaunchTemplate": [("blockDeviceMappings", "ebs.volumeType", None)],
    "aws:ec2/instance:Instance": [
        ("rootBlockDevice.volumeType", None, None),
        ("ebsBlockDevices", "volumeType", None),
    ],
    "aws:ec2/spotInstanceRequest:SpotInstanceRequest": [
        ("rootBlockDevice.volumeType", None, None),
        ("ebsBlockDevices", "volumeType", None),
    ],
    "aws:ec2/launchConfiguration:LaunchConfiguration": [
        ("rootBlockDevice.volumeType", None, None),
        ("ebsBlockDevices", "volumeType", None),
    ],
}
# A volume type, lower-cased, -> the advice.
LEGACY = {"gp2": "gp3", "standard": "gp3", "io1": "io2 (or gp3)"}
REMEDIATION = "AWS: set `type` / `volumeType` to gp3 (io2 where provisioned IOPS are needed)."
URL = "https://docs.aws.amazon.com/ebs/latest/userguide/general-purpose.html"


def normalise(value: str) -> str:
    """The form `LEGACY` is keyed by (EBS types are lower case)."""
    return value.lower()
