"""A JSON Schema for gpufleet stack files, generated from the spec model (pydantic), for editors.

Shipped in the package (gpufleet/schemas/) and in docs/schema/; every template and shipped stack names it
in a `# yaml-language-server: $schema=...` comment, so YAML editors complete and check `gpufleet:fleet`
and `gpufleet:account` as they are typed. `python -m gpufleet.schema` rewrites both copies; a test fails
when they fall out of step with the model.
"""

from __future__ import annotations

import importlib.resources
import json
import sys
from pathlib import Path
from typing import Any

from gpufleet import __version__
from gpufleet.components.clouds import ACCOUNT_CLOUD, PROFILES, cloud_parts

SCHEMA_FILE = "gpufleet-stack.schema.json"
# Versioned: the copy at a release's tag never changes, and a stack written by `gpufleet new` names the
# schema of the release that wrote it (and that its requirements.txt installs).
SCHEMA_URL = f"https://raw.githubusercontent.com/gpufleet/gpufleet/v{__version__}/docs/schema/{SCHEMA_FILE}"
MODELINE = "# yaml-language-server: $schema="
"""The comment that points an editor at the schema (yaml-language-server, used by VS Code's YAML)."""


def _merge_defs(target: dict[str, Any], schema: dict[str, Any], name: str) -> None:
    for key, value in schema.pop("$defs", {}).items():
        if key in target and target[key] != value:
            raise ValueError(f"schema: two models named {key} differ; rename one")
        target[key] = value
    target[name] = schema


def _describe(defs: dict[str, Any]) -> None:
    """Fill each property's description from components.spec.descriptions where its model has none."""
    from gpufleet.components.spec.descriptions import FIELD_DESCRIPTIONS

    for key, text in FIELD_DESCRIPTIONS.items():
        model, field = key.split(".", 1)
        properties = defs.get(model, {}).get("properties", {})
        if field not in properties:
            raise ValueError(f"schema: {key} is described but the model has no such field")
        if "description" in properties[field]:
            raise ValueError(f"schema: {key} has a description of its own; remove its entry")
        properties[field]["description"] = text


def _cloud_names() -> str:
    """`AWS, Alibaba Cloud and Tencent Cloud`: every cloud's name, in registry order."""
    names = [p.name for p in PROFILES.values()]
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]


def stack_schema() -> dict[str, Any]:
    """The stack file's schema: Pulumi's stack-file keys, and under `config:` the two gpufleet specs."""
    from gpufleet.components.spec import CONFIG_KEY, FleetSpec
    from gpufleet.components.spec.specs import AccountBaselineSpec
    from gpufleet.components.spec.values import ACCOUNT_CONFIG_KEY

    defs: dict[str, Any] = {}
    _merge_defs(defs, FleetSpec.model_json_schema(mode="validation"), "FleetSpec")
    _merge_defs(defs, AccountBaselineSpec.model_json_schema(mode="validation"), "AccountBaselineSpec")
    _describe(defs)
    # The account stack's cloud words its description (gpufleet/<cloud>.py).
    account = cloud_parts("gpufleet")[ACCOUNT_CLOUD]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_URL,
        "title": "gpufleet stack file (Pulumi.<stack>.yaml)",
        "description": "Generated from components/spec by gpufleet/schema.py; do not edit by hand.",
        "type": "object",
        "properties": {
            "config": {
                "type": "object",
                "description": "Stack configuration: gpufleet's specs beside any other config key.",
                "properties": {
                    CONFIG_KEY: {
                        "$ref": "#/$defs/FleetSpec",
                        "description": f"A GPU fleet: pools on {_cloud_names()}, and an "
                        "optional on-prem baseline (docs/fleet-spec.md).",
                    },
                    ACCOUNT_CONFIG_KEY: {
                        "$ref": "#/$defs/AccountBaselineSpec",
                        "description": f"{account.ACCOUNT_DESCRIPTION}(docs/first-deploy.md).",
                    },
                },
                "additionalProperties": True,
            },
            "environment": {"description": "Pulumi ESC environments the stack imports."},
            "secretsprovider": {
                "type": "string",
                "description": "Pulumi's secrets provider for the stack "
                f"({account.SECRETS_PROVIDER_EXAMPLE}, passphrase, ...).",
            },
            "encryptedkey": {"type": "string", "description": "Pulumi's encrypted data key (set by Pulumi)."},
            "encryptionsalt": {"type": "string", "description": "Pulumi's passphrase salt (set by Pulumi)."},
        },
        "additionalProperties": True,
        "$defs": dict(sorted(defs.items())),
    }


def render() -> str:
    return json.dumps(stack_schema(), indent=2, ensure_ascii=False) + "\n"


def packaged() -> str:
    """The schema as shipped in the package."""
    return importlib.resources.files("gpufleet").joinpath("schemas", SCHEMA_FILE).read_text(encoding="utf-8")


def write(repo_root: Path) -> list[Path]:
    """Rewrite the package's and docs/'s copies from the model."""
    text = render()
    paths = [repo_root / "gpufleet" / "schemas" / SCHEMA_FILE, repo_root / "docs" / "schema" / SCHEMA_FILE]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return paths


if __name__ == "__main__":  # pragma: no cover - `python -m gpufleet.schema [REPO_ROOT]`
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    for written in write(root):
        print(f"wrote {written}")
