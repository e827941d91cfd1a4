"""The ResourceGraph: what a Pulumi program registers, as the engine (and CrossGuard) sees it.

Inputs are kept in the engine's wire form: camelCase property names, JSON-like values, unknown
values as the engine's unknown sentinels and secrets wrapped in the engine's secret signature. That
is exactly what a policy pack receives over the Analyzer protocol, so the offline evaluator and the
gRPC path deserialize the same data the same way.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from gpufleet.components.clouds import KUBERNETES, PROFILES, cloud_parts, part_union

_T = TypeVar("_T")

SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

GRAPH_VERSION = 1

# Components whose children a provider plugin builds outside the program, and why they stay opaque.
# Remote components (helm v4 `Chart`, yaml v2 `ConfigFile`/`ConfigGroup`, kustomize v2 `Directory`,
# pulumi-eks, awsx, ...) are recognised by their registration's `remote` flag instead.
OPAQUE_TYPES = {
    "kubernetes:helm.sh/v2:Chart": "its objects are rendered by `helm template` inside the Kubernetes "
    "provider plugin, which does not run offline",
    "kubernetes:helm.sh/v3:Chart": "its objects are rendered by `helm template` inside the Kubernetes "
    "provider plugin, which does not run offline",
    "kubernetes:kustomize:Directory": "its objects are rendered by kustomize inside the Kubernetes "
    "provider plugin, which does not run offline",
}
# Custom resources that create objects of their own that are never registered as resources.
OPAQUE_RESOURCES = {
    "kubernetes:helm.sh/v3:Release": "a Helm release: the Kubernetes provider installs the chart's "
    "objects itself and never registers them as resources, so no policy sees them",
}
# Components expanded in the program itself (the mocks answer the invoke they parse YAML with): no
# children means an empty manifest, not an opaque component.
EXPANDED_OFFLINE = frozenset({"kubernetes:yaml:ConfigFile", "kubernetes:yaml:ConfigGroup"})
# Packages known to ship provider plugins, besides those the graph has resources or providers of.
# Each cloud's own plugin packages are its module's PLUGIN_PACKAGES (gpufleet/<cloud>.py).
_PROVIDER_PACKAGES = frozenset(
    {
        *(p.type_prefix for p in PROFILES.values()),
        *part_union(cloud_parts("gpufleet"), "PLUGIN_PACKAGES"),
        KUBERNETES,
        "azure-native",
        "gcp",
        "random",
    }
)


def make_secret(value: Any) -> dict[str, Any]:
    """Wrap a value in the engine's secret signature."""
    return {SECRET_SIG_KEY: SECRET_SIG, "value": value}


def is_secret(value: Any) -> bool:
    return isinstance(value, dict) and value.get(SECRET_SIG_KEY) == SECRET_SIG


