"""The recording mocks of the component tests, for the burst-order tests."""

from __future__ import annotations

import re

from tests.cli.helpers import ROOT
from tests.components.conftest import run_pulumi

# The hybrid stack with its pools queue-fed: without onprem.scheduler its burst nodes do not join the
# cluster, so their alarms (and the burst order's gates on them) are what sizes the groups.
QUEUE_FED_HYBRID = re.sub(
    r"^      scheduler:.*\n(?:        .*\n)*",
    "",
    (ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text(encoding="utf-8"),
    count=1,
    flags=re.MULTILINE,
)
# ... and, no longer joined, each pool says what reads its queue (the pool's image, here).
QUEUE_FED_HYBRID = re.sub(
    r"^(        )(instance_types: \[[^\]\n]*\].*)$",
    r"\1\2\n\1workload: {image_reads_queue: true}",
    QUEUE_FED_HYBRID,
    flags=re.MULTILINE,
)
assert "scheduler:" not in QUEUE_FED_HYBRID.split("burst:")[0].split("onprem:")[1]
assert QUEUE_FED_HYBRID.count("workload: {image_reads_queue: true}") == 3

__all__ = ["QUEUE_FED_HYBRID", "run_pulumi"]
