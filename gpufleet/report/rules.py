"""`gpufleet rules`: the rule catalogue as rows, and as JSON or a plain text table."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pulumi_policy import ResourceValidationPolicy

from gpufleet import finite
from gpufleet.policies.rule import GfPolicy
from gpufleet.report.model import ENGINE_FAMILY, ENGINE_RULE, REPORT_VERSION


def rules_table(registry: Iterable[GfPolicy]) -> list[dict[str, Any]]:
    """Every implemented rule: id, policy, clouds, enforcement, severity, config schema and docs."""
    rows = []
    for policy in registry:
        rule = policy.rule
        rows.append(
            {
                "id": rule.id,
                "policy": policy.name,
                "family": rule.family,
                "kind": "resource" if isinstance(policy, ResourceValidationPolicy) else "stack",
                "clouds": list(rule.clouds),
                "enforcement": rule.enforcement.value,
                "severity": rule.severity.value,
                "config": {key: dict(schema) for key, schema in rule.config.items()},
                "description": rule.description,
                "remediation": rule.remediation,
                "url": rule.url,
                "checkov": list(rule.checkov),
            }
        )
    rows.append(engine_rule_row())
    return sorted(rows, key=lambda row: row["id"])


def engine_rule_row() -> dict[str, Any]:
    """GF-ENGINE-001, the engine's own check (not a policy of the pack), as a `gpufleet rules` row."""
    return {
        "id": ENGINE_RULE.id,
        "policy": ENGINE_RULE.policy,
        "family": ENGINE_FAMILY,
        "kind": "engine",
        "clouds": list(ENGINE_RULE.clouds),
        "enforcement": ENGINE_RULE.enforcement,
        "severity": ENGINE_RULE.severity,
        "config": {},
        "description": ENGINE_RULE.description,
        "remediation": ENGINE_RULE.remediation,
        "url": ENGINE_RULE.url,
        "checkov": [],
    }


def _config_summary(config: Mapping[str, Mapping[str, Any]]) -> str:
    return ", ".join(f"{k}={json.dumps(v.get('default'))}" for k, v in config.items()) or "-"


def render_rules(rows: Sequence[Mapping[str, Any]], fmt: str = "text") -> str:
    if fmt == "json":
        return finite.dumps({"version": REPORT_VERSION, "rules": list(rows)})
    if fmt != "text":
        raise ValueError(f"unknown rules format {fmt!r}; allowed: json, text")
    header = ("ID", "POLICY", "CLOUDS", "ENFORCEMENT", "SEVERITY", "CONFIG")
    table = [header] + [
        (
            str(r["id"]),
            str(r["policy"]),
            ",".join(r["clouds"]),
            str(r["enforcement"]),
            str(r["severity"]),
            _config_summary(r["config"]),
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    lines = [
        "  ".join([*(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)), row[-1]]).rstrip()
        for row in table
    ]
    lines.append(f"{len(rows)} rules")
    return "\n".join(lines) + "\n"
