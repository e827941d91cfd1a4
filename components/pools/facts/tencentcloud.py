"""Tencent Cloud's pool facts (see :mod:`gpufleet.components.pools.facts`).

Not enforced: a Cloud Monitor ``AlarmPolicy`` (the only alarm that runs an AS trigger task) takes
``monitor_type`` ``MT_QCE``, Tencent Cloud service metrics, only, so no alarm can watch a metric the
exporter publishes. A joined node's provider id is the form tencentcloud_auto_scaling_group.go
``TcRefFromProviderID`` reads: ``qcloud:///<zone>/<instance id>`` (regexp
``^qcloud:///[-0-9a-z]*/[-0-9a-z]*$``; the instance id is what it looks up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpufleet.components.spec.burst import Burst

ENFORCEMENT = "not-enforced"
PROVIDER_ID = "qcloud:///{zone}/{instance}"
NOT_ENFORCED = (
    "Tencent Cloud alarm policies (Monitor.AlarmPolicy, the only alarm that runs an AS trigger task) take "
    "monitor_type MT_QCE, Tencent Cloud service metrics, only: no policy can watch a metric the exporter "
    "publishes, so the Tencent pools scale on their own queue and GPU alarms"
)


def describe_gate(burst: Burst) -> str:
    """How a Tencent site's pools are held back, for ``gpufleet plan``'s burst-order lines."""
    return "not gated: Tencent alarm policies cannot watch a published metric; see docs/burst-order.md"
