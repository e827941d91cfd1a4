"""The recording mocks of the component tests, for the burst-order tests."""

from __future__ import annotations

from tests.components.conftest import run_pulumi

__all__ = ["run_pulumi"]
