"""Alibaba Cloud's facts for the engine and CLI modules beside this one (gpufleet.new), read through
``cloud_parts("gpufleet")``. Plain data: nothing of the fleet is imported here."""

from __future__ import annotations

import re

# `gpufleet new`: Alibaba Cloud regions (cn-hangzhou, cn-hongkong, ap-southeast-1, eu-central-1, ...),
# and what a bad --region is told.
REGION_RE = re.compile(r"^[a-z]{2}-[a-z]+(-\d)?$")
REGION_HINT = "an Alibaba Cloud region name like cn-hangzhou"
