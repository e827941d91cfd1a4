"""The architecture each offline image lookup asks for (each cloud's image lookups in
``gpufleet/invokes/<cloud>.py`` record the ids they answer here).

An offline image id says nothing of its own, so the ids the lookups answer are kept with the
architecture asked for (`looked_up_images`); the engine hands them to the architecture rule (GF-FIT-003)
beside the stack's declared `gpufleet:images`.
"""

from __future__ import annotations

import json
import re
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks


# An image lookup's architecture, as its arguments ask for it: an `architecture` filter, or a name (filter,
# regex, SSM parameter path) that names one. The image ids the lookups answer are recorded with it
# (`FleetMocks.image_arches`), so the pack can hold them against the instance types (GF-FIT-003): an
# offline id says nothing of its own.
_ARM = re.compile(r"arm64|aarch64|arm_64|graviton", re.IGNORECASE)
_X86 = re.compile(r"x86_64|x86-64|amd64|(?<![a-z0-9])x64(?![a-z0-9])|_x64_", re.IGNORECASE)


def _arch_of(value: Any) -> str | None:
    text = json.dumps(value, sort_keys=True, default=str)
    if _ARM.search(text):
        return "arm64"
    if _X86.search(text):
        return "x86_64"
    return None


def _lookup_arch(a: dict[str, Any]) -> str | None:
    for item in a.get("filters") or []:
        if isinstance(item, dict) and item.get("name") == "architecture":
            return _arch_of(item.get("values"))
    return _arch_of(a.get("architecture")) or _arch_of(
        {k: v for k, v in a.items() if k in ("filters", "nameRegex", "name", "imageNameRegex", "osName")}
    )


_LOOKED_UP: weakref.WeakKeyDictionary[FleetMocks, dict[str, dict[str, str]]] = weakref.WeakKeyDictionary()


def record_image(m: FleetMocks, image: str, a: dict[str, Any], lookup: str) -> str | None:
    arch = _lookup_arch(a)
    if arch is not None:
        _LOOKED_UP.setdefault(m, {})[image] = {"arch": arch, "from": f"the {lookup} lookup"}
    return arch


def looked_up_images(mocks: FleetMocks) -> dict[str, dict[str, str]]:
    """image id -> {"arch", "from"}: the images this run's lookups answered with an architecture."""
    return dict(_LOOKED_UP.get(mocks, {}))
