"""Build CrossGuard arguments the way the engine sends them, run one policy, collect what it reports.

Two runner shapes: `run_resource`/`run_stack` raise NotApplicable when a policy does not apply;
`resource_outcome`/`stack_outcome` return `N/A: <reason>` instead. Every family's `helpers.py`
re-exports what its tests use; a family keeps only what is its own (cost's fixed catalogue and pools).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyProviderResource,
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

from gpufleet.policies.rule import GfResourcePolicy, GfStackPolicy, validate_collecting

__all__ = [
    "UNKNOWN_BOOLEAN_VALUE",
    "UNKNOWN_NUMBER_VALUE",
    "UNKNOWN_STRING_VALUE",
    "NotApplicable",
    "opts",
    "provider",
    "reason_or",
    "regional_provider",
    "res",
    "resource_outcome",
    "run_resource",
    "run_stack",
    "stack_outcome",
    "unknown_checking_proxy",
    "urn_of",
]

_T = TypeVar("_T")


class NotApplicable(Exception):
    """Raised by the runners when the policy said `not_applicable(reason)`; `str()` is the reason, so
    `pytest.raises(NotApplicable, match=...)` checks it."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason or "")
        self.reason = reason


def urn_of(resource_type: str, name: str, stack: str = "dev") -> str:
    return f"urn:pulumi:{stack}::gpufleet::{resource_type}::{name}"


def opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])


def provider(
    cloud: str, props: Mapping[str, Any] | None = None, *, name: str = "prov"
) -> PolicyProviderResource:
    """An explicit provider resource of `cloud` (`aws`, `alicloud`, ...) with the given inputs."""
    token = f"pulumi:providers:{cloud}"
    return PolicyProviderResource(token, dict(props or {}), urn_of(token, name), name)


def _wire(props: Mapping[str, Any] | None, proxy: bool) -> Mapping[str, Any]:
    # A dict is copied so a test may keep editing it; another mapping (one already wrapped by
    # unknown_checking_proxy) is sent as given, since copying it would read its unknown values.
    given: Mapping[str, Any] = {} if props is None else props
    plain = dict(given) if isinstance(given, dict) else given
    return unknown_checking_proxy(dict(plain)) if proxy else plain


def res(
    resource_type: str,
    name: str,
    props: Mapping[str, Any] | None = None,
    *,
    stack: str = "dev",
    deps: Sequence[PolicyResource] = (),
    prop_deps: Mapping[str, Sequence[PolicyResource]] | None = None,
    prov: PolicyProviderResource | None = None,
    proxy: bool = False,
) -> PolicyResource:
    """A stack-policy resource; `deps` are its dependencies, `prop_deps` the resources each input
    references (the engine's property dependencies)."""
    return PolicyResource(
        resource_type,
        _wire(props, proxy),
        urn_of(resource_type, name, stack),
        name,
        opts(),
        prov,
        None,
        list(deps),
        {key: list(value) for key, value in (prop_deps or {}).items()},
    )


def _collect(policy: GfResourcePolicy | GfStackPolicy, args: Any) -> list[tuple[str, str | None]]:
    reported: list[tuple[str, str | None]] = []

    def report(message: str, urn: str | None = None) -> None:
        reported.append((message, urn))

    try:
        validate_collecting(policy, args, report)
    except _NotApplicableError as error:
        # Reporting a violation and then declaring the rule inapplicable is contradictory.
        assert not reported, reported
        raise NotApplicable(error.reason) from None
    return reported


def run_resource(
    policy: GfResourcePolicy,
    resource_type: str,
    props: Mapping[str, Any],
    name: str = "r",
    *,
    config: Mapping[str, Any] | None = None,
    prov: PolicyProviderResource | None = None,
    proxy: bool = False,
) -> list[str]:
    """The messages a resource policy reports; raises NotApplicable when it does not apply."""
    args = ResourceValidationArgs(
        resource_type,
        _wire(props, proxy),
        urn_of(resource_type, name),
        name,
        opts(),
        prov,
        dict(config or {}),
    )
    return [message for message, _ in _collect(policy, args)]


def run_stack(
    policy: GfStackPolicy,
    resources: Sequence[PolicyResource],
    config: Mapping[str, Any] | None = None,
    stack_tags: Mapping[str, str] | None = None,
    *,
    proxy: bool = False,
) -> list[tuple[str, str | None]]:
    """(message, urn) pairs a stack policy reports; raises NotApplicable when it does not apply.
    With `proxy` every resource's props raise on unknown values, as at preview."""
    if proxy:
        for resource in resources:
            resource.props = unknown_checking_proxy(dict(resource.props))
    args = StackValidationArgs(list(resources), dict(config or {}), dict(stack_tags or {}))
    return _collect(policy, args)


def reason_or(run: Callable[[], _T], label: str) -> _T | str:
    """What `run` returns, or `"<label>: <reason>"` when the policy said it does not apply."""
    try:
        return run()
    except NotApplicable as error:
        return f"{label}: {error.reason}"


def resource_outcome(
    policy: GfResourcePolicy,
    resource_type: str,
    props: Mapping[str, Any],
    *,
    name: str = "r",
    config: Mapping[str, Any] | None = None,
    proxy: bool = False,
) -> list[str] | str:
    """Messages reported, or `N/A: <reason>` when the policy says it does not apply."""
    return reason_or(
        lambda: run_resource(policy, resource_type, props, name, config=config, proxy=proxy), "N/A"
    )


def stack_outcome(
    policy: GfStackPolicy,
    resources: Sequence[PolicyResource],
    *,
    config: Mapping[str, Any] | None = None,
) -> list[tuple[str, str | None]] | str:
    """(message, urn) pairs reported by a stack policy, or `N/A: <reason>` when it does not apply."""
    return reason_or(lambda: run_stack(policy, resources, config), "N/A")


def regional_provider(cloud: str, region: str, name: str = "prov") -> PolicyProviderResource:
    """An explicit provider of `cloud` pinned to `region`."""
    return provider(cloud, {"region": region}, name=name)
