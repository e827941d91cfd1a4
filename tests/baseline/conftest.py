"""The recording mocks of tests/components, for the baseline's daemon tests."""

from __future__ import annotations

from tests.components.conftest import run_pulumi

__all__ = ["run_pulumi"]
