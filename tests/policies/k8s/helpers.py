"""Builders for CrossGuard validation args, shaped as the engine sends them."""

from __future__ import annotations

from collections.abc import Mapping
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
    "res",
    "run_resource",
    "run_stack",
    "urn_of",
]


def urn_of(resource_type: str, name: str) -> str:
    return f"urn:pulumi:dev::fleet::{resource_type}::{name}"


def _opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])


def res(
    resource_type: str,
    name: str,
    props: Mapping[str, Any],
    *,
    dependencies: list[PolicyResource] | None = None,
    property_dependencies: dict[str, list[PolicyResource]] | None = None,
    proxy: bool = False,
) -> PolicyResource:
    value = unknown_checking_proxy(dict(props)) if proxy else dict(props)
    return PolicyResource(
        resource_type,
        value,
        urn_of(resource_type, name),
        name,
        _opts(),
        None,
        None,
        dependencies or [],
        property_dependencies or {},
    )


def run_resource(
    policy: GfResourcePolicy,
    resource_type: str,
    props: Mapping[str, Any],
    *,
    name: str = "r",
    config: Mapping[str, Any] | None = None,
    proxy: bool = False,
) -> list[str] | str:
    """Messages reported, or `N/A: <reason>` when the policy says it does not apply."""
    value = unknown_checking_proxy(dict(props)) if proxy else dict(props)
    args = ResourceValidationArgs(
        resource_type, value, urn_of(resource_type, name), name, _opts(), None, config or {}
    )
    messages: list[str] = []
    try:
        validate_collecting(policy, args, lambda message, urn=None: messages.append(message))
    except _NotApplicableError as error:
        assert not messages, messages
        return f"N/A: {error.reason}"
    return messages


def run_stack(
    policy: GfStackPolicy,
    resources: list[PolicyResource],
    *,
    config: Mapping[str, Any] | None = None,
) -> list[tuple[str, str | None]] | str:
    """(message, urn) pairs reported by a stack policy, or `N/A: <reason>` when it does not apply."""
    reported: list[tuple[str, str | None]] = []
    try:
        validate_collecting(
            policy,
            StackValidationArgs(resources, config or {}),
            lambda message, urn=None: reported.append((message, urn)),
        )
    except _NotApplicableError as error:
        assert not reported, reported
        return f"N/A: {error.reason}"
    return reported
