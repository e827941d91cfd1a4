"""Access policy tests use the shared builders; `check`/`check_stack` raise NotApplicable."""

from __future__ import annotations

from tests.policies.support import (
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_STRING_VALUE,
    NotApplicable,
    res,
    urn_of,
)
from tests.policies.support import run_resource as check
from tests.policies.support import run_stack as check_stack

__all__ = [
    "UNKNOWN_BOOLEAN_VALUE",
    "UNKNOWN_NUMBER_VALUE",
    "UNKNOWN_STRING_VALUE",
    "NotApplicable",
    "check",
    "check_stack",
    "res",
    "urn_of",
]
