"""The offline graph in the shape checkov reads: a `terraform show -json` plan for the bridged providers
(pulumi-aws, pulumi-alicloud, tencentcloud-iac-pulumi) and Kubernetes manifests for pulumi-kubernetes.

Each exported resource keeps its URN and logical name beside its Terraform address, so checkov's
findings map back to the Pulumi resource they are about.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources as package_files
from typing import Any

from gpufleet.checkov.naming import snake_case, tf_identifier
from gpufleet.components.clouds import PROFILES
from gpufleet.graph import UNKNOWN_STRING, Resource, ResourceGraph, is_secret

TERRAFORM_VERSION = "1.9.8"
PROVIDERS: dict[str, str] = {p.key: p.terraform_provider for p in PROFILES.values()}
# Outputs another resource's input is most often taken from, in the order a reference prefers them.
_REFERENCED_OUTPUTS = ("id", "arn", "name", "bucket", "keyId")


@dataclass(frozen=True)
class TypeInfo:
    tf_type: str
    renames: Mapping[str, str]


@dataclass(frozen=True)
class Table:
    resources: Mapping[str, TypeInfo]
    maps: frozenset[str]
    json_documents: frozenset[str]


@cache
def load_table() -> Table:
    """The token table shipped beside this module (see table_source.py)."""
    text = package_files.files("gpufleet.checkov").joinpath("table.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return Table(
        resources={
            token: TypeInfo(entry["type"], dict(entry["renames"]))
            for token, entry in data["resources"].items()
        },
        maps=frozenset(data["maps"]),
        json_documents=frozenset(data["json_documents"]),
    )


@dataclass(frozen=True)
class Origin:
    """The Pulumi resource behind an exported address or manifest."""

    urn: str
    name: str
    type: str


@dataclass
class Export:
    """One stack's export."""

    stack: str
    plan: dict[str, Any]
    manifests: list[dict[str, Any]]
    addresses: dict[str, Origin] = field(default_factory=dict)
    """Terraform address (`aws_s3_bucket.ckpt`) -> the Pulumi resource."""
    objects: dict[str, Origin] = field(default_factory=dict)
    """Kubernetes `Kind.namespace.name` (checkov's resource id) -> the Pulumi resource."""
    unmapped: Counter[str] = field(default_factory=Counter)
    """Custom resources of a bridged provider with no Terraform type in the table, by type token."""

    @property
    def exported(self) -> int:
        return len(self.addresses) + len(self.objects)


def _drop(value: Any) -> bool:
    return value is None or value == UNKNOWN_STRING or (isinstance(value, (list, dict)) and not value)


def _number(value: float) -> int | float:
    return int(value) if value.is_integer() else value


