"""Kubernetes object answers: the object's name (generated when none is given), uid and id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi.runtime.mocks import MockResourceArgs

from gpufleet.sdktypes import stable_hex, stable_uuid

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks


def resource_id(_mocks: FleetMocks, token: str, args: MockResourceArgs, out: dict[str, Any]) -> str:
    """`namespace/name` (or `name` for cluster-scoped objects); `metadata.name` and `uid` are filled."""
    metadata = out.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
        out["metadata"] = metadata
    name = metadata.get("name") or f"{args.name}-{stable_hex(token, args.name, length=8)}"
    metadata.setdefault("name", name)
    metadata.setdefault("uid", stable_uuid(token, args.name))
    namespace = metadata.get("namespace")
    return f"{namespace}/{name}" if namespace else str(name)
