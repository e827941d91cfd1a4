"""What every cloud's mock answers share: the answer type, type-token parts and the wire form of
policy documents and secrets.

The per-cloud modules (``gpufleet/mocks/<cloud>.py``) build on these; nothing here names a cloud.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from gpufleet import sdktypes
from gpufleet.graph import SECRET_SIG_KEY

# Policy documents may be given as dicts (pulumi-aws accepts them) but providers return them as JSON
# strings, and the SDKs reject a dict where an output is typed `str`.
_DOCUMENT_MARKERS = frozenset({"Statement", "statement", "Version", "version"})


def sdk_output_names(token: str) -> frozenset[str] | None:
    """Wire names of the properties the installed SDK declares for `token`, or None if unknown."""
    cls = sdktypes.resource_class(token)
    return None if cls is None else frozenset(sdktypes.declared_types(cls))


class MockAnswer(dict[str, Any]):
    """The outputs given back to the SDK; `placeholders` names those that are typed placeholders.

    The graph records the inputs and the modelled outputs only (`recorded_outputs`): a placeholder is
    there for the program to run on, not a value a policy should judge.
    """

    placeholders: frozenset[str] = frozenset()


def recorded_outputs(state: Mapping[str, Any]) -> dict[str, Any]:
    """The outputs of a mock answer without its typed placeholders."""
    skip = state.placeholders if isinstance(state, MockAnswer) else frozenset()
    return {k: v for k, v in state.items() if k not in skip}


def make_answer(values: dict[str, Any], placeholders: frozenset[str]) -> MockAnswer:
    """A :class:`MockAnswer` of ``values`` whose ``placeholders`` are typed placeholders."""
    answer = MockAnswer(values)
    answer.placeholders = placeholders
    return answer


def kebab(name: str) -> str:
    """`instanceProfile` -> `instance-profile`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def split_token(token: str) -> tuple[str, str, str]:
    """`aws:s3/bucket:Bucket` -> (`aws`, `s3`, `bucket`)."""
    parts = token.split(":")
    if len(parts) != 3:
        return parts[0], "", token
    package, module_path, _cls = parts
    module, _, resource = module_path.partition("/")
    return package, module, resource or module


def is_policy_document(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and bool(_DOCUMENT_MARKERS & set(value))
        and any(k in value for k in ("Statement", "statement"))
    )


def encode_documents(value: Any) -> Any:
    """JSON-encode policy documents given as dicts, at any depth."""
    if is_policy_document(value):
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, dict):
        return {k: encode_documents(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode_documents(v) for v in value]
    return value


def _is_secret_wire(value: Any) -> bool:
    return isinstance(value, dict) and SECRET_SIG_KEY in value and "value" in value


def unwrap_secrets(value: Any) -> Any:
    """`value` with each secret's wire wrapper (`{<sig>: ..., "value": v}`) replaced by `v`."""
    if _is_secret_wire(value):
        return unwrap_secrets(value["value"])
    if isinstance(value, dict):
        return {key: unwrap_secrets(item) for key, item in value.items()}
    if isinstance(value, list):
        return [unwrap_secrets(item) for item in value]
    return value


def keep_secrets(original: Any, derived: Any) -> Any:
    """`derived` (the outputs, secrets unwrapped and derived values added) with every value that was a
    secret in `original` wrapped again."""
    if _is_secret_wire(original):
        return original
    if isinstance(original, dict) and isinstance(derived, dict):
        return {
            key: keep_secrets(original[key], item) if key in original else item
            for key, item in derived.items()
        }
    if isinstance(original, list) and isinstance(derived, list) and len(original) == len(derived):
        return [keep_secrets(o, d) for o, d in zip(original, derived, strict=True)]
    return derived


def scalar_or_list(value: Any) -> bool:
    """True for a scalar or a list of scalars (what any declared output type can hold)."""
    if isinstance(value, dict):
        return False
    if isinstance(value, list):
        return all(not isinstance(v, dict | list) for v in value)
    return True
