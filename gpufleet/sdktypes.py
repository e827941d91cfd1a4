"""Typed placeholders for outputs, driven by the provider SDKs' own type annotations.

Under `pulumi preview` a provider fills every output it computes; offline nothing does, and in a
preview the SDK leaves an output the mocks do not return unknown. Programs that run under a real
preview read those outputs (`lb.dns_name`, `cluster.certificate_authority.data`,
`service.status.load_balancer.ingress[0].hostname`) and build children in `apply` callbacks on them,
so every declared output gets a plausible value of its declared type here: the SDK's resource class
(or an invoke's `Get...Result` class) lists each output with its type, nested output types included.
No table per resource type: any installed provider package is described the same way.

Every value made here is synthetic. Strings are derived from the resource's name and the property
(`web-dns-name...`), ARNs follow the cloud's ARN shape, numbers are 1, booleans false, lists hold one
element (programs index `[0]`), maps are empty and nested objects are filled to a bounded depth.
"""

from __future__ import annotations

import base64
import collections.abc
import enum
import functools
import hashlib
import importlib
import json
import keyword
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from pulumi import _types
from pulumi.runtime import rpc

from gpufleet.components.clouds import ACCOUNT_CLOUD, PROFILES, cloud_parts, of_type
from gpufleet.graph import SECRET_SIG_KEY

# Python packages of providers whose name is not `pulumi_<package>`.
_PYTHON_PACKAGES: dict[str, str] = {
    p.key: p.sdk_package for p in PROFILES.values() if p.sdk_package != f"pulumi_{p.key}"
}

# Nested output types deeper than this are left out (None); real outputs rarely nest further.
MAX_DEPTH = 6

# Placeholders are built once per type with these markers, then rendered per resource.
_NAME = "\x00name\x00"
_REGION = "\x00region\x00"

_LIST_ORIGINS = (list, collections.abc.Sequence, typing.Sequence, typing.List)  # noqa: UP006
_MAP_ORIGINS = (dict, collections.abc.Mapping, typing.Mapping, typing.Dict)  # noqa: UP006

_PLACEHOLDER_DATE = "2025-01-01T00:00:00Z"
# Base64 values programs decode: a `user:password` token (the user the account cloud's registry tokens
# carry: REGISTRY_TOKEN_USER in gpufleet/<cloud>.py) and a PEM certificate.
_TOKEN_USER: str = cloud_parts("gpufleet")[ACCOUNT_CLOUD].REGISTRY_TOKEN_USER
_PLACEHOLDER_TOKEN = base64.b64encode(f"{_TOKEN_USER}:offline-placeholder-password".encode()).decode()
_PLACEHOLDER_CERTIFICATE = base64.b64encode(
    b"-----BEGIN CERTIFICATE-----\nb2ZmbGluZSBwbGFjZWhvbGRlcg==\n-----END CERTIFICATE-----\n"
).decode()


def stable_hex(*parts: str, length: int = 17) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
    return digest[:length]


