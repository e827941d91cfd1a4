"""What the installed bridged SDKs say about a resource type: its class and the wire names of its
properties, nested types included. Read from the SDKs' source files (importing pulumi-aws's hundreds of
modules to introspect them would take seconds), to prove `table.json` against them.

A resource's module file registers its token (`'aws:ec2/vpnConnection:VpnConnection',` in
`pulumi_aws/ec2/vpn_connection.py`); its properties are the `@pulumi.getter` names of the classes
there (`VpnConnectionArgs`, `_VpnConnectionState`, `VpnConnection`) and of the nested input and output
types of its module (`_inputs.py`, `outputs.py`) whose class name it is the longest resource-name
prefix of (`VpnConnectionTunnel1LogOptionsArgs` belongs to `VpnConnection`).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from gpufleet.checkov.naming import snake_case
from gpufleet.components.clouds import SDK_PACKAGES, cloud_parts, part_merged, part_values

_CLASS = re.compile(r"^class (\w+)", re.M)
_GETTER = re.compile(r"@pulumi\.getter(?:\(name=\"(?P<wire>[^\"]+)\"\))?\s*\n")
_DEF = re.compile(r"^\s*def (\w+)\(self\)", re.M)
_NESTED_FILES = ("_inputs.py", "outputs.py")


def _package_root(provider: str) -> Path | None:
    spec = importlib.util.find_spec(SDK_PACKAGES[provider])
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


@cache
def sdk_tokens() -> dict[str, Path]:
    """Every resource token the installed SDKs register, with the file of its class."""
    found: dict[str, Path] = {}
    for provider in SDK_PACKAGES:
        root = _package_root(provider)
        if root is None:
            continue
        registered = re.compile(rf"^\s+'({provider}:[^'\s]+)',$", re.M)
        for path in sorted(root.glob("*/*.py")):
            if path.name.startswith("_") or path.name == "outputs.py":
                continue
            for match in registered.finditer(path.read_text(encoding="utf-8")):
                found.setdefault(match.group(1), path)
    return found


def _classes(path: Path) -> dict[str, str]:
    """Class name -> its body, for one SDK file."""
    parts = _CLASS.split(path.read_text(encoding="utf-8"))
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _getters(body: str) -> set[str]:
    """Wire names of a class's properties: the getter's `name`, else the Python name of the method it
    decorates (after any further decorators, such as `@_utilities.deprecated(...)`)."""
    names = set()
    for match in _GETTER.finditer(body):
        method = _DEF.search(body, match.end())
        wire = match.group("wire") or (method.group(1) if method else None)
        if wire:
            names.add(wire)
    return names


@cache
def _module_nested(module_dir: Path) -> dict[str, set[str]]:
    """Owning resource class -> wire names of the nested types of one SDK module."""
    resources = sorted(
        {token.rpartition(":")[2] for token, path in sdk_tokens().items() if path.parent == module_dir},
        key=len,
        reverse=True,
    )
    owned: dict[str, set[str]] = {}
    for name in _NESTED_FILES:
        path = module_dir / name
        if not path.is_file():
            continue
        for cls, body in _classes(path).items():
            base = cls.removesuffix("Dict").removesuffix("Args")
            owner = next((r for r in resources if base.startswith(r) and base != r), None)
            if owner is not None:
                owned.setdefault(owner, set()).update(_getters(body))
    return owned


@cache
def sdk_properties(token: str) -> frozenset[str] | None:
    """Wire names (`ebsBlockDevices`) of a resource and its nested types; None when the installed SDKs
    have no such resource."""
    path = sdk_tokens().get(token)
    if path is None:
        return None
    cls = token.rpartition(":")[2]
    names: set[str] = set()
    for name, body in _classes(path).items():
        if name in (cls, f"{cls}Args", f"_{cls}State"):
            names |= _getters(body)
    names |= _module_nested(path.parent).get(cls, set())
    return frozenset(names)


def bridge_plurals(tf_name: str) -> set[str]:
    """The names the bridge may give a Terraform collection field: `rule` -> `rules`, `prometheus` ->
    `prometheuses`, `group_by` -> `group_bies`, `policy` -> `policies`."""
    head, _, last = tf_name.rpartition("_")
    prefix = f"{head}_" if head else ""
    forms = {f"{last}s", f"{last}es"}
    if last.endswith("y"):
        forms.add(f"{last[:-1]}ies")
    return {prefix + form for form in forms}


def sdk_problems(data: Mapping[str, Any]) -> list[str]:
    """Where `data` (table.json's shape) disagrees with the installed SDKs."""
    problems = []
    for token, entry in data["resources"].items():
        names = sdk_properties(token)
        if names is None:
            problems.append(f"{token}: no resource of the installed SDKs has this token")
            continue
        for pulumi_name, tf_name in entry["renames"].items():
            if pulumi_name not in names:
                problems.append(f"{token}: {pulumi_name} is no property of the resource or its nested types")
            elif tf_name == snake_case(pulumi_name):
                problems.append(
                    f"{token}: {pulumi_name} -> {tf_name} is only its snake_case (no entry needed)"
                )
            elif snake_case(pulumi_name) not in bridge_plurals(tf_name):
                problems.append(f"{token}: {pulumi_name} is not the bridge's plural of {tf_name}")
    return problems


# Modules whose Terraform prefix is not their Pulumi name (pulumi-aws maps `aws_dx_*` to `directconnect`):
# each cloud's TERRAFORM_MODULES in gpufleet/checkov/<cloud>.py.
_PARTS = cloud_parts("gpufleet.checkov")
_TERRAFORM_MODULES: dict[str, str] = part_merged(_PARTS, "TERRAFORM_MODULES")
# Providers whose module's `instance` resource is the module's own type (MODULE_NAMED_INSTANCE).
_MODULE_NAMED_INSTANCE = frozenset(
    key for key, named in part_values(_PARTS, "MODULE_NAMED_INSTANCE").items() if named
)


def bridge_terraform_types(token: str) -> set[str]:
    """The Terraform types the bridge's naming gives a token: the provider prefix, optionally the
    module, and the resource's snake_case (`aws:ec2/vpnConnection:VpnConnection` -> `aws_vpn_connection`,
    `aws:directconnect/gateway:Gateway` -> `aws_dx_gateway`); a legacy `V2` twin names its unversioned
    type; a Tencent module's `instance` is the module's own type (`tencentcloud:Vpc/instance:Instance`
    -> `tencentcloud_vpc`). Types named otherwise are listed where they are checked."""
    provider, _, rest = token.partition(":")
    module, _, name = rest.partition(":")[0].partition("/")
    modules = {snake_case(module), _TERRAFORM_MODULES.get(f"{provider}:{module}", snake_case(module))}
    names = {snake_case(name), snake_case(name.removesuffix("V2"))}
    found = {f"{provider}_{n}" for n in names} | {f"{provider}_{m}_{n}" for m in modules for n in names}
    if provider in _MODULE_NAMED_INSTANCE and name == "instance":
        found |= {f"{provider}_{m}" for m in modules}
    return found
