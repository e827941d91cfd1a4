"""Resource types whose SDK class takes a `tags` input and that carry cost, per cloud (GF-COST-001).

Data, not code: one type token per line in `aws.txt`, `alicloud.txt` and `tencentcloud.txt`, written
by `python -m gpufleet.policies.cost.taggable.generate` from the installed provider SDKs; regenerate after a
provider upgrade, never edit by hand. `BY_CLOUD` maps each registered cloud to its types (one cloud's:
`BY_CLOUD["alicloud"]`); `TAGGABLE` is their union.
"""

from __future__ import annotations

from pathlib import Path

from gpufleet.components.clouds import CLOUDS


def data_file(cloud: str) -> Path:
    return Path(__file__).with_name(f"{cloud}.txt")


def _read(cloud: str) -> frozenset[str]:
    lines = data_file(cloud).read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip())


# Each registered cloud's taggable types, in the registry's order.
BY_CLOUD: dict[str, frozenset[str]] = {cloud: _read(cloud) for cloud in CLOUDS}
TAGGABLE: frozenset[str] = frozenset().union(*BY_CLOUD.values())

__all__ = ["BY_CLOUD", "CLOUDS", "TAGGABLE", "data_file"]
