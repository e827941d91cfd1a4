"""Write `table.json` from `table_source.py`, optionally checked against the providers' bridge metadata.

    python -m gpufleet.checkov.generate_table
    python -m gpufleet.checkov.generate_table \
        --bridge-metadata pulumi-aws/provider/cmd/pulumi-resource-aws/bridge-metadata.json

A bridged provider's repository ships `provider/cmd/pulumi-resource-<name>/bridge-metadata.json`:
`renames.resources` maps each type token to its Terraform type (or `auto-aliasing.resources` maps each
Terraform type to its `current` token and lists its collection `fields`, nested ones under `elem`, with
`maxItemsOne`) and `renames.renamedProperties` maps, per token, each Pulumi property name to its
Terraform name. Given such files, every token here must map to the same Terraform type (a mismatch is
an error) and each renamed property whose Terraform name is not merely its snake_case is added to the
table, as is each collection field the bridge pluralised (found among the installed SDK's names).

Without any file, the table is still checked against the installed SDKs (`sdk_problems`): every token
is a resource class there, every renamed property is a wire name of that resource or of its nested
types, and every Terraform name is the singular the bridge pluralised into that wire name.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gpufleet.checkov.naming import snake_case
from gpufleet.checkov.sdk_schema import bridge_plurals, sdk_problems, sdk_properties
from gpufleet.checkov.table_source import table

TABLE_PATH = Path(__file__).with_name("table.json")


def merge_bridge_metadata(data: dict[str, Any], metadata: Mapping[str, Any]) -> list[str]:
    """Check `data`'s resources against one provider's bridge metadata; add the renames it knows.
    Returns the mismatches found."""
    renames = metadata.get("renames") or {}
    types = _terraform_types(metadata)
    properties: Mapping[str, Mapping[str, str]] = renames.get("renamedProperties") or {}
    fields_by_token = _fields_by_token(metadata)
    problems = []
    for token, entry in data["resources"].items():
        if token in types and types[token] != entry["type"]:
            problems.append(f"{token}: table says {entry['type']}, bridge metadata says {types[token]}")
        _add_renames(token, entry, properties.get(token) or {})
        _add_pluralised_fields(token, entry, fields_by_token.get(token) or {})
    _add_nested_renames(data, types, properties)
    for entry in data["resources"].values():
        entry["renames"] = dict(sorted(entry["renames"].items()))
    return problems


def _auto_aliases(metadata: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """`auto-aliasing.resources` as (Terraform type, alias) pairs, only the aliases naming their
    `current` token."""
    aliases = (metadata.get("auto-aliasing") or {}).get("resources") or {}
    return [
        (tf_type, alias)
        for tf_type, alias in aliases.items()
        if isinstance(alias, Mapping) and isinstance(alias.get("current"), str)
    ]


def _terraform_types(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Each type token's Terraform type: `renames.resources`, else `auto-aliasing` (some providers ship
    only that: Terraform type -> {"current": token, ...})."""
    types: dict[str, str] = dict((metadata.get("renames") or {}).get("resources") or {})
    for tf_type, alias in _auto_aliases(metadata):
        types.setdefault(alias["current"], tf_type)
    return types


def _fields_by_token(metadata: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Each type token's collection `fields` from `auto-aliasing`."""
    return {alias["current"]: alias.get("fields") or {} for _, alias in _auto_aliases(metadata)}


def _add_renames(token: str, entry: dict[str, Any], renamed: Mapping[str, str]) -> None:
    """The renamed properties whose Terraform name is not merely their snake_case, where the SDK has
    them."""
    for pulumi_name, tf_name in renamed.items():
        if tf_name != snake_case(pulumi_name) and _in_sdk(token, pulumi_name):
            entry["renames"].setdefault(pulumi_name, tf_name)


def _add_nested_renames(
    data: dict[str, Any], types: Mapping[str, str], properties: Mapping[str, Mapping[str, str]]
) -> None:
    """Nested types (`alicloud:oss/BucketLifecycleRule:BucketLifecycleRule`) belong to the resource of
    their module whose class name is the longest prefix of theirs (`alicloud:oss/bucket:Bucket`): their
    renames go to that resource's entry."""
    owners: dict[str, list[tuple[str, str]]] = {}
    for token in {*types, *data["resources"]}:
        module, _, cls = token.rpartition(":")
        owners.setdefault(module.rpartition("/")[0], []).append((cls, token))
    for nested, renamed in properties.items():
        module, _, cls = nested.rpartition(":")
        if nested in data["resources"] or not cls[:1].isupper():
            continue
        candidates = [
            (c, t) for c, t in owners.get(module.rpartition("/")[0], []) if cls.startswith(c) and cls != c
        ]
        if not candidates:
            continue
        owner = max(candidates, key=lambda ct: len(ct[0]))[1]
        if owner in data["resources"]:
            _add_renames(owner, data["resources"][owner], renamed)


def _in_sdk(token: str, pulumi_name: str) -> bool:
    """Whether the installed SDK has the property (a metadata snapshot may be of another version); true
    where the SDK is not installed, so that the metadata alone still decides."""
    names = sdk_properties(token)
    return names is None or pulumi_name in names


def _collection_fields(fields: Mapping[str, Any]) -> list[str]:
    """Terraform names of the collection fields (lists and sets of more than one item), at any depth."""
    names = []
    for name, info in fields.items():
        if not isinstance(info, Mapping):
            continue
        if info.get("maxItemsOne") is False:
            names.append(name)
        names += _collection_fields((info.get("elem") or {}).get("fields") or {})
    return names


def _add_pluralised_fields(token: str, entry: dict[str, Any], fields: Mapping[str, Any]) -> None:
    """The bridge pluralises a collection field (`local_subnet` -> `localSubnets`): where the SDK has
    that plural, the table needs the rename back."""
    wire_names = sorted(sdk_properties(token) or ())
    for tf_name in _collection_fields(fields):
        for pulumi_name in wire_names:
            if snake_case(pulumi_name) in bridge_plurals(tf_name):
                entry["renames"].setdefault(pulumi_name, tf_name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--bridge-metadata", type=Path, action="append", default=[])
    parser.add_argument("--output", type=Path, default=TABLE_PATH)
    args = parser.parse_args(argv)
    data = table()
    problems: list[str] = []
    for path in args.bridge_metadata:
        problems += merge_bridge_metadata(data, json.loads(path.read_text(encoding="utf-8")))
    problems += sdk_problems(data)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    args.output.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {args.output}: {len(data['resources'])} resource types")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
