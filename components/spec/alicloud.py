"""Alibaba Cloud's facts the spec reads: how messages name it and its pools, its default image and image
ids (``ImageId``), its autoscaler's key, its private links (Express Connect ids, VLANs, CEN), and its
fields of the cloud-keyed models (replica region, autoscaler Secret, burst publisher). Plain data, read
by the neutral spec modules through ``cloud_parts``; its publisher model is ``alicloud_publisher``."""

from __future__ import annotations

import re

from pydantic import Field

from gpufleet.components.spec.alicloud_publisher import AlicloudPublisher

# How messages name the cloud in short ("Alibaba and Tencent pools"), and one of its pools.
SHORT_NAME = "Alibaba"
POOL_OF = "an Alibaba Cloud"
# How a pool's default image is described (``Pool.image``).
DEFAULT_IMAGE = "Alibaba Cloud Linux 3"
# The image ids it takes (``ImageId``): a custom or shared image ``m-`` and lowercase letters and digits
# (DescribeImages, e.g. ``m-bp1g7004ksh0oeuc****``), or a public image's id, its file name
# (``ubuntu_22_04_x64_20G_alibase_20240130.vhd``, the ECS public image list); with the example a message
# gives, and the hint the schema's description gives.
IMAGE_ID_FORMAT: tuple[re.Pattern[str], str] = (
    re.compile(r"^(m-[a-z0-9]{8,40}|[a-z][A-Za-z0-9_]*\.vhd)$"),
    "an Alibaba image id like m-bp1g7004ksh0oeuc1234, or a public image's like "
    "ubuntu_22_04_x64_20G_alibase_20240130.vhd",
)
IMAGE_ID_HINT = "Alibaba m-... or a public image's id like ubuntu_22_04_x64_20G_alibase_20240130.vhd"
# The key its cluster-autoscaler reads (a RAM AccessKey, in a Secret the operator makes).
AUTOSCALER_KEY = "RAM"
# The schema's descriptions of this cloud's own fields (``gpufleet.components.spec.descriptions``).
FIELD_DESCRIPTIONS = {
    "Credentials.alicloud": "the Secret in kube-system with the Alibaba Cloud autoscaler's RAM key",
}
# A private link (``links``): the Express Connect physical connection id and the VLAN ids a VBR takes;
# BGP over its VPN needs a tunnel range, its VPN gateway has a bandwidth; why a dedicated link needs
# bgp_asn; and the CEN instance a dedicated link may join (field, id form, what it is).
CONNECTION_ID: tuple[re.Pattern[str], str] = (
    re.compile(r"^pc-[a-z0-9]{8,32}$"),
    "an Express Connect physical connection id like pc-bp1ciz7ekd2grn1as****",
)
VLAN_RANGE = (0, 2999)
BGP_TUNNEL_CIDR = True
VPN_BANDWIDTH = True
DEDICATED_BGP = "gpufleet peers Express Connect VBRs with BGP"
LINK_ATTACHMENT: tuple[str, re.Pattern[str], str, str] = (
    "cen_id",
    re.compile(r"^cen-[a-z0-9]{8,32}$"),
    "an existing CEN instance id like cen-7qthudw0ll6jmc****",
    "an existing CEN instance",
)
# Its fields of the cloud-keyed models (``spec/keyed.py``): the second region of its checkpoint buckets'
# replica (``storage.checkpoints.replica_regions``) and the Secret with its autoscaler's key
# (``onprem.scheduler.credentials``).
REPLICA_REGION = (
    str | None,
    Field(
        default=None,
        description=(
            "Alibaba Cloud region (e.g. cn-shanghai) holding a one-way OSS replica of each Alibaba site's "
            "checkpoint bucket; not a region where an Alibaba site runs"
        ),
    ),
)
AUTOSCALER_SECRET = (str, "cluster-autoscaler-alicloud")
# Its field of ``burst.publishers``: the exporter's identity that gates its pools, or None.
PUBLISHER = (
    AlicloudPublisher | None,
    Field(default=None, description="None: the Alibaba pools are not gated (they scale on their own queue)"),
)

# `python -m gpufleet.worker` wires MNS, ESS and OSS (gpufleet/worker/wiring/alicloud.py), with no SDK.
REFERENCE_WORKER = True
