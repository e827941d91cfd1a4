"""The waiver parts of every report: waived violations, and the waivers that expired or expire soon.

- text: a `waived` block per stack, one line per waived violation with reason, owner and expiry;
- JSON: the stack's `waived` block (`StackResult.waived_json`): `on`, `findings` (each violation with its
  `waiver`), `waivers` (every waiver with `state` active/expiring/expired, `days_left`, `applied`);
- SARIF: each waived violation is a result with one `suppressions` entry (`kind` `external` for
  policy-config.json, `inSource` for a tag on the resource; `status` `accepted`; `justification` the
  reason; owner, expiry and source in `properties`);
- JUnit: each waived violation is a skipped test case whose message is the waiver;
- Markdown: a "Waived" section per stack.

Every waiver of a stack, applied or refused (`StackResult.waivers`), is listed too: the text report's
`waivers:` block and the Markdown "Waivers" table (rule, resource, status, owner, expiry, reason, source
file or tag), so a reviewer sees each exception a change asks for and whether the gate took it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpufleet.evaluate import StackResult, WaivedFinding
from gpufleet.policies.waivers import today

STATE_WORDS = {"active": "in force", "expiring": "expires soon", "expired": "expired"}


def _label(urn: str) -> str:
    return urn.rsplit("::", 1)[-1] if urn else "(stack)"


def describe(item: WaivedFinding, result: StackResult) -> str:
    return item.waiver.describe(result.waivers_on or today())


def text_lines(result: StackResult) -> list[str]:
    """`waived: N violations` and one line each; nothing when the stack has no waived violation."""
    if not result.waived:
        return []
    count = len(result.waived)
    lines = [f"waived: {count} violation{'' if count == 1 else 's'} (not mandatory while the waiver holds)"]
    for item in result.waived:
        finding = item.finding
        lines.append(
            f"  - {finding.rule_id} {_label(finding.urn)} [{finding.enforcement} if not waived]: "
            f"{describe(item, result)}"
        )
    return lines


def suppression(item: WaivedFinding, result: StackResult) -> dict[str, Any]:
    """A SARIF 2.1.0 `suppression` object for a waived violation."""
    waiver = item.waiver
    on = result.waivers_on or today()
    return {
        "kind": "inSource" if waiver.source.startswith("tag ") else "external",
        "status": "accepted",
        "justification": waiver.reason,
        "properties": {
            "owner": waiver.owner,
            "expires": waiver.expires.isoformat(),
            "source": waiver.source,
            "state": waiver.state(on),
            "daysLeft": waiver.days_left(on),
        },
    }


def junit_message(item: WaivedFinding, result: StackResult) -> str:
    return f"waived: {describe(item, result)}"


def markdown_section(result: StackResult) -> str:
    if not result.waived:
        return ""
    rows = [
        f"\n#### Waived in `{result.stack}` ({len(result.waived)})\n\n",
        "| Rule | Resource | Level if not waived | Reason | Owner | Expires |\n|---|---|---|---|---|---|\n",
    ]
    on = result.waivers_on or today()
    for item in result.waived:
        finding, waiver = item.finding, item.waiver
        expires = waiver.expires.isoformat()
        if waiver.state(on) == "expiring":
            expires += f" ⚠️ in {waiver.days_left(on)} days"
        rows.append(
            f"| {finding.rule_id} | `{_cell(_label(finding.urn))}` | {finding.enforcement} | "
            f"{_cell(waiver.reason)} | {_cell(waiver.owner)} | {expires} |\n"
        )
    return "".join(rows)


def status(row: dict[str, Any]) -> str:
    """`refused: <why>`, `expired`, or `in force`/`expires soon` with how many violations it waived."""
    if row.get("refused"):
        return f"refused: {row['refused']}"
    state = str(row.get("state"))
    if state == "expired":
        return "expired, not applied"
    applied = int(row.get("applied") or 0)
    return f"{STATE_WORDS.get(state, state)}, applied to {applied} violation{'' if applied == 1 else 's'}"


def origin(row: dict[str, Any]) -> str:
    """Where the waiver is written: its policy config file, or its tag."""
    return str(row.get("file") or row.get("source") or "")


def inventory_text_lines(result: StackResult) -> list[str]:
    """`waivers: N (A applied, R refused)` and one line per waiver; nothing when the stack has none."""
    if not result.waivers:
        return []
    refused = sum(1 for row in result.waivers if row.get("refused"))
    applied = sum(1 for row in result.waivers if not row.get("refused") and row.get("applied"))
    count = len(result.waivers)
    lines = [f"waivers: {count} ({applied} applied, {refused} refused)"]
    for row in result.waivers:
        lines.append(
            f"  - {row['rule_id']} {row['resource']} [{status(row)}] owner {row['owner']}, expires "
            f"{row['expires']}: {row['reason']} ({origin(row)})"
        )
    return lines


def inventory_markdown(result: StackResult) -> str:
    if not result.waivers:
        return ""
    rows = [
        f"\n#### Waivers of `{result.stack}` ({len(result.waivers)})\n\n",
        "| Rule | Resource | Status | Owner | Expires | Reason | Source |\n|---|---|---|---|---|---|---|\n",
    ]
    for row in result.waivers:
        mark = "⛔ " if row.get("refused") else ""
        rows.append(
            f"| {row['rule_id']} | `{_cell(str(row['resource']))}` | {mark}{_cell(status(row))} | "
            f"{_cell(str(row['owner']))} | {row['expires']} | {_cell(str(row['reason']))} | "
            f"`{_cell(origin(row))}` |\n"
        )
    return "".join(rows)


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "'").strip()


def totals(results: Sequence[StackResult]) -> str:
    waived = sum(len(r.waived) for r in results)
    expired = sum(1 for r in results for w in r.waivers if w.get("state") == "expired")
    if not waived and not expired:
        return ""
    return f"{waived} waived, {expired} expired waiver{'' if expired == 1 else 's'}"
