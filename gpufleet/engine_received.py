"""What the engine's child process sent back, checked field by field before a graph is built from it.

The child runs the judged program, so its answer is data to validate, never code or objects to trust:
`received` turns the parsed JSON into a `Recorded`, or into the one-paragraph message to raise.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gpufleet.components.clouds import PROFILES
from gpufleet.graph import Resource
from gpufleet.project import Project


@dataclass(frozen=True)
class Recorded:
    """What the child process sends back."""

    resources: list[Resource]
    outputs: dict[str, Any]
    notes: list[str]
    sdk_modules: list[str]
    image_arches: dict[str, dict[str, str]] = field(default_factory=dict)


# A Pulumi SDK module: any `pulumi_*` package, or a cloud's SDK package named otherwise (clouds.py).
_OTHER_SDKS = "".join(
    f"|{re.escape(p.sdk_package)}" for p in PROFILES.values() if not p.sdk_package.startswith("pulumi_")
)
_SDK_MODULE = re.compile(rf"(pulumi_[a-z0-9_]+{_OTHER_SDKS})(\.[a-z_][a-z0-9_]*)?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")


def received(sent: Any, project: Project) -> Recorded | str:
    """What the child sent, checked field by field before anything is built from it: the child runs the
    judged program, so its answer is data to validate, never code or objects to trust."""
    if isinstance(sent, str):
        return _CONTROL.sub("", sent)
    program = os.path.relpath(project.program_file, project.root)
    try:
        if not isinstance(sent, dict):
            raise TypeError("not an object")
        resources = [_resource(item) for item in _typed(sent.get("resources"), list, "resources")]
        outputs = _typed(sent.get("outputs"), dict, "outputs")
        notes = [_CONTROL.sub("", _typed(n, str, "note")) for n in _typed(sent.get("notes"), list, "notes")]
        modules = [
            name
            for name in _typed(sent.get("sdk_modules"), list, "sdk_modules")
            if isinstance(name, str) and _SDK_MODULE.fullmatch(name)
        ]
        images = _image_arches(sent.get("image_arches"))
    except (TypeError, ValueError, KeyError) as exc:
        return (
            f"the run of the program {program} sent back a result the engine cannot read ({exc}); the "
            f"program may have written to the engine's result channel itself, so nothing is reported"
        )
    return Recorded(
        resources=resources, outputs=outputs, notes=notes, sdk_modules=modules, image_arches=images
    )


def _image_arches(value: Any) -> dict[str, dict[str, str]]:
    """image id -> {"arch": x86_64 | arm64, "from": the lookup}; anything else is left out."""
    out: dict[str, dict[str, str]] = {}
    for image, found in _typed(value or {}, dict, "image_arches").items():
        if not isinstance(image, str) or not isinstance(found, dict):
            continue
        arch, lookup = found.get("arch"), found.get("from")
        if arch in ("x86_64", "arm64") and isinstance(lookup, str):
            out[_CONTROL.sub("", image)] = {"arch": arch, "from": _CONTROL.sub("", lookup)}
    return out


_T = TypeVar("_T")


def _typed(value: Any, kind: type[_T], what: str) -> _T:
    if not isinstance(value, kind):
        raise TypeError(f"{what} is not a {kind.__name__}")
    return value


def _optional_str(value: Any, what: str) -> str | None:
    return None if value is None else _typed(value, str, what)


def _strings(value: Any, what: str) -> tuple[str, ...]:
    return tuple(_typed(item, str, what) for item in _typed(value, list, what))


def _resource(data: Any) -> Resource:
    data = _typed(data, dict, "resource")
    urn = _typed(data["urn"], str, "urn")
    if not urn.startswith("urn:pulumi:"):
        raise ValueError(f"{urn[:80]!r} is not a URN")
    return Resource(
        urn=urn,
        type=_typed(data["type"], str, "type"),
        name=_typed(data["name"], str, "name"),
        custom=_typed(data["custom"], bool, "custom"),
        inputs=_typed(data["inputs"], dict, "inputs"),
        outputs=_typed(data["outputs"], dict, "outputs"),
        parent=_optional_str(data.get("parent"), "parent"),
        dependencies=_strings(data.get("dependencies", []), "dependencies"),
        property_dependencies={
            _typed(key, str, "property"): _strings(value, "property_dependencies")
            for key, value in _typed(
                data.get("property_dependencies", {}), dict, "property_dependencies"
            ).items()
        },
        provider=_optional_str(data.get("provider"), "provider"),
        id=_optional_str(data.get("id"), "id"),
        protect=_typed(data.get("protect", False), bool, "protect"),
        remote=_typed(data.get("remote", False), bool, "remote"),
    )
