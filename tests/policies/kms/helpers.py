"""KMS policy tests use the shared builders; the runners raise NotApplicable."""

from __future__ import annotations

from tests.policies.support import (
    UNKNOWN_STRING_VALUE,
    NotApplicable,
    res,
    run_resource,
    run_stack,
    unknown_checking_proxy,
)
from tests.policies.support import regional_provider as provider

UNKNOWN = UNKNOWN_STRING_VALUE

__all__ = [
    "UNKNOWN",
    "NotApplicable",
    "provider",
    "res",
    "run_resource",
    "run_stack",
    "unknown_checking_proxy",
]
