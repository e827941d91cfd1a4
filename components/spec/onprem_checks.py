"""The field checks of the ``onprem`` section's models (:mod:`gpufleet.components.spec.onprem`):
Kubernetes names and labels, pinned images, stack config keys, queue addresses, the section's size
limits, and the GPU and server models the catalogue knows."""

from __future__ import annotations

import functools
import importlib.resources
import re
from collections.abc import Mapping
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, BeforeValidator, Field

from gpufleet.components.catalog import load_catalog
from gpufleet.components.spec.values import Ipv4Net, _show

_PINNED_IMAGE_RE = re.compile(
    r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)+"
    r"(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?@sha256:[0-9a-f]{64}$"
)
_IMAGE_FORM = "an image pinned by digest, like registry/name:tag@sha256:<64 hex digits>"
# Kubernetes object names: DNS-1123 labels (namespaces, deployments) and subdomains (nodes).
_LABEL_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")
_SUBDOMAIN_MAX = 253
_LABEL_KEY_RE = re.compile(
    r"^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$"
)
_LABEL_VALUE_RE = re.compile(r"^([A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?)?$")
# A stack config key: `namespace:key` (the project's namespace when written bare).
_CONFIG_KEY_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*:)?[A-Za-z][A-Za-z0-9_.-]{0,127}$")
_CONTEXT_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,253}$")
_HOST_PORT_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?:\d{1,5}$")
_QUEUE_NAME_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,255}$")
# Namespaces Kubernetes itself owns: GPU work and its quotas do not belong there.
RESERVED_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease", "default")
# User PriorityClasses may not exceed this value (higher ones are reserved for system classes).
MAX_PRIORITY = 1_000_000_000
MAX_GPU_NODES = 10_000
MAX_GPUS_PER_NODE = 16
MAX_REPLICAS = 1_000
MAX_RANGES = 64
MAX_NAMESPACES = 256
MAX_LABELS = 64


def _raise_first(found: list[tuple[str, str]]) -> None:
    """The first problem as a field error of the section (its path relative to the section)."""
    if found:
        path, message = found[0]
        raise ValueError(f"{path}: {message}")


def _one_or_many(value: Any) -> Any:
    """A single range written as a string counts as a list of one; a list is at most MAX_RANGES long
    (the address plan compares every pair)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and len(value) > MAX_RANGES:
        raise ValueError(f"must list at most {MAX_RANGES} ranges, got {len(value)}")
    return value


Ranges = Annotated[list[Ipv4Net], BeforeValidator(_one_or_many), Field(min_length=1)]


@functools.cache
def purchase_models() -> Mapping[str, Mapping[str, Any]]:
    """The catalogue's ``purchases``: owned server models (``dgx_a100``...) with their quoted price."""
    catalog = importlib.resources.files("gpufleet.components.catalog")
    text = catalog.joinpath("gpus.yaml").read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(text, Loader=loader)
    purchases = data.get("purchases") if isinstance(data, Mapping) else None
    if not isinstance(purchases, Mapping):
        return {}
    return {str(k): v for k, v in purchases.items() if isinstance(v, Mapping)}


@functools.cache
def gpu_models() -> tuple[str, ...]:
    """GPU classes the catalogue knows (``A100``, ``H100``, ``L4``...), for ``gpu_nodes.gpu_model``."""
    catalog = load_catalog()
    return tuple(sorted({*catalog.gpu_street_prices, *(t.gpu_class for t in catalog.types())}))


def _name_problem(value: str, what: str, pattern: re.Pattern[str] = _LABEL_RE, limit: int = 63) -> str | None:
    if len(value) > limit or not pattern.match(value):
        return (
            f"{what} must be lower-case letters, digits and '-' (a Kubernetes name, at most {limit} "
            f"characters, starting and ending with a letter or digit), got {_show(value)}"
        )
    return None


def _config_key(value: str | None, example: str, why: str) -> str | None:
    """A stack config key (the secret itself never goes in the spec)."""
    if value is not None and not _CONFIG_KEY_RE.match(value):
        raise ValueError(f"must name a stack config key like {example} ({why}), got {_show(value)}")
    return value


def _exactly_one_of(model: BaseModel, **fields: str) -> None:
    """Exactly one of ``fields`` (name -> what it is) is given."""
    given = [name for name in fields if getattr(model, name) is not None]
    if len(given) != 1:
        choices = " or ".join(f"{name} ({what})" for name, what in fields.items())
        raise ValueError(
            f"give exactly one of {choices}, got " + (" and ".join(given) if given else "neither")
        )


def _checked_name(value: str, what: str, pattern: re.Pattern[str] = _LABEL_RE, limit: int = 63) -> str:
    problem = _name_problem(value, what, pattern, limit)
    if problem:
        raise ValueError(problem)
    return value