def stable_uuid(*parts: str) -> str:
    h = stable_hex(*parts, length=32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


# -- finding the SDK classes ------------------------------------------------------------------------


def _module_infos(package: str) -> list[Mapping[str, Any]]:
    """What the installed SDK of `package` registered about its modules (`fqn`, `classes`), once
    the program imported it."""
    infos: list[Mapping[str, Any]] = []
    for key, modules in list(rpc._RESOURCE_MODULES.items()):
        if key.startswith(f"{package}:"):
            for module in modules:
                info = getattr(module, "mod_info", None)
                if isinstance(info, Mapping) and isinstance(info.get("fqn"), str):
                    infos.append(info)
    return infos


def _registered_class(token: str) -> tuple[str, str] | None:
    """(Python module, class name) the SDK registered for resource `token`."""
    for info in _module_infos(token.split(":", 1)[0]):
        classes = info.get("classes")
        if isinstance(classes, Mapping) and isinstance(classes.get(token), str):
            return str(info["fqn"]), str(classes[token])
    return None


def _registered_module(package: str, module_path: str) -> str | None:
    """The Python module of the SDK's module `module_path` (`ecr/getCredentials` -> `pulumi_aws.ecr`)."""
    prefix = module_path.split("/", maxsplit=1)[0]
    for info in _module_infos(package):
        if str(info.get("mod", "")).split("/", maxsplit=1)[0] == prefix:
            return str(info["fqn"])
    return None


def _guessed_module(package: str, module_path: str) -> str:
    """`aws` + `s3/bucket` -> `pulumi_aws.s3`; `kubernetes` + `apps/v1` -> `pulumi_kubernetes.apps.v1`."""
    root = _PYTHON_PACKAGES.get(package, f"pulumi_{package.replace('-', '_')}")
    if package == "kubernetes":
        group, _, version = module_path.partition("/")
        group = group.split(".")[0]
        if version.startswith("v") and version[1:2].isdigit():
            return f"{root}.{group}.{version}"
        return f"{root}.{group}"
    first = module_path.split("/", maxsplit=1)[0]
    if first == "index":
        return root
    name = first.lower()
    if keyword.iskeyword(name):
        name += "_"
    return f"{root}.{name}"


def _import_attr(module_name: str, attr: str) -> Any:
    try:
        return getattr(importlib.import_module(module_name), attr, None)
    except Exception:
        return None


@functools.cache
def resource_class(token: str) -> type | None:
    """The SDK class that declares the outputs of resource `token`, or None if none is installed."""
    parts = token.split(":")
    if len(parts) != 3 or not all(parts):
        return None
    package, module_path, class_name = parts
    registered = _registered_class(token)
    module_name, class_name = registered or (_guessed_module(package, module_path), class_name)
    found = _import_attr(module_name, class_name)
    return found if isinstance(found, type) else None


@functools.cache
def invoke_result_class(token: str) -> type | None:
    """The invoke's result type: `aws:ecr/getAuthorizationToken:getAuthorizationToken` ->
    `pulumi_aws.ecr.GetAuthorizationTokenResult`."""
    parts = token.split(":")
    if len(parts) != 3 or not all(parts):
        return None
    package, module_path, function = parts
    class_name = f"{function[:1].upper()}{function[1:]}Result"
    for module_name in dict.fromkeys(
        m for m in (_registered_module(package, module_path), _guessed_module(package, module_path)) if m
    ):
        found = _import_attr(module_name, class_name)
        if isinstance(found, type) and _types.is_output_type(found):
            return found
    return None


@functools.cache
def declared_types(cls: type) -> dict[str, Any]:
    """Wire name -> annotated type of every output `cls` declares (a resource or an output type)."""
    try:
        if _types.is_output_type(cls):
            return dict(_types.output_type_types(cls))
        return dict(_types.resource_types(cls))
    except Exception:
        return {}


# -- type shapes ------------------------------------------------------------------------------------


@functools.cache
def _shape(typ: Any) -> tuple[str, Any]:
    """(`str`|`bool`|`int`|`float`|`enum`|`literal`|`list`|`map`|`object`|`any`, argument)."""
    if typ is None or typ is Any:
        return "any", None
    origin = typing.get_origin(typ)
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in typing.get_args(typ) if a is not type(None)]
        return _shape(members[0]) if members else ("any", None)
    if origin is typing.Literal:
        return "literal", typing.get_args(typ)[0]
    if typ is str or typ is bool or typ is int or typ is float:
        return typ.__name__, None
    if isinstance(typ, type) and issubclass(typ, enum.Enum):
        return "enum", typ
    if typ in _LIST_ORIGINS or origin in _LIST_ORIGINS:
        args = typing.get_args(typ)
        return "list", args[0] if args else None
    if typ in _MAP_ORIGINS or origin in _MAP_ORIGINS:
        args = typing.get_args(typ)
        return "map", args[1] if len(args) == 2 else None
    if isinstance(typ, type) and _types.is_output_type(typ):
        return "object", typ
    return "any", None


# -- placeholders -----------------------------------------------------------------------------------


def _kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).replace("_", "-").lower()


