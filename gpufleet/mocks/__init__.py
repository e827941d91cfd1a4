"""Plausible, deterministic answers for resources and invokes when no cloud is asked.

Every value here is synthetic: ids and ARNs are derived from the resource's name and type so that two
runs of the same program give the same graph, and so that a value passed from one resource to another
(a key's ARN into a bucket's encryption settings) is recognisable in the consumer's inputs.

This module names no cloud: each registered cloud (``components/clouds.py``) answers in the module named
by its key (``gpufleet/mocks/<key>.py``, a ``resource_id`` function), Kubernetes in ``kubernetes.py``;
a resource goes to the module whose provider owns its type token. Invokes answer from
:data:`gpufleet.invokes.INVOKES`, gathered the same way.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, cast

from pulumi.runtime import Mocks
from pulumi.runtime.mocks import MockCallArgs, MockResourceArgs

from gpufleet import sdktypes
from gpufleet.components.clouds import ACCOUNT_CLOUD, DEFAULT_REGIONS, KUBERNETES, PROFILES
from gpufleet.invokes import INVOKES, YAML_DECODE, decode_yaml
from gpufleet.mocks.common import (
    MockAnswer,
    encode_documents,
    keep_secrets,
    make_answer,
    recorded_outputs,
    scalar_or_list,
    split_token,
    unwrap_secrets,
)
from gpufleet.sdktypes import stable_hex, stable_uuid

ResourceId = Callable[["FleetMocks", str, MockResourceArgs, dict[str, Any]], str]
StackOutputPlaceholder = Callable[[str, str, str], Any]


def _provider_module(key: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{key}")


# The id (and computed outputs) of a resource, by the package of its type token.
_RESOURCE_IDS: Mapping[str, ResourceId] = {
    **{p.type_prefix: cast(ResourceId, _provider_module(p.key).resource_id) for p in PROFILES.values()},
    KUBERNETES: cast(ResourceId, _provider_module(KUBERNETES).resource_id),
}

# Stack references read the account stack, which runs on the registry's account cloud.
_ACCOUNT_CLOUD = ACCOUNT_CLOUD
_stack_output_placeholder = cast(
    StackOutputPlaceholder, _provider_module(_ACCOUNT_CLOUD).stack_output_placeholder
)


def stack_output_placeholder(stack: str, output: str, region: str) -> Any:
    """A value shaped by the output's name: `vpc_id` -> `vpc-...`, `subnet_ids` -> two subnet ids, ..."""
    return _stack_output_placeholder(stack, output, region)


