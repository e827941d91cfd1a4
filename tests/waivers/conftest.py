from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from gpufleet.policies import waivers

TODAY = date(2026, 12, 1)


@pytest.fixture(autouse=True)
def fixed_clock() -> Iterator[date]:
    """Every waiver test runs on 2026-12-01."""
    waivers.set_clock(lambda: TODAY)
    yield TODAY
    waivers.set_clock(None)
