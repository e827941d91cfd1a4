from __future__ import annotations

from collections.abc import Iterator

import pytest

from gpufleet.policies.gpu import use_catalog

from .helpers import FakeCatalog


@pytest.fixture(autouse=True)
def fake_catalog() -> Iterator[FakeCatalog]:
    """Judge against a small fixed catalogue so prices in messages do not move with the data file."""
    catalog = FakeCatalog.default()
    with use_catalog(catalog):
        yield catalog