@functools.cache
def _string(token: str, prop: str) -> str:
    """A plausible string for property `prop` of `token`, with the name and region markers."""
    package, _, rest = token.partition(":")
    module_path = rest.split(":")[0] if rest else ""
    module = module_path.split("/")[0]
    resource = module_path.split("/")[1] if "/" in module_path else module
    key = prop.lower()
    slug = f"{_NAME}-{_kebab(prop)}"
    if key.endswith("authorizationtoken"):
        # Programs decode it and split `user:password` (ECR credentials for a docker login).
        return _PLACEHOLDER_TOKEN
    if key == "data" or key.endswith(("base64", "certificatedata", "cadata")):
        return _PLACEHOLDER_CERTIFICATE
    if key.endswith("arn"):
        return _placeholder_arn(package, module, resource, key, slug)
    address = _placeholder_address(key, slug)
    if address is not None:
        return address
    if prop.endswith(("At", "Time", "Date", "Timestamp")) or key in ("created", "updated", "expiration"):
        return _PLACEHOLDER_DATE
    if key.endswith(("policy", "json", "document")):
        return "{}"
    if key in ("region", "regionid", "location"):
        return _REGION
    if key in ("zone", "zoneid", "availabilityzone", "masterzoneid"):
        return f"{_REGION}a"
    return slug


def _placeholder_arn(package: str, module: str, resource: str, key: str, slug: str) -> str:
    """An ARN (or the cloud's own resource name) in the format of the provider `package`: the cloud's
    mocks module (``gpufleet/mocks/<cloud>.py``) writes it; a package of no registered cloud gets the
    account cloud's format."""
    cloud = of_type(f"{package}:") or PROFILES[ACCOUNT_CLOUD]
    # Imported here: the mocks modules import this one.
    write = cast(PlaceholderArn, importlib.import_module(f"gpufleet.mocks.{cloud.key}").placeholder_arn)
    return write(module, _kebab(resource), key, _REGION, slug)


# (module, resource in kebab case, property name in lower case, region, name slug) -> the ARN.
PlaceholderArn = Callable[[str, str, str, str, str], str]


def _placeholder_address(key: str, slug: str) -> str | None:
    """A CIDR, URL, host name or IP address for a property named like one (`key`, lower case)."""
    if "cidr" in key:
        return "10.0.0.0/16"
    if key.endswith(("url", "uri")):
        return f"https://{slug}.{_REGION}.placeholder.invalid"
    if key.endswith(("dnsname", "hostname", "endpoint", "domainname", "fqdn", "host", "domain")):
        return f"{slug}.{_REGION}.placeholder.invalid"
    if key.endswith(("publicip", "publicipaddress", "eipaddress")):
        return "203.0.113.10"
    if key.endswith(("ip", "ipaddress")) or key == "address":
        return "10.0.0.10"
    return None


def _build(typ: Any, token: str, prop: str, depth: int) -> Any:
    kind, arg = _shape(typ)
    if kind == "str":
        return _string(token, prop)
    if kind == "bool":
        return False
    if kind == "int":
        return 443 if prop.lower().endswith("port") else 1
    if kind == "float":
        return 1.0
    if kind == "literal":
        return arg
    if kind == "enum":
        members = list(arg)
        return members[0].value if members else None
    if kind == "list":
        if _shape(arg)[0] == "any" or depth >= MAX_DEPTH:
            return []
        return [_build(arg, token, prop, depth + 1)]
    if kind == "map":
        return {}
    if kind == "object":
        if depth >= MAX_DEPTH:
            return None
        return _object_template(arg, token, depth)
    return None


@functools.cache
def _object_template_cached(cls: type, token: str, depth: int) -> dict[str, Any]:
    return {wire: _build(t, token, wire, depth + 1) for wire, t in declared_types(cls).items()}


def _object_template(cls: type, token: str, depth: int) -> dict[str, Any]:
    return _object_template_cached(cls, token, depth)


def _render(value: Any, name: str, region: str) -> Any:
    """A fresh copy of a template value with the markers replaced."""
    if isinstance(value, str):
        if "\x00" in value:
            return value.replace(_NAME, name).replace(_REGION, region)
        return value
    if isinstance(value, dict):
        return {k: _render(v, name, region) for k, v in value.items()}
    if isinstance(value, list):
        return [_render(v, name, region) for v in value]
    return value


