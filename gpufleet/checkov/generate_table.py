"""Write `table.json` from `table_source.py`, optionally checked against the providers' bridge metadata.

    python -m gpufleet.checkov.generate_table
    python -m gpufleet.checkov.generate_table \
        --bridge-metadata pulumi-aws/provider/cmd/pulumi-resource-aws/bridge-metadata.json

A bridged provider's repository ships `provider/cmd/pulumi-resource-<name>/bridge-metadata.json`:
`renames.resources` maps each type token to its Terraform type (or `auto-aliasing.resources` maps each
Terraform type to its `current` token) and `renames.renamedProperties` maps, per token, each Pulumi
property name to its Terraform name. Given such files, every token here must map to
the same Terraform type (a mismatch is an error) and each renamed property whose Terraform name is not
merely its snake_case is added to the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gpufleet.checkov.naming import snake_case
from gpufleet.checkov.table_source import table

TABLE_PATH = Path(__file__).with_name("table.json")


def merge_bridge_metadata(data: dict[str, Any], metadata: Mapping[str, Any]) -> list[str]:
    """Check `data`'s resources against one provider's bridge metadata; add the renames it knows.
    Returns the mismatches found."""
    renames = metadata.get("renames") or {}
    types: dict[str, str] = dict(renames.get("resources") or {})
    # Some providers ship only `auto-aliasing`: Terraform type -> {"current": token, ...}.
    for tf_type, alias in ((metadata.get("auto-aliasing") or {}).get("resources") or {}).items():
        if isinstance(alias, Mapping) and isinstance(alias.get("current"), str):
            types.setdefault(alias["current"], tf_type)
    properties: Mapping[str, Mapping[str, str]] = renames.get("renamedProperties") or {}
    problems = []
    for token, entry in data["resources"].items():
        if token in types and types[token] != entry["type"]:
            problems.append(f"{token}: table says {entry['type']}, bridge metadata says {types[token]}")
        for pulumi_name, tf_name in (properties.get(token) or {}).items():
            if tf_name != snake_case(pulumi_name):
                entry["renames"].setdefault(pulumi_name, tf_name)
    # Nested types (`alicloud:oss/BucketLifecycleRule:BucketLifecycleRule`) belong to the resource of
    # their module whose class name is the longest prefix of theirs (`alicloud:oss/bucket:Bucket`).
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
        if owner not in data["resources"]:
            continue
        for pulumi_name, tf_name in renamed.items():
            if tf_name != snake_case(pulumi_name):
                data["resources"][owner]["renames"].setdefault(pulumi_name, tf_name)
    for entry in data["resources"].values():
        entry["renames"] = dict(sorted(entry["renames"].items()))
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--bridge-metadata", type=Path, action="append", default=[])
    parser.add_argument("--output", type=Path, default=TABLE_PATH)
    args = parser.parse_args(argv)
    data = table()
    problems: list[str] = []
    for path in args.bridge_metadata:
        problems += merge_bridge_metadata(data, json.loads(path.read_text(encoding="utf-8")))
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    args.output.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {args.output}: {len(data['resources'])} resource types")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
