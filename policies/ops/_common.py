"""What the operability rules share: the stack's join index, each cloud's module, and "could not be judged".

Every operability rule judges the whole stack: it joins a resource to the ones it uses (an alarm to
the policy it fires and the queue it watches, a key to the volumes it encrypts) through the engine's
property dependencies first, then literal names, ids and ARNs (`gpufleet.policies.cost.pools.ResourceIndex`).

Each cloud's type tokens, message fragments, references and checks live in its module of this package
(`aws.py`, `alicloud.py`, `tencentcloud.py`), read through :func:`parts`: the rules name no cloud.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from types import ModuleType
from typing import Any

from pulumi_policy import StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import Cloud, cloud_parts, part_of, part_values
from gpufleet.policies import rule_facts
from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_list, get_ref, is_unknown
from gpufleet.policies.rule import CannotTell, not_judged

DEFAULT_COOLDOWN_S = 300


@cache
def parts() -> Mapping[Cloud, ModuleType]:
    """Each cloud's module of this package, read on first use (the cloud modules import this one)."""
    return cloud_parts("gpufleet.policies.ops")


def fragments(attribute: str) -> dict[Cloud, Any]:
    """`attribute` of each cloud's module that defines it (a message fragment, a table), by cloud."""
    return part_values(parts(), attribute)


def joined(attribute: str) -> tuple[str, ...]:
    """The type tokens of `attribute` of every cloud's module that defines it, in the clouds' order."""
    return rule_facts.chained(parts(), attribute)


def rule_url(rule_id: str) -> str:
    """The reference of a rule: the one cloud module whose `URLS` names it (ValueError otherwise)."""
    return rule_facts.rule_url(parts(), rule_id)


def part_of_type(type_token: str) -> ModuleType:
    """The module of the cloud whose provider owns `type_token` (LookupError when no cloud module has it)."""
    found = part_of(parts(), type_token)
    if found is None:
        raise LookupError(f"no cloud module of gpufleet.policies.ops owns {type_token}")
    return found


def stack_index(args: StackValidationArgs) -> ResourceIndex:
    """The stack's join index, built once per resource list (shared with the cost rules)."""
    return per_stack(ResourceIndex, args.resources)


def cannot_tell(urn: str, reason: str, path: str) -> None:
    """Record an advisory "could not be judged" for `urn`: the pack cannot tell, so it never passes."""
    not_judged(urn, CannotTell(reason, path))


def unknown(value: Any, path: str) -> UnknownValueError:
    return UnknownValueError(str(value), [path])


def value_at(view: ResourceView, path: str) -> Any:
    """The value at `path`; an unknown one raises (the resource could not be judged yet)."""
    value = get_ref(view.props, path)
    if is_unknown(value):
        raise unknown(value, path)
    return value


def known_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not is_unknown(value) else None


def number(view: ResourceView, path: str) -> float | None:
    """A number at `path`; an unknown one raises (a decisive value never passes unknown)."""
    value = get_ref(view.props, path)
    if value is None or value == "":
        return None
    if is_unknown(value):
        raise unknown(value, path)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def strings(value: Any) -> list[Any]:
    """A string or a list of them, unknown elements kept as sentinels."""
    return [item for item in as_list(value) if isinstance(item, str)]


def quoted(names: Iterable[str]) -> str:
    items = [f"'{name}'" for name in dict.fromkeys(names)]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def seconds(value: float) -> str:
    return f"{int(value)} s"


def any_of(index: ResourceIndex, *types: str) -> bool:
    return any(index.by_type.get(t) for t in types)


def views(index: ResourceIndex, *types: str) -> Sequence[ResourceView]:
    return index.of_type(*types)
