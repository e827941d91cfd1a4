"""Moving the AWS resources under their ``AwsSite`` component replaces nothing on a real ``pulumi up``.

``urns.<stack>.before-sites.txt`` are the URNs the shipped stacks held while the AWS children hung off
the fleet (dev and prod: the URNs deployed stacks hold, as pinned before; hybrid: as the program built
it just before the site became a component). The programs run here in-process, with the engine's
mocks, under a mock monitor that keeps what each registration sends the engine, aliases included
(the offline engine's graph keeps each URN and parent, not the aliases). Each resource's alias URNs
are worked out as the Pulumi engine does (``pkg/resource/deploy/step_generator.go``,
``generateAliases``): each alias the resource names, collapsed to a URN with the resource's own name,
type and parent standing in for what the alias leaves out; then, for every alias URN of its parent,
the same child under that alias (``inheritedChildAlias``), so a component's alias carries its whole
subtree. Every URN the stacks held must then be the URN of exactly one resource of the program, or an
alias of exactly one, or one of the resources deliberately retired (``REMOVED`` in
test_first_deploy_paths.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi
import pytest
from pulumi.runtime.mocks import MockMonitor

from gpufleet.components.fleet import HybridGpuFleet
from gpufleet.components.naming import fleet_name
from gpufleet.components.spec import parse_fleet
from gpufleet.mocks import FleetMocks
from gpufleet.project import load_project, load_stack_config

from .conftest import close_loop, fresh_loop
from .test_first_deploy_paths import REMOVED

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
STACK_TYPE = "pulumi:pulumi:Stack"


@dataclass
class Registered:
    urn: str
    type: str
    name: str
    parent: str
    aliases: list[Any]  # alias_pb2.Alias: a full URN or a spec


class AliasMonitor(MockMonitor):  # type: ignore[misc]
    """The mock monitor, keeping each registration's URN, parent and aliases."""

    def __init__(self, mocks: pulumi.runtime.Mocks) -> None:
        super().__init__(mocks)
        self.registered: dict[str, Registered] = {}

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """As the engine makes them (``resource.CreateURN``): the parent's whole type chain."""
        return create_urn(name, type_, parent, pulumi.get_project(), pulumi.get_stack())

    def RegisterResource(self, request: Any) -> Any:
        response = super().RegisterResource(request)
        self.registered[response.urn] = Registered(
            urn=response.urn,
            type=request.type,
            name=request.name,
            parent=request.parent,
            aliases=list(request.aliases),
        )
        return response


# -- the engine's URN rules ---------------------------------------------------------------------------


def qualified_type(urn: str) -> str:
    return urn.split("::")[2]


def new_urn(stack: str, project: str, parent_type: str, type_: str, name: str) -> str:
    """``resource.NewURN``: the parent's qualified type, then ``$`` and the type (no prefix under the
    root stack)."""
    if parent_type and parent_type != STACK_TYPE:
        type_ = f"{parent_type}${type_}"
    return f"urn:pulumi:{stack}::{project}::{type_}::{name}"


def create_urn(name: str, type_: str, parent: str, project: str, stack: str) -> str:
    """``resource.CreateURN``."""
    return new_urn(stack, project, qualified_type(parent) if parent else "", type_, name)


def collapse(resource: Registered, alias: Any, project: str, stack: str) -> str:
    """``collapseAliasToUrn``: what an alias leaves out is the resource's own."""
    if alias.WhichOneof("alias") == "urn":
        return str(alias.urn)
    spec = alias.spec
    parent = resource.parent
    if spec.WhichOneof("parent") == "parentUrn":
        parent = spec.parentUrn
    elif spec.WhichOneof("parent") == "noParent" and spec.noParent:
        parent = ""
    return create_urn(
        spec.name or resource.name,
        spec.type or resource.type,
        parent,
        spec.project or project,
        spec.stack or stack,
    )


def inherited_child_alias(child_type: str, child_name: str, parent_name: str, parent_alias: str) -> str:
    """``inheritedChildAlias``: the child under its parent's alias (a name prefixed by the parent's
    takes the alias's name as prefix instead)."""
    alias_stack, alias_project = parent_alias.removeprefix("urn:pulumi:").split("::")[:2]
    alias_name = parent_alias.split("::", 3)[3]
    name = (
        alias_name + child_name.removeprefix(parent_name)
        if child_name.startswith(parent_name)
        else child_name
    )
    return new_urn(alias_stack, alias_project, qualified_type(parent_alias), child_type, name)


def alias_urns(registered: dict[str, Registered], project: str, stack: str) -> dict[str, list[str]]:
    """Every resource's alias URNs, as ``generateAliases`` gives them (parents before children)."""
    found: dict[str, list[str]] = {}

    def of(urn: str) -> list[str]:
        if urn in found:
            return found[urn]
        resource = registered[urn]
        result: list[str] = []
        own = [collapse(resource, alias, project, stack) for alias in resource.aliases]
        result += own
        if resource.parent:
            parent_name = registered[resource.parent].name
            for parent_alias in of(resource.parent):
                result.append(inherited_child_alias(resource.type, resource.name, parent_name, parent_alias))
                for child_alias in own:
                    result.append(
                        inherited_child_alias(
                            qualified_type(child_alias).rsplit("$", 1)[-1],
                            child_alias.split("::", 3)[3],
                            parent_name,
                            parent_alias,
                        )
                    )
        found[urn] = list(dict.fromkeys(result))
        return found[urn]

    for urn in registered:
        of(urn)
    return found


