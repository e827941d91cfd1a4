"""What every report format shares: the formats and their file names, the exit status, rule metadata and
the wording of resources, costs and stack errors."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from typing import Any

from gpufleet.components.clouds import CLOUDS, KUBERNETES
from gpufleet.evaluate import Finding, StackResult
from gpufleet.findings import (
    OPAQUE_DESCRIPTION,
    OPAQUE_POLICY,
    OPAQUE_REMEDIATION,
    OPAQUE_RULE_ID,
    OPAQUE_SEVERITY,
)
from gpufleet.policies.rule import GfPolicy
from gpufleet.redact import Redactor

REPORT_VERSION = 1
FORMATS = ("json", "text", "sarif", "junit", "markdown")
FILE_NAMES = {
    "json": "gpufleet.json",
    "sarif": "gpufleet.sarif",
    "junit": "gpufleet.junit.xml",
    "markdown": "gpufleet.md",
    "text": "gpufleet.txt",
}


def tool_version() -> str:
    try:
        return metadata.version("gpufleet")
    except metadata.PackageNotFoundError:
        return "0.1.0"


def exit_code(results: Iterable[StackResult]) -> int:
    """0 when no stack has a mandatory violation, 1 otherwise."""
    return 1 if any(result.mandatory_violations for result in results) else 0


# --- rule metadata -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleInfo:
    id: str
    policy: str
    description: str
    severity: str
    enforcement: str
    remediation: str
    url: str
    clouds: tuple[str, ...] = ()
    family: str = ""


ENGINE_FAMILY = "engine"
ENGINE_RULE = RuleInfo(
    id=OPAQUE_RULE_ID,
    policy=OPAQUE_POLICY,
    description=OPAQUE_DESCRIPTION,
    severity=OPAQUE_SEVERITY,
    enforcement="advisory",
    remediation=OPAQUE_REMEDIATION,
    url="",
    clouds=(*CLOUDS, KUBERNETES),
    family=ENGINE_FAMILY,
)


def rule_infos(results: Sequence[StackResult], policies: Iterable[GfPolicy] | None) -> dict[str, RuleInfo]:
    """Rule metadata by rule id: from the policies when given, else from the findings."""
    infos: dict[str, RuleInfo] = {}
    if any(f.rule_id == OPAQUE_RULE_ID for result in results for f in result.violations):
        infos[OPAQUE_RULE_ID] = ENGINE_RULE
    for policy in policies or ():
        rule = policy.rule
        infos[rule.id] = RuleInfo(
            id=rule.id,
            policy=policy.name,
            description=policy.description,
            severity=rule.severity.value,
            enforcement=rule.enforcement.value,
            remediation=rule.remediation,
            url=rule.url,
            clouds=tuple(rule.clouds),
            family=rule.family,
        )
    for result in results:
        for finding in result.violations:
            if finding.rule_id not in infos:
                infos[finding.rule_id] = RuleInfo(
                    id=finding.rule_id,
                    policy=finding.policy,
                    description=f"{finding.rule_id}: {finding.policy}",
                    severity=finding.severity,
                    enforcement=finding.enforcement,
                    remediation=finding.remediation,
                    url="",
                )
    # A secret of a stack that is a word of a rule's text is not shown there either.
    redacting = Redactor(frozenset().union(*(result.secret_texts for result in results)))
    if redacting:
        infos = {
            key: replace(
                info,
                description=redacting.text(info.description),
                remediation=redacting.text(info.remediation),
            )
            for key, info in infos.items()
        }
    return dict(sorted(infos.items()))


def resource_label(urn: str) -> str:
    """`aws:s3/bucket:Bucket::ckpt` -> `ckpt (aws:s3/bucket:Bucket)`; "" -> `(stack)`."""
    if not urn:
        return "(stack)"
    parts = urn.split("::")
    if len(parts) >= 4:
        qualified, name = parts[2], parts[3]
        return f"{name} ({qualified.rsplit('$', 1)[-1]})"
    return urn


def violation_counts(findings: Sequence[Finding]) -> str:
    mandatory = sum(1 for f in findings if f.enforcement == "mandatory")
    advisory = len(findings) - mandatory
    return f"{mandatory} mandatory, {advisory} advisory"


def cost_summary(cost: Mapping[str, Any]) -> str:
    """`USD 145.48 a month estimated (4.85% of the 3000.00 budget); 0.00 to 1.70 an hour`."""
    currency = cost.get("currency") or ""
    text = f"{currency} {float(cost.get('monthly_estimate') or 0):.2f} a month estimated"
    budget, used = cost.get("budget"), cost.get("budget_used_percent")
    if budget is not None and used is not None:
        text += f" ({float(used):.2f}% of the {float(budget):.2f} budget)"
    hourly_min, hourly_max = float(cost.get("hourly_min") or 0), float(cost.get("hourly_max") or 0)
    text += f"; {hourly_min:.2f} to {hourly_max:.2f} an hour"
    unpriced = cost.get("unpriced") or []
    if unpriced:
        text += f"; warning: unpriced, left out of the estimate: {'; '.join(str(u) for u in unpriced)}"
    return text


def opaque_lines(result: StackResult) -> list[str]:
    """`not inspected: N components ...` and one line per component the engine could not look inside."""
    if not result.opaque:
        return []
    count = len(result.opaque)
    lines = [
        f"not inspected: {count} component{'' if count == 1 else 's'} built by a provider plugin "
        f"could not be looked inside offline ({OPAQUE_RULE_ID})"
    ]
    lines.extend(f"  - {resource_label(item['urn'])}: {item['why']}" for item in result.opaque)
    return lines


def stack_error(result: StackResult) -> str | None:
    """Why a stack could not be checked (`check --all-stacks`), message and details in one paragraph."""
    if result.error is None:
        return None
    details = [str(line).strip() for line in result.error.get("details") or ()]
    return " ".join([str(result.error.get("message", "")).strip(), *details]).strip()


def errors_note(results: Sequence[StackResult]) -> str:
    broken = sum(1 for result in results if result.error is not None)
    return f", {broken} stack{'' if broken == 1 else 's'} could not be checked" if broken else ""


def stack_file_of(result: StackResult) -> str:
    """The stack file as a repository-relative path (the CLI sets it; `stacks/` is this project's layout)."""
    return result.stack_file or f"stacks/Pulumi.{result.stack}.yaml"
