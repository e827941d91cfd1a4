"""The real checkov, for the tests marked `checkov`: skipped with a reason where it is not installed,
a failure where it must be (CI sets GPUFLEET_REQUIRE_CHECKOV=1; `make test` installs it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpufleet.checkov.run import CheckovNotFound, find_checkov

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def checkov_bin() -> Path:
    try:
        found = find_checkov(None, ROOT)
    except CheckovNotFound as exc:
        pytest.fail(str(exc))
    if found is None:
        if os.environ.get("GPUFLEET_REQUIRE_CHECKOV"):
            pytest.fail("checkov is required here (GPUFLEET_REQUIRE_CHECKOV) and not installed: make checkov")
        pytest.skip("checkov is not installed (make checkov creates .venv-checkov/)")
    return found
