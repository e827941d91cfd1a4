"""Tencent Cloud's facts for the engine and CLI modules beside this one (gpufleet.new,
gpufleet.hybrid_view), read through ``cloud_parts("gpufleet")``. Plain data: nothing of the fleet is
imported here."""

from __future__ import annotations

import re

# `gpufleet new`: Tencent Cloud regions (ap-guangzhou, ap-shanghai-fsi, na-siliconvalley), and what a bad
# --region is told.
REGION_RE = re.compile(r"^[a-z]{2}-[a-z]+(-[a-z]+)?$")
REGION_HINT = "a Tencent Cloud region name like ap-guangzhou"

# `gpufleet plan`'s hybrid view: what it adds to a flavor sized by the Tencent cluster-autoscaler.
AUTOSCALER_CAVEAT = "; but the Tencent provider requires TKE: it does not size these groups (docs/hybrid.md)"
