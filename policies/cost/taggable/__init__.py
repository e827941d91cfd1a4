"""Resource types whose SDK class takes a `tags` input and that carry cost, per cloud (GF-COST-001).

Data, not code: one type token per line in `aws.txt`, `alicloud.txt` and `tencentcloud.txt`, written
by `python -m gpufleet.policies.cost.taggable.generate` from the installed provider SDKs; regenerate after a
provider upgrade, never edit by hand.
"""

from __future__ import annotations

from pathlib import Path

from gpufleet.components.clouds import CLOUDS


def data_file(cloud: str) -> Path:
    return Path(__file__).with_name(f"{cloud}.txt")


def _read(cloud: str) -> frozenset[str]:
    lines = data_file(cloud).read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip())


AWS: frozenset[str] = _read("aws")
ALICLOUD: frozenset[str] = _read("alicloud")
TENCENTCLOUD: frozenset[str] = _read("tencentcloud")
TAGGABLE: frozenset[str] = AWS | ALICLOUD | TENCENTCLOUD

__all__ = ["ALICLOUD", "AWS", "CLOUDS", "TAGGABLE", "TENCENTCLOUD", "data_file"]