# -- running the shipped stacks -------------------------------------------------------------------------


def _registrations(stack: str) -> dict[str, Registered]:
    """The stack's program as ``infra/__main__.py`` builds it, with the stack file's config and the
    engine's mocks (gpufleet.mocks), under the alias-keeping monitor."""
    stack_config = load_stack_config(load_project(ROOT), stack, None)
    config = stack_config.encoded()
    loop = fresh_loop()
    monitor = AliasMonitor(FleetMocks(config))
    try:
        pulumi.runtime.settings.reset_options(project="gpufleet", stack=stack, preview=False)
        pulumi.runtime.set_mocks(
            monitor.mocks, project="gpufleet", stack=stack, preview=False, monitor=monitor
        )
        pulumi.runtime.set_all_config(config, sorted(stack_config.secret_keys))
        raw = pulumi.Config("gpufleet").require_object("fleet")
        HybridGpuFleet(fleet_name(stack), parse_fleet(raw, source=stack))
        loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
    finally:
        loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
        close_loop(loop)
    return monitor.registered


@pytest.fixture(scope="module", params=["dev", "prod", "hybrid"])
def stack(request: pytest.FixtureRequest) -> Iterator[tuple[str, dict[str, Registered]]]:
    yield request.param, _registrations(request.param)


def _deployed(stack: str) -> list[str]:
    return (GOLDEN / f"urns.{stack}.before-sites.txt").read_text().split()


def test_every_deployed_urn_is_one_resource_or_an_alias_of_one(
    stack: tuple[str, dict[str, Registered]],
) -> None:
    name, registered = stack
    aliases = alias_urns(registered, "gpufleet", name)
    claims: dict[str, list[str]] = {}
    for urn in registered:
        for claimed in dict.fromkeys([urn, *aliases[urn]]):
            claims.setdefault(claimed, []).append(urn)
    unmatched = []
    for old in _deployed(name):
        owners = claims.get(old, [])
        assert len(owners) <= 1, f"{old} is claimed by {owners}"
        if not owners:
            unmatched.append(old.rsplit("::", 1)[1])
    assert set(unmatched) == REMOVED.get(name, set())


def test_the_aws_children_moved_under_their_site(stack: tuple[str, dict[str, Registered]]) -> None:
    """The alias is not idle: the site is a component, and what it built sits under it, with the name
    it had."""
    name, registered = stack
    sites = [r for r in registered.values() if r.type == "gpufleet:sites:AwsSite"]
    assert [s.name for s in sites] == [
        f"gpufleet-{name}-aws-{r}" for r in (["us-east-1", "us-west-2"][: len(sites)])
    ]
    fleet = next(r for r in registered.values() if r.type == "gpufleet:fleet:HybridGpuFleet")
    # Under the fleet: its sites, links and on-prem baseline only, nothing of AWS's.
    under_fleet = {r.type.split(":")[1] for r in registered.values() if r.parent == fleet.urn}
    assert under_fleet <= {"sites", "links", "baseline"}, under_fleet
    for site in sites:
        children = [r for r in registered.values() if r.parent == site.urn]
        assert children
        for child in children:
            assert child.urn.startswith(
                f"urn:pulumi:{name}::gpufleet::gpufleet:fleet:HybridGpuFleet$gpufleet:sites:AwsSite$"
            )
            [alias] = child.aliases
            assert alias.spec.parentUrn == fleet.urn


def test_the_golden_urns_are_the_deployed_ones_moved(stack: tuple[str, dict[str, Registered]]) -> None:
    """``urns.<stack>.txt`` is ``urns.<stack>.before-sites.txt`` with each URN replaced by the URN of
    the resource that claims it (the retired ones stay as they were)."""
    name, registered = stack
    aliases = alias_urns(registered, "gpufleet", name)
    moved = {alias: urn for urn in registered for alias in aliases[urn]}
    expected = sorted(moved.get(old, old) for old in _deployed(name))
    assert (GOLDEN / f"urns.{name}.txt").read_text().split() == expected


def test_alias_rules_match_pulumis_own() -> None:
    """The URN rules above agree with the SDK's (``pulumi.runtime.resource``: what it sends an engine
    that takes alias URNs only) for a parent that is not the root stack, the only case here."""
    from pulumi.runtime.resource import create_urn as sdk_create_urn
    from pulumi.runtime.resource import inherited_child_alias as sdk_inherited_child_alias

    fleet = "urn:pulumi:prod::gpufleet::gpufleet:fleet:HybridGpuFleet::gpufleet-prod"
    site = f"{fleet.rsplit('::', 1)[0]}$gpufleet:sites:AwsSite::gpufleet-prod-aws-us-east-1"
    key_type, key_name = "gpufleet:keys:FleetKey", "gpufleet-prod-key"
    loop = fresh_loop()
    try:
        old_key = loop.run_until_complete(sdk_create_urn(key_name, key_type, fleet).future())
        assert create_urn(key_name, key_type, fleet, "gpufleet", "prod") == old_key
        assert create_urn(key_name, key_type, site, "gpufleet", "prod") != old_key
        for child_type, child_name in [
            ("aws:kms/key:Key", "gpufleet-prod-key-key"),
            ("aws:s3/bucket:Bucket", "x"),
        ]:
            sdk = loop.run_until_complete(
                sdk_inherited_child_alias(child_name, key_name, old_key, child_type).future()
            )
            assert inherited_child_alias(child_type, child_name, key_name, old_key) == sdk
    finally:
        close_loop(loop)
