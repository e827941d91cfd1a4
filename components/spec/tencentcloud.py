"""Tencent Cloud's facts the spec reads: how messages name it and its pools, its default image and image
ids (``ImageId``), its autoscaler's key, its private links (Direct Connect ids, VLANs, CCN), and its
fields of the cloud-keyed models (replica region, autoscaler Secret, and the burst publisher it
refuses). Plain data, read by the neutral spec modules through ``cloud_parts``."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

# How messages name the cloud in short ("Alibaba and Tencent pools"), and one of its pools.
SHORT_NAME = "Tencent"
POOL_OF = "a Tencent Cloud"
# How a pool's default image is described (``Pool.image``).
DEFAULT_IMAGE = "TencentOS Server 3.1"
# The image ids it takes: ``img-`` and 8 lowercase letters and digits (CVM API, the Image data
# structure, e.g. ``img-eb30mz89``); with the example a message gives, and the schema's hint.
IMAGE_ID_FORMAT: tuple[re.Pattern[str], str] = (
    re.compile(r"^img-[a-z0-9]{8}$"),
    "a Tencent image id like img-eb30mz89",
)
IMAGE_ID_HINT = "Tencent img-..."
# The key its cluster-autoscaler reads (a CAM key, in a Secret the operator makes).
AUTOSCALER_KEY = "CAM"
# The schema's descriptions of this cloud's own fields (``gpufleet.components.spec.descriptions``).
FIELD_DESCRIPTIONS = {
    "Credentials.tencentcloud": "the Secret in kube-system with the Tencent Cloud autoscaler's CAM key",
}
# A private link (``links``): the Direct Connect id and the VLAN ids a dedicated tunnel takes; BGP over
# its VPN needs a tunnel range, its VPN gateway has a bandwidth; and the CCN instance a dedicated link's
# gateway may attach to (field, id form, what it is).
CONNECTION_ID: tuple[re.Pattern[str], str] = (
    re.compile(r"^dc-[a-z0-9]{8}$"),
    "a Tencent Direct Connect id like dc-kax48sg7",
)
VLAN_RANGE = (0, 3000)
BGP_TUNNEL_CIDR = True
VPN_BANDWIDTH = True
LINK_ATTACHMENT: tuple[str, re.Pattern[str], str, str] = (
    "ccn_id",
    re.compile(r"^ccn-[a-z0-9]{8}$"),
    "an existing CCN instance id like ccn-gree226l",
    "an existing CCN instance",
)
# Its fields of the cloud-keyed models (``spec/keyed.py``): the second region of its checkpoint buckets'
# replica (``storage.checkpoints.replica_regions``) and the Secret with its autoscaler's key
# (``onprem.scheduler.credentials``).
REPLICA_REGION = (
    str | None,
    Field(
        default=None,
        description=(
            "Tencent Cloud region (e.g. ap-shanghai) holding a one-way COS replica of each Tencent site's "
            "checkpoint bucket; not a region where a Tencent site runs"
        ),
    ),
)
AUTOSCALER_SECRET = (str, "cluster-autoscaler-tencentcloud")
# Its field of ``burst.publishers``: refused, since no alarm of its own could read the gate.
PUBLISHER_REFUSED = (
    "Tencent Cloud alarm policies watch Tencent Cloud service metrics only (monitor_type MT_QCE), so no "
    "alarm could read what the exporter publishes and the Tencent pools are not gated: leave "
    "publishers.tencentcloud out (docs/burst-order.md)"
)


def _refused(value: Any) -> None:
    if value is not None:
        raise ValueError(PUBLISHER_REFUSED)


PUBLISHER = (
    Annotated[None, BeforeValidator(_refused)],
    Field(default=None, description="not available: " + PUBLISHER_REFUSED),
)

# `python -m gpufleet.worker` wires CMQ, AS and COS (gpufleet/worker/wiring/tencentcloud.py), with no SDK.
REFERENCE_WORKER = True
