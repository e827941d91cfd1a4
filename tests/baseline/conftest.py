"""The recording mocks of the component tests, for the baseline exporter tests."""

from __future__ import annotations

from tests.components.conftest import run_pulumi

__all__ = ["run_pulumi"]
