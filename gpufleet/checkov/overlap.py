"""`gpufleet check --explain-overlap`: where a GF rule and its nearest checkov checks (the `checkov` ids
of each rule, as in RULES.md) agree and disagree on the same resources.

A resource counts when checkov judged it with one of the rule's checkov ids. Per rule:
`agree_fail` (both flag it), `agree_pass` (neither does), `gpufleet_only` (the rule flags it, checkov's
checks pass it), `checkov_only` (checkov flags it, the rule does not), and `not_judged_by_checkov`
(the rule flags a resource none of its checkov checks looked at: another cloud, or a resource type
checkov does not know).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def explain(
    rules: Iterable[tuple[str, Sequence[str]]],
    violations: Iterable[tuple[str, str]],
    failed: Iterable[tuple[str, str]],
    passed: Iterable[tuple[str, str]],
) -> list[dict[str, Any]]:
    """`rules`: (rule id, its checkov ids); `violations`: (rule id, URN); `failed`/`passed`: checkov's
    (check id, URN) outcomes. One entry per rule that has checkov ids."""
    flagged: dict[str, set[str]] = {}
    for rule_id, urn in violations:
        flagged.setdefault(rule_id, set()).add(urn)
    failed_by: dict[str, set[str]] = {}
    for check_id, urn in failed:
        failed_by.setdefault(check_id, set()).add(urn)
    judged_by: dict[str, set[str]] = {}
    for check_id, urn in passed:
        judged_by.setdefault(check_id, set()).add(urn)
    for check_id, urns in failed_by.items():
        judged_by.setdefault(check_id, set()).update(urns)
    out = []
    for rule_id, check_ids in rules:
        if not check_ids:
            continue
        ours = flagged.get(rule_id, set())
        judged = set().union(*(judged_by.get(c, set()) for c in check_ids))
        theirs: dict[str, list[str]] = {}
        for check_id in check_ids:
            for urn in failed_by.get(check_id, ()):
                theirs.setdefault(urn, []).append(check_id)
        out.append(
            {
                "rule_id": rule_id,
                "checkov": list(check_ids),
                "agree_fail": len(ours & set(theirs)),
                "agree_pass": len(judged - ours - set(theirs)),
                "gpufleet_only": sorted(u for u in ours & judged if u not in theirs),
                "checkov_only": [
                    {"urn": urn, "checks": sorted(theirs[urn])} for urn in sorted(set(theirs) - ours)
                ],
                "not_judged_by_checkov": sorted(ours - judged),
            }
        )
    return out


def text_lines(entries: Sequence[dict[str, Any]], label: Any) -> list[str]:
    """Readable lines; `label` turns a URN into a short resource name."""
    lines = ["overlap with checkov (same resources):"]
    for entry in entries:
        judged = (
            entry["agree_fail"]
            + entry["agree_pass"]
            + len(entry["gpufleet_only"])
            + len(entry["checkov_only"])
        )
        if not judged and not entry["not_judged_by_checkov"]:
            continue
        lines.append(
            f"  {entry['rule_id']} ~ {', '.join(entry['checkov'])}: {entry['agree_fail']} both fail, "
            f"{entry['agree_pass']} both pass, {len(entry['gpufleet_only'])} only gpufleet, "
            f"{len(entry['checkov_only'])} only checkov, "
            f"{len(entry['not_judged_by_checkov'])} not judged by checkov"
        )
        lines += [f"    only gpufleet: {label(urn)}" for urn in entry["gpufleet_only"]]
        lines += [
            f"    only checkov ({', '.join(c['checks'])}): {label(c['urn'])}" for c in entry["checkov_only"]
        ]
    return lines
