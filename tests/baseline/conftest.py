"""The recording mocks of the component tests, for the baseline daemon and exporter tests."""

from __future__ import annotations

from tests.components.conftest import run_pulumi

__all__ = ["run_pulumi"]
