"""Kubernetes policy tests use the shared builders; their runners return `N/A: <reason>`."""

from __future__ import annotations

from tests.policies.support import (
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_STRING_VALUE,
    res,
    urn_of,
)
from tests.policies.support import resource_outcome as run_resource
from tests.policies.support import stack_outcome as run_stack

__all__ = [
    "UNKNOWN_BOOLEAN_VALUE",
    "UNKNOWN_NUMBER_VALUE",
    "UNKNOWN_STRING_VALUE",
    "res",
    "run_resource",
    "run_stack",
    "urn_of",
]