@dataclass(frozen=True)
class Owner:
    """Whose outputs are being made: the type token, the resource's (or function's) name, its region."""

    token: str
    name: str
    region: str


def placeholder(typ: Any, prop: str, owner: Owner) -> Any:
    """A value of type `typ` for property `prop` of `owner`."""
    return _render(_build(typ, owner.token, prop, 0), owner.name, owner.region)


# -- conforming known values to the declared type ---------------------------------------------------


_PLAIN = (dict, list, str, int, float, bool)


def _is_secret(value: Any) -> bool:
    return isinstance(value, dict) and SECRET_SIG_KEY in value and "value" in value


# A scalar conversion's answer when the value cannot be read as the declared type.
_MISSING: Any = object()


def _as_str(value: Any, _arg: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), default=str)
    return _MISSING


def _as_bool(value: Any, _arg: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if isinstance(value, int | float):
        return bool(value)
    return _MISSING


def _as_int(value: Any, _arg: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,18}", value.strip()):
        return int(value)
    return _MISSING


def _as_float(value: Any, _arg: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    return _MISSING


def _as_enum(value: Any, enum_class: Any) -> Any:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        try:
            enum_class(value)
        except Exception:  # an enum's own constructor may raise anything
            pass
        else:
            return value
    return _MISSING


# Scalar kinds of `_shape`, and how a value is read as each.
_SCALARS: dict[str, Callable[[Any, Any], Any]] = {
    "str": _as_str,
    "literal": _as_str,
    "bool": _as_bool,
    "int": _as_int,
    "float": _as_float,
    "enum": _as_enum,
}


def conform(value: Any, typ: Any, prop: str, owner: Owner, depth: int = 0) -> Any:
    """`value` (an input echoed, a modelled output) in a shape the SDK accepts for type `typ`.

    A value of the wrong shape is replaced by a placeholder of the right one: under a real engine the
    provider returns the declared type, and the SDK raises on a dict where a string is declared.
    """
    if value is None or depth > MAX_DEPTH * 2 or not isinstance(value, _PLAIN):
        # A resource passed as an input, an unknown: the SDK takes them back as they are.
        return value
    if isinstance(value, dict) and _is_secret(value):
        return {**value, "value": conform(value["value"], typ, prop, owner, depth)}
    kind, arg = _shape(typ)
    if kind == "any":
        return value
    convert = _SCALARS.get(kind)
    if convert is not None:
        converted = convert(value, arg)
        return placeholder(typ, prop, owner) if converted is _MISSING else converted
    if kind == "list":
        items = value if isinstance(value, list) else [value]
        return [conform(v, arg, prop, owner, depth + 1) for v in items]
    if kind == "map":
        if isinstance(value, dict):
            return {k: conform(v, arg, str(k), owner, depth + 1) for k, v in value.items()}
        return {}
    if kind == "object":
        if isinstance(value, list) and value and isinstance(value[0], dict):
            value = value[0]
        if isinstance(value, dict):
            types = declared_types(arg)
            return {k: conform(v, types.get(k), k, owner, depth + 1) for k, v in value.items()}
    return placeholder(typ, prop, owner)


def complete(
    cls: type | None, owner: Owner, values: Mapping[str, Any]
) -> tuple[dict[str, Any], frozenset[str]]:
    """`values` conformed to the outputs `cls` declares, plus a placeholder for every one missing.

    Returns the whole answer and the names of the properties that are placeholders.
    """
    if cls is None:
        return dict(values), frozenset()
    types = declared_types(cls)
    answer: dict[str, Any] = {}
    for key, value in values.items():
        answer[key] = conform(value, types[key], key, owner) if key in types else value
    filled = [key for key in types if answer.get(key) is None]
    for key in filled:
        answer[key] = placeholder(types[key], key, owner)
    return answer, frozenset(filled)


__all__ = [
    "MAX_DEPTH",
    "Owner",
    "complete",
    "conform",
    "declared_types",
    "invoke_result_class",
    "placeholder",
    "resource_class",
]
