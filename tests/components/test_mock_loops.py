"""Component tests leave no event loop open: pulumi's MockMonitor makes one in any executor thread that
has none and never closes it, which pytest reported as a PytestUnraisableExceptionWarning
("unclosed event loop") when the loop was collected, often in another test."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pulumi
import pytest

from .conftest import Runner


@pytest.fixture
def loops_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[asyncio.AbstractEventLoop]]:
    """Every event loop made during the test; each must be closed once the mocks are torn down (this
    fixture is set up before `run_pulumi`, so it is torn down after it)."""
    made: list[asyncio.AbstractEventLoop] = []
    real = asyncio.new_event_loop

    def record() -> asyncio.AbstractEventLoop:
        loop = real()
        made.append(loop)
        return loop

    monkeypatch.setattr(asyncio, "new_event_loop", record)
    yield made
    still_open = [loop for loop in made if not loop.is_closed()]
    assert still_open == [], f"{len(still_open)} of {len(made)} event loops left open"


def test_a_mocked_build_closes_every_event_loop_it_made(
    loops_made: list[asyncio.AbstractEventLoop], run_pulumi: Runner
) -> None:
    mocks = run_pulumi(lambda: pulumi.CustomResource("test:index:Thing", "thing", {"size": 1}))
    assert [(r.type, r.name) for r in mocks.registrations] == [("test:index:Thing", "thing")]
    # The monitor's worker thread had an event loop of its own (the SDK would otherwise make one).
    assert len(loops_made) >= 1
