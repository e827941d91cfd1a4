"""Builders for CrossGuard validation args, shaped as the engine sends them (camelCase inputs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyProviderResource,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

from policies.rule import GfResourcePolicy, GfStackPolicy, validate_collecting

__all__ = [
    "UNKNOWN",
    "NotApplicable",
    "provider",
    "res",
    "run_resource",
    "run_stack",
    "unknown_checking_proxy",
]

UNKNOWN = UNKNOWN_STRING_VALUE


class NotApplicable(Exception):
    """Raised by the runners when the policy reported not_applicable."""


def _opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])


def provider(cloud: str, region: str, name: str = "prov") -> PolicyProviderResource:
    return PolicyProviderResource(
        f"pulumi:providers:{cloud}",
        {"region": region},
        f"urn:pulumi:dev::p::pulumi:providers:{cloud}::{name}",
        name,
    )


def res(
    resource_type: str,
    name: str,
    props: Mapping[str, Any] | None = None,
    *,
    stack: str = "dev",
    deps: Sequence[PolicyResource] = (),
    prop_deps: Mapping[str, Sequence[PolicyResource]] | None = None,
    prov: PolicyProviderResource | None = None,
) -> PolicyResource:
    return PolicyResource(
        resource_type,
        dict(props or {}),
        f"urn:pulumi:{stack}::gpufleet::{resource_type}::{name}",
        name,
        _opts(),
        prov,
        None,
        list(deps),
        {k: list(v) for k, v in (prop_deps or {}).items()},
    )


def run_stack(
    policy: GfStackPolicy,
    resources: Sequence[PolicyResource],
    config: Mapping[str, Any] | None = None,
    stack_tags: Mapping[str, str] | None = None,
    *,
    proxied: bool = False,
) -> list[tuple[str, str | None]]:
    if proxied:
        for resource in resources:
            resource.props = unknown_checking_proxy(dict(resource.props))
    found: list[tuple[str, str | None]] = []
    args = StackValidationArgs(list(resources), dict(config or {}), dict(stack_tags or {}))

    def report(message: str, urn: str | None = None) -> None:
        found.append((message, urn))

    try:
        validate_collecting(policy, args, report)
    except _NotApplicableError as error:
        raise NotApplicable(str(error.reason)) from None
    return found


def run_resource(
    policy: GfResourcePolicy,
    resource_type: str,
    props: Mapping[str, Any],
    *,
    name: str = "r",
    config: Mapping[str, Any] | None = None,
    proxied: bool = False,
) -> list[str]:
    found: list[str] = []
    given: Mapping[str, Any] = unknown_checking_proxy(dict(props)) if proxied else dict(props)
    args = ResourceValidationArgs(
        resource_type,
        given,
        f"urn:pulumi:dev::gpufleet::{resource_type}::{name}",
        name,
        _opts(),
        None,
        config,
    )

    def report(message: str, urn: str | None = None) -> None:
        found.append(message)

    try:
        validate_collecting(policy, args, report)
    except _NotApplicableError as error:
        raise NotApplicable(str(error.reason)) from None
    return found
