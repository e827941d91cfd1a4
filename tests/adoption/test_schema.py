"""Editor support: the stack-file JSON Schema follows the spec model, ships in the package and docs/,
is named by every template and shipped stack, and accepts them all while refusing what the spec refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from gpufleet import __version__, schema
from gpufleet.new import list_templates, render

ROOT = Path(__file__).resolve().parents[2]
DOCS_COPY = ROOT / "docs" / "schema" / schema.SCHEMA_FILE
VALUES: dict[str, str | float] = {
    "project": "vision", "team": "ml", "cost_center": "cc-1", "budget": 5000.0, "region": "us-east-1",
    "replica_region": "us-west-2", "timezone": "America/New_York", "stack_file": "stacks/Pulumi.x.yaml",
    "stack_name": "x",
}  # fmt: skip
STACKS = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    document = json.loads(schema.packaged())
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


def _problems(validator: jsonschema.Draft202012Validator, data: Any) -> list[str]:
    return sorted(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(data))


def test_the_shipped_schema_is_the_models_own() -> None:
    # Regenerated from components/spec and compared: `python -m gpufleet.schema` after a spec change.
    assert schema.packaged() == schema.render()
    assert DOCS_COPY.read_text() == schema.render()


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.name)
def test_every_shipped_stack_names_the_schema_and_is_valid(
    path: Path, validator: jsonschema.Draft202012Validator
) -> None:
    text = path.read_text()
    first = text.splitlines()[0]
    assert first == f"{schema.MODELINE}../docs/schema/{schema.SCHEMA_FILE}"
    assert (path.parent / first.removeprefix(schema.MODELINE)).resolve() == DOCS_COPY
    assert _problems(validator, yaml.safe_load(text)) == []


@pytest.mark.parametrize("name", [t.name for t in list_templates()])
def test_every_template_names_the_schema_and_writes_a_valid_stack(
    name: str, validator: jsonschema.Draft202012Validator
) -> None:
    (template,) = [t for t in list_templates() if t.name == name]
    assert template.text.splitlines()[1] == f"{schema.MODELINE}{{{{ schema_url }}}}"
    assert f"/gpufleet/v{__version__}/docs/schema/" in schema.SCHEMA_URL  # versioned
    assert schema.SCHEMA_URL.endswith(f"/docs/schema/{schema.SCHEMA_FILE}")
    written = render(template, VALUES)
    # The stack file `gpufleet new` writes keeps the comment: the team's editor finds the schema too.
    assert written.splitlines()[0] == f"{schema.MODELINE}{schema.SCHEMA_URL}"
    assert _problems(validator, yaml.safe_load(written)) == []


def test_the_schema_refuses_what_the_spec_refuses(validator: jsonschema.Draft202012Validator) -> None:
    data = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    pool = data["config"]["gpufleet:fleet"]["pools"]["experiments"]
    pool["spot_percent"] = 150
    pool["spot_pecent"] = 100
    pool["cloud"] = "asw"
    problems = _problems(validator, data)
    prefix = "config.gpufleet:fleet.pools.experiments"
    assert f"{prefix}.spot_percent: 150 is greater than the maximum of 100" in problems
    assert f"{prefix}.cloud: 'asw' is not one of ['aws', 'alicloud', 'tencentcloud']" in problems
    assert any(
        p.startswith(f"{prefix}: Additional properties are not allowed ('spot_pecent'") for p in problems
    )


def test_the_schema_describes_the_fields_with_their_defaults() -> None:
    document = json.loads(schema.packaged())
    pool = document["$defs"]["Pool"]["properties"]
    assert pool["spot_percent"]["maximum"] == 100
    hardware = document["$defs"]["OwnedHardware"]["properties"]
    assert hardware["amortisation_months"]["default"] == 36


def _properties_without_description(node: Any, path: str = "") -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            if isinstance(prop, dict) and not prop.get("description"):
                found.append(f"{path}.{name}")
        for key, value in node.items():
            found += _properties_without_description(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _properties_without_description(value, f"{path}[{i}]")
    return found


def test_every_property_has_a_description_and_the_id_is_versioned() -> None:
    document = json.loads(schema.packaged())
    assert _properties_without_description(document) == []
    assert document["$id"] == (
        f"https://raw.githubusercontent.com/gpufleet/gpufleet/v{__version__}/docs/schema/{schema.SCHEMA_FILE}"
    )
    fleet = document["$defs"]["Pool"]["properties"]
    assert fleet["spot_percent"]["description"] == (
        "percent of the capacity above on_demand_base that runs on spot"
    )


def test_a_description_entry_must_name_a_field_without_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufleet.components.spec import descriptions

    monkeypatch.setattr(descriptions, "FIELD_DESCRIPTIONS", {"Pool.cloud": "the cloud"})
    with pytest.raises(ValueError, match=r"Pool\.cloud has a description of its own"):
        schema._describe({"Pool": {"properties": {"cloud": {"description": "own"}}}})
    with pytest.raises(ValueError, match=r"Pool\.cloud is described but the model has no such field"):
        schema._describe({"Pool": {"properties": {}}})
    defs: dict[str, Any] = {"Pool": {"properties": {"cloud": {"type": "string"}}}}
    schema._describe(defs)
    assert defs["Pool"]["properties"]["cloud"]["description"] == "the cloud"