@dataclass(frozen=True)
class Resource:
    """One registration: a custom resource, a component, or a provider."""

    urn: str
    type: str
    name: str
    custom: bool
    inputs: dict[str, Any]
    outputs: dict[str, Any] = field(default_factory=dict)
    parent: str | None = None
    dependencies: tuple[str, ...] = ()
    property_dependencies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    provider: str | None = None
    id: str | None = None
    protect: bool = False
    remote: bool = False
    """Registered as a remote component: its children are built by a provider plugin."""

    @property
    def is_provider(self) -> bool:
        return self.type.startswith("pulumi:providers:")

    @property
    def is_component(self) -> bool:
        return not self.custom

    @property
    def package(self) -> str:
        """The package a type token belongs to: `aws`, `alicloud`, `tencentcloud`, `kubernetes`, ..."""
        if self.is_provider:
            return self.type.split(":", 2)[2]
        return self.type.split(":", 1)[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "custom": self.custom,
            "id": self.id,
            "parent": self.parent,
            "provider": self.provider,
            "protect": self.protect,
            "remote": self.remote,
            "dependencies": list(self.dependencies),
            "property_dependencies": {k: list(v) for k, v in self.property_dependencies.items()},
            "inputs": self.inputs,
            "outputs": self.outputs,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Resource:
        return cls(
            urn=data["urn"],
            type=data["type"],
            name=data["name"],
            custom=bool(data.get("custom", True)),
            inputs=dict(data.get("inputs") or {}),
            outputs=dict(data.get("outputs") or {}),
            parent=data.get("parent"),
            dependencies=tuple(data.get("dependencies") or ()),
            property_dependencies={k: tuple(v) for k, v in (data.get("property_dependencies") or {}).items()},
            provider=data.get("provider"),
            id=data.get("id"),
            protect=bool(data.get("protect", False)),
            remote=bool(data.get("remote", False)),
        )


@dataclass
class ResourceGraph:
    """Every registration of one program run, in registration order, with lookups."""

    project: str
    stack: str
    resources: list[Resource] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    synthetic: bool = True
    notes: list[str] = field(default_factory=list)
    image_arches: dict[str, dict[str, str]] = field(default_factory=dict)
    """image id -> {"arch", "from"}: what the program's image lookups answered offline (the mocks), for
    the architecture rule (GF-FIT-003). Not written with the graph: a graph read back judges without it."""
    _by_urn: dict[str, Resource] = field(default_factory=dict, init=False, repr=False)
    _by_type: dict[str, list[Resource]] = field(
        default_factory=lambda: defaultdict(list), init=False, repr=False
    )
    _children: dict[str, list[Resource]] = field(
        default_factory=lambda: defaultdict(list), init=False, repr=False
    )
    _derived: dict[str, tuple[int, Any]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def derived(self, key: str, build: Callable[[], _T]) -> _T:
        """`build()`, computed once per graph (again after resources are added): what pricing and judging
        both need of the same graph, such as the pack's `PolicyResource` objects."""
        stamp = len(self.resources)
        hit = self._derived.get(key)
        if hit is not None and hit[0] == stamp:
            value: _T = hit[1]
            return value
        built = build()
        self._derived[key] = (stamp, built)
        return built

    def __post_init__(self) -> None:
        existing, self.resources = self.resources, []
        for resource in existing:
            self.add(resource)

    def add(self, resource: Resource) -> None:
        if resource.urn in self._by_urn:
            raise ValueError(f"duplicate resource URN {resource.urn}")
        self.resources.append(resource)
        self._by_urn[resource.urn] = resource
        self._by_type[resource.type].append(resource)
        if resource.parent:
            self._children[resource.parent].append(resource)

    def __len__(self) -> int:
        return len(self.resources)

    def __iter__(self) -> Iterator[Resource]:
        return iter(self.resources)

    def get(self, urn: str) -> Resource | None:
        return self._by_urn.get(urn)

    def of_type(self, *types: str) -> list[Resource]:
        found: list[Resource] = []
        for token in types:
            found.extend(self._by_type.get(token, ()))
        return found

    def children(self, urn: str) -> list[Resource]:
        return list(self._children.get(urn, ()))

    def named(self, name: str) -> list[Resource]:
        return [r for r in self.resources if r.name == name]

    def custom_resources(self) -> list[Resource]:
        """Resources a cloud would create: no components, no providers."""
        return [r for r in self.resources if r.custom and not r.is_provider]

    def components(self) -> list[Resource]:
        return [r for r in self.resources if not r.custom]

    def type_counts(self) -> dict[str, int]:
        return {t: len(rs) for t, rs in sorted(self._by_type.items()) if rs}

    def descendants(self, urn: str) -> Iterable[Resource]:
        for child in self._children.get(urn, ()):
            yield child
            yield from self.descendants(child.urn)

    @property
    def opaque(self) -> list[dict[str, str]]:
        """Components (and Helm releases) whose children could not be looked inside offline: URN, type
        and why. Their children are built by a provider plugin, so no policy judged them."""
        providers = _PROVIDER_PACKAGES | {r.package for r in self.resources if r.custom or r.is_provider}
        found: list[dict[str, str]] = []
        for r in self.resources:
            if r.is_provider or r.type == "pulumi:pulumi:Stack":
                continue
            why = ""
            if r.remote:
                why = (
                    f"a remote component: the {r.package} provider plugin builds its children, "
                    "and it does not run offline"
                )
            elif r.custom:
                why = OPAQUE_RESOURCES.get(r.type, "")
            elif r.type in OPAQUE_TYPES:
                if not self._children.get(r.urn):
                    why = OPAQUE_TYPES[r.type]
            elif r.type not in EXPANDED_OFFLINE and r.package in providers and not self._children.get(r.urn):
                why = (
                    f"a component of the {r.package} package that registered no children offline: "
                    "a provider plugin builds them"
                )
            if why:
                found.append({"urn": r.urn, "type": r.type, "name": r.name, "why": why})
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "version": GRAPH_VERSION,
            "project": self.project,
            "stack": self.stack,
            "synthetic": self.synthetic,
            "notes": list(self.notes),
            "opaque": self.opaque,
            "config": self.config,
            "outputs": self.outputs,
            "resources": [r.to_json() for r in self.resources],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResourceGraph:
        if data.get("version") != GRAPH_VERSION:
            raise ValueError(
                f"unsupported resource graph version {data.get('version')!r}; expected {GRAPH_VERSION}"
            )
        return cls(
            project=data["project"],
            stack=data["stack"],
            resources=[Resource.from_json(r) for r in data.get("resources", [])],
            config=dict(data.get("config") or {}),
            outputs=dict(data.get("outputs") or {}),
            synthetic=bool(data.get("synthetic", True)),
            notes=list(data.get("notes") or []),
        )

    def write(self, path: Path) -> None:
        """Write atomically under a staging name of its own, every secret as `[secret]` and strict JSON,
        as `plan --json` writes it: a failed write never leaves half a file behind."""
        from gpufleet import finite
        from gpufleet.atomic import write_files_atomically
        from gpufleet.redact import redacted_json

        write_files_atomically({path: finite.dumps(redacted_json(self), default=str)})

    @classmethod
    def read(cls, path: Path) -> ResourceGraph:
        return cls.from_json(json.loads(path.read_text()))