class _Converter:
    def __init__(self, table: Table, info: TypeInfo) -> None:
        self.table = table
        self.info = info

    def name(self, key: str) -> str:
        return self.info.renames.get(key) or snake_case(key)

    def value(self, key: str, value: Any) -> Any:
        """Terraform's form of one property value, or None when Terraform would have none."""
        if is_secret(value):
            # Secret values stay out of the file checkov reads: Terraform marks them sensitive.
            return None
        if isinstance(value, (bool, str)):
            return None if value == UNKNOWN_STRING else value
        if isinstance(value, float):
            return _number(value)
        if isinstance(value, int):
            return value
        if key in self.table.json_documents and isinstance(value, (dict, list)):
            return json.dumps(_plain(value), separators=(",", ":"))
        if isinstance(value, dict):
            if key in self.table.maps:
                kept = {k: _plain(v) for k, v in value.items() if not _drop(v) and not is_secret(v)}
                return kept or None
            block = self.block(value)
            # A single nested object is a Terraform block: a list of one, as `terraform show -json` has it.
            return [block] if block else None
        if isinstance(value, list):
            # Objects in a list are blocks (an autoscaling group's `tags` too), each kept as one item.
            items: list[Any] = [
                (self.block(item) or None)
                if isinstance(item, dict) and not is_secret(item)
                else self.value(key, item)
                for item in value
            ]
            present = [i for i in items if i is not None]
            return present or None
        return None

    def block(self, values: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in values.items():
            if key.startswith("__") or _drop(value):
                continue
            converted = self.value(key, value)
            if converted is not None:
                out[self.name(key)] = converted
        return out


def _plain(value: Any) -> Any:
    """A value as plain JSON: secrets unwrapped to nothing, integral floats as ints."""
    if is_secret(value):
        return None
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _referenceable(resource: Resource, address: str) -> dict[str, str]:
    """The values another resource may hold of this one, each with the Terraform reference to it."""
    found: dict[str, str] = {}
    values = {"id": resource.id, **resource.outputs}
    for attr in _REFERENCED_OUTPUTS:
        value = values.get(attr)
        if isinstance(value, str) and value and value != UNKNOWN_STRING and value not in found:
            found[value] = f"{address}.{'id' if attr == 'keyId' else snake_case(attr)}"
    return found


def _references(
    value: Any, dependencies: Iterable[str], known: Mapping[str, Mapping[str, str]]
) -> list[str] | None:
    """Terraform references when `value` (a string or a list of strings) is made only of values of the
    resources it depends on; None when any part of it is a literal."""
    strings = value if isinstance(value, list) else [value]
    if not strings or not all(isinstance(s, str) for s in strings):
        return None
    refs: list[str] = []
    for s in strings:
        match = next((known[urn][s] for urn in dependencies if urn in known and s in known[urn]), None)
        if match is None:
            return None
        refs += [match, match.rsplit(".", 1)[0]]
    return list(dict.fromkeys(refs))


def _nested_references(
    blocks: Any, dependencies: Iterable[str], known: Mapping[str, Mapping[str, str]]
) -> Any:
    """Within converted blocks (lists of dicts), take out each field made only of the dependencies'
    values and return the expressions that say where they come from, shaped like the blocks (one
    entry per block, as Terraform's configuration has them); None when there is none."""
    if not isinstance(blocks, list) or not blocks or not all(isinstance(b, dict) for b in blocks):
        return None
    deps = tuple(dependencies)
    found = False
    expressions: list[dict[str, Any]] = []
    for block in blocks:
        entry: dict[str, Any] = {}
        for field_name in list(block):
            value = block[field_name]
            refs = _references(value, deps, known) if isinstance(value, (str, list)) else None
            if refs:
                entry[field_name] = {"references": refs}
                del block[field_name]
                continue
            inner = _nested_references(value, deps, known)
            if inner is not None:
                entry[field_name] = inner
        found = found or bool(entry)
        expressions.append(entry)
    return expressions if found else None


def _addresses(resources: Iterable[Resource], table: Table) -> dict[str, str]:
    """URN -> unique Terraform address for every resource with a Terraform type."""
    taken: set[str] = set()
    out: dict[str, str] = {}
    for r in resources:
        base = f"{table.resources[r.type].tf_type}.{tf_identifier(r.name)}"
        address, n = base, 1
        while address in taken:
            n += 1
            address = f"{base}_{n}"
        taken.add(address)
        out[r.urn] = address
    return out


def kubernetes_manifest(resource: Resource) -> dict[str, Any] | None:
    """The manifest of a pulumi-kubernetes resource: its inputs are the object already."""
    parts = resource.type.split(":", 2)
    if len(parts) != 3 or not isinstance(resource.inputs, dict):
        return None
    _, group_version, kind = parts
    if kind.endswith(("List", "Patch")):
        return None
    api_version = group_version[len("core/") :] if group_version.startswith("core/") else group_version
    body = {k: _plain(v) for k, v in resource.inputs.items() if not k.startswith("__") and not is_secret(v)}
    body["apiVersion"] = api_version
    body["kind"] = kind
    metadata = body.get("metadata")
    if not isinstance(metadata, dict):
        metadata = body["metadata"] = {}
    if not isinstance(metadata.get("name"), str) or not metadata["name"]:
        metadata["name"] = resource.name
    return body


def object_id(manifest: Mapping[str, Any]) -> str:
    """checkov's id of a Kubernetes object: `Kind.namespace.name` (namespace `default` when unset)."""
    metadata = manifest.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else None
    return f"{manifest.get('kind')}.{namespace or 'default'}.{metadata.get('name')}"


def export_graph(graph: ResourceGraph, table: Table | None = None) -> Export:
    """One stack's plan and manifests."""
    table = table or load_table()
    custom = graph.custom_resources()
    mapped = [r for r in custom if r.type in table.resources]
    addresses = _addresses(mapped, table)
    known = {r.urn: _referenceable(r, addresses[r.urn]) for r in mapped}
    planned: list[dict[str, Any]] = []
    configured: list[dict[str, Any]] = []
    export = Export(stack=graph.stack, plan={}, manifests=[])
    for r in mapped:
        info = table.resources[r.type]
        address = addresses[r.urn]
        tf_type, tf_name = address.split(".", 1)
        converter = _Converter(table, info)
        values: dict[str, Any] = {}
        expressions: dict[str, Any] = {}
        for key, value in r.inputs.items():
            if key.startswith("__") or _drop(value):
                continue
            deps = r.property_dependencies.get(key, ())
            refs = _references(value, deps, known) if deps else None
            if refs:
                # As in a real plan: a value taken from another resource is unknown until apply, and the
                # configuration says where it comes from; checkov's graph checks follow that edge.
                expressions[converter.name(key)] = {"references": refs}
                continue
            converted = converter.value(key, value)
            if converted is None:
                continue
            nested = _nested_references(converted, deps, known) if deps else None
            if nested is not None:
                expressions[converter.name(key)] = nested
            values[converter.name(key)] = converted
        planned.append(
            {
                "address": address,
                "mode": "managed",
                "type": tf_type,
                "name": tf_name,
                "provider_name": PROVIDERS.get(r.package, r.package),
                "schema_version": 0,
                "values": values,
                "sensitive_values": {},
            }
        )
        if expressions:
            configured.append(
                {
                    "address": address,
                    "mode": "managed",
                    "type": tf_type,
                    "name": tf_name,
                    "provider_config_key": r.package,
                    "expressions": expressions,
                }
            )
        export.addresses[address] = Origin(r.urn, r.name, r.type)
    for r in custom:
        if r.type in table.resources:
            continue
        if r.package in PROVIDERS:
            export.unmapped[r.type] += 1
        elif r.package == "kubernetes":
            manifest = kubernetes_manifest(r)
            if manifest is not None:
                export.manifests.append(manifest)
                export.objects.setdefault(object_id(manifest), Origin(r.urn, r.name, r.type))
    export.plan = {
        "format_version": "1.2",
        "terraform_version": TERRAFORM_VERSION,
        "planned_values": {"root_module": {"resources": planned}},
        "configuration": {"root_module": {"resources": configured}},
    }
    return export
