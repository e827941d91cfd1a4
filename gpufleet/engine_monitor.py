"""The engine's recording resource monitor: every registration a program makes, kept from the full
request the SDK sends (parent, dependencies, provider, component or custom), with its inputs in the
engine's wire form (`gpufleet.engine` runs the program against it)."""

from __future__ import annotations

import math
import threading
from dataclasses import replace
from typing import Any

import pulumi
from google.protobuf import struct_pb2
from pulumi.runtime.mocks import MockMonitor

from gpufleet.childrun import RESOURCE_SIG, without_resource_refs
from gpufleet.graph import SECRET_SIG_KEY, UNKNOWN_STRING, Resource
from gpufleet.mocks import FleetMocks, encode_documents, recorded_outputs

STACK_TYPE = "pulumi:pulumi:Stack"


# -- wire form -------------------------------------------------------------------------------------


def _from_struct(value: Any) -> Any:
    """A protobuf Struct value as JSON-like data, the way CrossGuard receives it."""
    if isinstance(value, struct_pb2.Struct):
        out = {k: _from_struct(v) for k, v in value.items()}
        if out.get(SECRET_SIG_KEY) == RESOURCE_SIG:
            # A resource passed as an input: what a policy sees is its id (custom) or URN.
            return out.get("id") or out.get("urn")
        return out
    if isinstance(value, struct_pb2.ListValue):
        return [_from_struct(v) for v in value]
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        if not math.isfinite(value):
            return _non_finite(value)
    return value


class NonFinite(str):
    """A NaN or infinite number from the program, kept as protobuf's JSON text for it (`"NaN"`,
    `"Infinity"`, `"-Infinity"`): JSON cannot carry it, nor can an int. The run names each in a note."""

    __slots__ = ()


_seen = threading.local()


def _non_finite(value: float) -> NonFinite:
    _seen.flag = True
    return NonFinite("NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity"))


def _marker_paths(value: Any, path: str) -> list[str]:
    """Where `NonFinite` markers sit in `value`, as `ingress[0].fromPort`."""
    if isinstance(value, NonFinite):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _marker_paths(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _marker_paths(v, f"{path}[{i}]")]
    return []


def _from_python(value: Any) -> Any:
    """A value produced by the mocks as JSON-like data."""
    if isinstance(value, dict):
        return {str(k): _from_python(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_from_python(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        return value if math.isfinite(value) else _non_finite(value)
    if isinstance(value, pulumi.Resource):
        return getattr(value, "_name", None) or repr(value)
    if type(value).__name__ == "Unknown":
        return UNKNOWN_STRING
    return str(value)


def _provider_urn(reference: str) -> str | None:
    """`<urn>::<id>` -> `<urn>`."""
    if not reference:
        return None
    return reference.rsplit("::", 1)[0]


# -- recording monitor -----------------------------------------------------------------------------


class RecordingMonitor(MockMonitor):
    """A mock resource monitor that keeps the whole registration request, not only type/name/inputs."""

    def __init__(self, mocks: FleetMocks) -> None:
        super().__init__(mocks)
        self.records: dict[str, Resource] = {}
        self.stack_urn: str | None = None
        self._lock = threading.Lock()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """URNs as the Pulumi engine makes them: the parent's full type chain, without the root stack."""
        if parent:
            qualified = parent.split("::")[2]
            if qualified != STACK_TYPE:
                type_ = f"{qualified}${type_}"
        stack, project = pulumi.get_stack(), pulumi.get_project()
        return f"urn:pulumi:{stack}::{project}::{type_}::{name}"

    def _keep(self, record: Resource) -> None:
        with self._lock:
            # A URN registered twice is a program error the real engine rejects; keep the first.
            self.records.setdefault(record.urn, record)

    def RegisterResource(self, request: Any) -> Any:
        response = super().RegisterResource(without_resource_refs(request, "object"))  # type: ignore[no-untyped-call]
        urn = response.urn
        _seen.flag = False
        inputs = _from_struct(request.object)
        if request.type == STACK_TYPE:
            self.stack_urn = urn
            self._keep(Resource(urn=urn, type=STACK_TYPE, name=request.name, custom=False, inputs={}))
            return response
        registration = self.resources.get(urn)
        state = _from_python(recorded_outputs(registration.state)) if registration is not None else {}
        if _seen.flag:
            self._note_non_finite(request.type, request.name, {"inputs": inputs, "outputs": state})
        self._keep(
            Resource(
                urn=urn,
                type=request.type,
                name=request.name,
                custom=bool(request.custom),
                remote=bool(getattr(request, "remote", False)),
                inputs=inputs,
                outputs={**encode_documents(inputs), **state},
                parent=request.parent or None,
                dependencies=tuple(sorted(set(request.dependencies))),
                property_dependencies={
                    key: tuple(sorted(set(deps.urns)))
                    for key, deps in request.propertyDependencies.items()
                    if deps.urns
                },
                provider=_provider_urn(request.provider),
                id=(response.id or None) if request.custom else None,
                protect=bool(getattr(request, "protect", False)),
            )
        )
        return response

    def ReadResource(self, request: Any) -> Any:
        response = super().ReadResource(without_resource_refs(request, "properties"))  # type: ignore[no-untyped-call]
        registration = self.resources.get(response.urn)
        if not response.id:
            # In a preview the SDK takes an empty id from a read as unknown; the engine returns it.
            response.id = (registration.id if registration is not None else None) or request.id
        state = _from_python(recorded_outputs(registration.state)) if registration is not None else {}
        self._keep(
            Resource(
                urn=response.urn,
                type=request.type,
                name=request.name,
                custom=True,
                inputs=_from_struct(request.properties),
                outputs=state,
                parent=request.parent or None,
                dependencies=tuple(sorted(set(request.dependencies))),
                provider=_provider_urn(request.provider),
                id=request.id or None,
            )
        )
        return response

    def Invoke(self, request: Any) -> Any:
        return super().Invoke(without_resource_refs(request, "args"))  # type: ignore[no-untyped-call]

    def _note_non_finite(self, type_: str, name: str, values: dict[str, Any]) -> None:
        paths = _marker_paths(values, "")
        if not paths:
            return
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        note = (
            f"{type_} {name!r}: {shown} {'is' if len(paths) == 1 else 'are'} not a finite number (NaN or "
            'infinity), which JSON and the Pulumi engine cannot carry; kept as the string "NaN" or '
            '"Infinity", so policies judge it as malformed: fix the program'
        )
        with self._lock:
            notes: list[str] = self.mocks.notes  # type: ignore[attr-defined]
            if note not in notes:
                notes.append(note)

    def RegisterResourceOutputs(self, request: Any) -> Any:
        _seen.flag = False
        outputs = _from_struct(request.outputs)
        if _seen.flag:
            record = self.records.get(request.urn)
            self._note_non_finite(
                record.type if record else "component", request.urn.rsplit("::", 1)[-1], {"outputs": outputs}
            )
        with self._lock:
            record = self.records.get(request.urn)
            if record is not None:
                self.records[request.urn] = replace(record, outputs=outputs)
        return super().RegisterResourceOutputs(request)  # type: ignore[no-untyped-call]
