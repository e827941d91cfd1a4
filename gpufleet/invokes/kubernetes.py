"""The Kubernetes provider's `kubernetes:yaml:decode` invoke, answered offline as the provider does."""

from __future__ import annotations

import base64
import datetime
import math
from typing import Any

import yaml

YAML_DECODE = "kubernetes:yaml:decode"

# A manifest that expands past this many values (YAML aliases nest copies) is refused, not expanded.
_YAML_MAX_VALUES = 200_000


class _ManifestTooLarge(ValueError):
    pass


def _plain(value: Any, budget: list[int]) -> Any:
    """YAML data as the JSON the provider's decoder returns: dates as text, keys as strings."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _ManifestTooLarge
    if isinstance(value, dict):
        return {str(k): _plain(v, budget) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v, budget) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def decode_yaml(text: Any) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """`kubernetes:yaml:decode`, as the provider answers it: every document of a YAML stream.

    `yaml.ConfigFile` and `yaml.ConfigGroup` (v1) parse their manifests through this invoke and build
    the child resources in the program itself, so answering it expands them offline faithfully.
    """
    if not isinstance(text, str):
        return {}, [("text", f"expected YAML text, got {type(text).__name__}")]
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
        result = _plain(documents, [_YAML_MAX_VALUES])
    except _ManifestTooLarge:
        return {}, [
            ("text", f"the manifest expands to more than {_YAML_MAX_VALUES:,} values (YAML aliases?)")
        ]
    except RecursionError:
        return {}, [("text", "the manifest is nested too deeply to decode")]
    except yaml.YAMLError as exc:
        return {}, [("text", f"the manifest is not valid YAML: {' '.join(str(exc).split())[:200]}")]
    bad = [type(d).__name__ for d in result if not isinstance(d, dict)]
    if bad:
        return {}, [("text", f"a Kubernetes manifest document must be a mapping, got {bad[0]}")]
    return {"result": result}, []
