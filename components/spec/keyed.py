"""Models keyed by cloud: one field per registered cloud that declares one in its ``spec/<cloud>.py``
(``storage.checkpoints.replica_regions``, ``onprem.scheduler.credentials``, ``burst.publishers``).

The neutral spec writes the model without fields (its docstring, validators and, for type checkers, a
``__getattr__`` saying what a cloud's field holds); :func:`keyed_model` adds the clouds' fields in the
registry's order, so adding a cloud adds its field without an edit here or in the model's module.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import create_model

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.components.spec.values import _Model

_M = TypeVar("_M", bound=_Model)


def keyed_model(name: str, base: type[_M], attribute: str) -> type[_M]:
    """``base`` with one field per cloud whose spec module defines ``attribute`` (a ``(type, FieldInfo)``
    pair, as :func:`pydantic.create_model` takes), named ``name`` in errors and the schema."""
    found = part_values(cloud_parts("gpufleet.components.spec"), attribute)
    fields: dict[str, Any] = {str(cloud): field for cloud, field in found.items()}
    return create_model(name, __base__=base, __doc__=base.__doc__, __module__=base.__module__, **fields)