class FleetMocks(Mocks):
    """Resource and invoke answers for the registered clouds' and Kubernetes programs."""

    def __init__(
        self,
        config: Mapping[str, str] | None = None,
        stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self._config = dict(config or {})
        self._stack_references = dict(stack_references or {})
        self._provider_regions: dict[str, str] = {}
        self._lock = threading.Lock()
        self.notes: list[str] = []

    # -- helpers ---------------------------------------------------------------------------------

    def note(self, message: str) -> None:
        with self._lock:
            if message not in self.notes:
                self.notes.append(message)

    def region(self, package: str, provider_ref: str | None = None) -> str:
        if provider_ref:
            provider_id = provider_ref.rsplit("::", 1)[-1]
            if provider_id in self._provider_regions:
                return self._provider_regions[provider_id]
        configured = self._config.get(f"{package}:region")
        if configured:
            return configured
        fallback = DEFAULT_REGIONS.get(package, "local")
        self.note(f"{package}:region is not set in the stack config; {fallback} is assumed for ids and ARNs")
        return fallback

    # -- resources -------------------------------------------------------------------------------

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        token = args.typ
        inputs = dict(args.inputs or {})
        if token == "pulumi:pulumi:StackReference":
            return self._stack_reference(args, inputs)
        outputs: dict[str, Any] = encode_documents(inputs)
        if token.startswith("pulumi:providers:"):
            provider_id = stable_uuid("provider", token, args.name)
            region = inputs.get("region")
            if isinstance(region, str):
                with self._lock:
                    self._provider_regions[provider_id] = region
            return provider_id, self.answer(token, args, outputs)
        if args.custom is False:
            return None, self.answer(token, args, outputs)
        package = token.split(":", 1)[0]
        # Ids, ARNs and names are derived from the secret's value, not its wire wrapper; the echoed
        # inputs keep their wrappers so the program still sees secrets (redaction hides the values).
        derived = unwrap_secrets(outputs)
        identify = _RESOURCE_IDS.get(package)
        if args.resource_id:
            resource_id = args.resource_id
        elif identify is not None:
            resource_id = identify(self, token, args, derived)
        else:
            resource_id = f"{args.name}-{stable_hex(token, args.name, length=8)}"
        outputs = keep_secrets(outputs, derived)
        outputs.setdefault("id", resource_id)
        return resource_id, self.answer(token, args, outputs)

    def placeholder_region(self, package: str, provider_ref: str | None = None) -> str:
        """The region placeholders name, without a note when a package has no region setting."""
        if package in DEFAULT_REGIONS:
            return self.region(package, provider_ref)
        return str(self._config.get(f"{package}:region") or "local")

    def answer(self, token: str, args: MockResourceArgs, outputs: dict[str, Any]) -> MockAnswer:
        """What goes back to the SDK: the inputs echoed and the modelled outputs, each in the shape of
        the output's declared type, and a typed placeholder for every other declared output.

        In a preview the SDK fills nothing from the inputs, and leaves unknown what is not returned."""
        region = self.placeholder_region(token.split(":", 1)[0], args.provider)
        cls = sdktypes.resource_class(token)
        if cls is None:
            # No SDK class describes the outputs (a program's own component, a package not installed):
            # structured values are left out, as a class's annotations may declare another shape.
            return make_answer({k: v for k, v in outputs.items() if scalar_or_list(v)}, frozenset())
        values, filled = sdktypes.complete(cls, sdktypes.Owner(token, args.name, region), outputs)
        return make_answer(values, filled)

    def _stack_reference(self, args: MockResourceArgs, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        name = str(inputs.get("name") or args.resource_id or args.name)
        known = self._stack_references.get(name)
        if known is None:
            self.note(
                f"stack reference {name!r} has no outputs offline (give them with --stack-refs FILE): "
                "every output read from it is a synthetic placeholder"
            )
        return name, {"name": name, "outputs": dict(known or {}), "secretOutputNames": []}

    def has_stack_reference(self, stack: str) -> bool:
        return stack in self._stack_references

    def stack_output_placeholder(self, stack: str, output: str) -> Any:
        """A plausible stand-in for output `output` of a stack whose outputs are not known offline."""
        value = stack_output_placeholder(stack, output, self.region(_ACCOUNT_CLOUD))
        self.note(f"stack reference {stack!r}: output {output!r} read as the placeholder {json.dumps(value)}")
        return value

    # -- invokes ---------------------------------------------------------------------------------

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        token = args.token
        a = dict(args.args or {})
        package = token.split(":", 1)[0]
        region = self.region(package, args.provider) if package in DEFAULT_REGIONS else ""
        if token == YAML_DECODE:
            return decode_yaml(a.get("text"))
        handler = INVOKES.get(token)
        result_class = sdktypes.invoke_result_class(token)
        if handler is not None:
            result = handler(self, a, region)
        else:
            if result_class is not None:
                self.note(
                    f"invoke {token} has no offline answer: the program got typed placeholders "
                    "(synthetic values of the declared result types)"
                )
            elif package != KUBERNETES:
                self.note(f"invoke {token} has no offline answer: the program got an empty result")
            result = {}
        if result_class is None:
            return result, []
        # A provider echoes the arguments it was given (`get_subnet(id=...)` has that `id`).
        declared = sdktypes.declared_types(result_class)
        given = {k: v for k, v in a.items() if k in declared and v is not None}
        name = token.rsplit(":", 1)[-1]
        owner = sdktypes.Owner(token, name, region or self.placeholder_region(package))
        values, _filled = sdktypes.complete(result_class, owner, {**given, **result})
        return values, []


__all__ = [
    "FleetMocks",
    "MockAnswer",
    "decode_yaml",
    "encode_documents",
    "recorded_outputs",
    "split_token",
    "stable_hex",
    "stable_uuid",
    "stack_output_placeholder",
    "unwrap_secrets",
]
