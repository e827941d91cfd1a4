"""Build CrossGuard arguments for identity policy tests and collect what the policies report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import (
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_STRING_VALUE,
    unknown_checking_proxy,
)

from policies.rule import GfResourcePolicy, GfStackPolicy, validate_collecting

__all__ = [
    "UNKNOWN_BOOLEAN_VALUE",
    "UNKNOWN_NUMBER_VALUE",
    "UNKNOWN_STRING_VALUE",
    "NotApplicable",
    "check",
    "check_stack",
    "res",
]

NotApplicable = _NotApplicableError


def _opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])


def urn_of(resource_type: str, name: str, stack: str = "dev") -> str:
    return f"urn:pulumi:{stack}::gpufleet::{resource_type}::{name}"


def check(
    policy: GfResourcePolicy,
    resource_type: str,
    props: Mapping[str, Any],
    name: str = "res",
    *,
    config: Mapping[str, Any] | None = None,
    proxy: bool = False,
) -> list[str]:
    """Validate one resource; the messages reported (not-applicable propagates as an exception)."""
    messages: list[str] = []
    given = unknown_checking_proxy(dict(props)) if proxy else dict(props)
    args = ResourceValidationArgs(
        resource_type, given, urn_of(resource_type, name), name, _opts(), None, config or {}
    )
    validate_collecting(policy, args, lambda message, urn=None: messages.append(message))
    return messages


def res(
    resource_type: str,
    name: str,
    props: Mapping[str, Any],
    *,
    deps: Sequence[PolicyResource] = (),
    prop_deps: Mapping[str, Sequence[PolicyResource]] | None = None,
    proxy: bool = False,
) -> PolicyResource:
    given = unknown_checking_proxy(dict(props)) if proxy else dict(props)
    return PolicyResource(
        resource_type,
        given,
        urn_of(resource_type, name),
        name,
        _opts(),
        None,
        None,
        list(deps),
        {key: list(value) for key, value in (prop_deps or {}).items()},
    )


def check_stack(
    policy: GfStackPolicy,
    resources: Sequence[PolicyResource],
    config: Mapping[str, Any] | None = None,
) -> list[tuple[str, str | None]]:
    """Validate a stack; (message, urn) pairs (not-applicable propagates as an exception)."""
    found: list[tuple[str, str | None]] = []
    args = StackValidationArgs(list(resources), config or {})
    validate_collecting(policy, args, lambda message, urn=None: found.append((message, urn)))
    return found
