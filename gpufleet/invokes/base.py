"""The shape of an offline invoke answer, shared by the per-cloud invoke modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks

# An answer: (the mocks, for notes and regions; the invoke's arguments; the provider's region) -> result.
Invoke = Callable[["FleetMocks", dict[str, Any], str], dict[str, Any]]
