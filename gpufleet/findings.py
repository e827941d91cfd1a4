"""What a policy run reports: findings, waived findings and a stack's result (the DESIGN.md output
contract), the engine's own GF-ENGINE-001 finding for a component it could not look inside, and the
redaction of secrets from what is reported. `gpufleet.evaluate` produces them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any

from pulumi_policy import EnforcementLevel

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.policies.waivers import Waiver
from gpufleet.policies.waivers import today as waiver_today
from gpufleet.policy_config import ENGINE_POLICY, ENGINE_RULE_ID
from gpufleet.redact import Redactor

SEVERITY_ORDER = ("critical", "high", "medium", "low", "")
ENFORCEMENT_ORDER = ("mandatory", "advisory")


# The engine's own finding: a component it could not look inside (see `ResourceGraph.opaque`).
OPAQUE_RULE_ID = ENGINE_RULE_ID
OPAQUE_POLICY = ENGINE_POLICY
OPAQUE_SEVERITY = "medium"
OPAQUE_ENGINE = "gpufleet"
# Each cloud's remote components (REMOTE_COMPONENTS in gpufleet/<cloud>.py) come first in the examples.
_REMOTE = "".join(
    f"{names}, " for names in part_values(cloud_parts("gpufleet"), "REMOTE_COMPONENTS").values()
)
OPAQUE_DESCRIPTION = (
    "A component whose children are built by a provider plugin (a remote component such as "
    f"{_REMOTE}Helm v4 `Chart` or YAML v2 `ConfigFile`; a Helm v3 `Chart` or `Release`; a kustomize "
    "`Directory`) could not be looked inside offline, so no policy judged its children."
)
OPAQUE_REMEDIATION = (
    "Judge the children where they are built: run `pulumi preview --policy-pack policies` with the "
    "provider plugin installed, or build them in the program (render a chart with `helm template` and "
    "load the YAML with `kubernetes.yaml.ConfigFile`, which is expanded offline). "
    "`gpufleet check --strict` (or `--enforce GF-ENGINE-001=mandatory`, or "
    "`component-not-inspected: mandatory` in the policy config) makes this finding mandatory."
)


@dataclass(frozen=True)
class Finding:
    """One violation, in the DESIGN.md output contract's shape."""

    rule_id: str
    policy: str
    enforcement: str
    severity: str
    engine: str
    urn: str
    resource_type: str
    message: str
    remediation: str
    spec_field: str | None = None
    """For a gpufleet stack: the `gpufleet:fleet` field the remediation sets (remediation_fields.py)."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        # Added to the contract where known; absent otherwise, so every other finding keeps its shape.
        if data["spec_field"] is None:
            del data["spec_field"]
        return data

    def sort_key(self) -> tuple[int, int, str, str, str]:
        return (
            ENFORCEMENT_ORDER.index(self.enforcement) if self.enforcement in ENFORCEMENT_ORDER else 2,
            SEVERITY_ORDER.index(self.severity) if self.severity in SEVERITY_ORDER else 4,
            self.rule_id,
            self.urn,
            self.message,
        )


@dataclass(frozen=True)
class WaivedFinding:
    """A violation a waiver applies to: reported, never mandatory (gpufleet.waivers, policies.waivers)."""

    finding: Finding
    waiver: Waiver

    def to_json(self, on: date) -> dict[str, Any]:
        return {**self.finding.to_json(), "waiver": self.waiver.to_json(on)}


@dataclass
class StackResult:
    stack: str
    project: str
    resources: int
    violations: list[Finding] = field(default_factory=list)
    not_applicable: list[dict[str, str]] = field(default_factory=list)
    checkov: dict[str, Any] = field(default_factory=lambda: {"passed": 0, "failed": 0, "findings": []})
    cost: dict[str, Any] | None = None
    stack_file: str | None = None
    opaque: list[dict[str, str]] = field(default_factory=list)
    """Components that could not be looked inside offline (`ResourceGraph.opaque`)."""
    waived: list[WaivedFinding] = field(default_factory=list)
    """Violations a waiver applies to; not in `violations`."""
    waivers: list[dict[str, Any]] = field(default_factory=list)
    """Every waiver of the stack with its state (`gpufleet.waivers.inventory`)."""
    waivers_on: date | None = None
    pack_seconds: float = 0.0
    """Seconds the policy pack took on this stack (checkov's timing block compares them)."""
    secret_texts: frozenset[str] = field(default_factory=frozenset, repr=False)
    """The stack's secret texts (`gpufleet.redact.secret_texts`): the reports redact them from what they
    show besides the findings (the rules' texts). Never written out."""
    notes: list[str] = field(default_factory=list)
    """The engine's notes about placeholders the program read (an invoke or stack output answered with a
    synthetic value): a verdict on a resource built from one judges the placeholder, so `check` says it."""
    error: dict[str, Any] | None = None
    """Why the stack could not be checked at all (`{"message", "details"}`): `check --all-stacks` reports
    it beside the stacks it could check."""

    @property
    def mandatory_violations(self) -> list[Finding]:
        return [v for v in self.violations if v.enforcement == "mandatory"]

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "project": self.project,
            "resources": self.resources,
            "violations": [v.to_json() for v in self.violations],
            "opaque": [dict(item) for item in self.opaque],
            "checkov": self.checkov,
            "cost": self.cost,
            "waived": self.waived_json(),
            **({"notes": list(self.notes)} if self.notes else {}),
            # Added to the contract for stacks that could not be checked; absent on every other entry.
            **({"error": self.error} if self.error is not None else {}),
        }

    def waived_json(self) -> dict[str, Any]:
        on = self.waivers_on or waiver_today()
        return {
            "on": on.isoformat(),
            "findings": [w.to_json(on) for w in self.waived],
            "waivers": [dict(item) for item in self.waivers],
        }


def redact_secrets(result: StackResult, redacting: Redactor) -> None:
    """Every secret text of the stack quoted in a finding (violations, waived ones, the waivers and the
    not-applicable reasons) replaced by `[secret]`. The policies read deserialized properties, where a
    secret is its plain value, so any message may quote one (`gpufleet.redact.Redactor`). Remediations
    are redacted too: where a secret is a word of the rule's own text, the text says `[secret]` there."""
    if not redacting:
        return
    result.violations = sorted((_redacted(f, redacting) for f in result.violations), key=Finding.sort_key)
    result.waived = [replace(w, finding=_redacted(w.finding, redacting)) for w in result.waived]
    result.waivers = redacting.value(result.waivers)
    result.not_applicable = redacting.value(result.not_applicable)
    result.notes = redacting.value(result.notes)


def _redacted(finding: Finding, redacting: Redactor) -> Finding:
    message, remediation = redacting.text(finding.message), redacting.text(finding.remediation)
    if message == finding.message and remediation == finding.remediation:
        return finding
    return replace(finding, message=message, remediation=remediation)


def placeholder_notes(notes: Iterable[str]) -> list[str]:
    """The graph notes that say a value the program read is a placeholder (synthetic, not the cloud's)."""
    return [note for note in notes if "placeholder" in note]


def strict_opaque(result: StackResult) -> None:
    """`check --strict`: a component that could not be looked inside is a mandatory finding."""
    result.violations = sorted(
        (
            replace(f, enforcement=EnforcementLevel.MANDATORY.value) if f.rule_id == OPAQUE_RULE_ID else f
            for f in result.violations
        ),
        key=Finding.sort_key,
    )


def opaque_findings(
    opaque: Iterable[Mapping[str, str]], enforcement: EnforcementLevel = EnforcementLevel.ADVISORY
) -> list[Finding]:
    """One GF-ENGINE-001 finding (advisory by default) per component the engine could not look inside."""
    return [
        Finding(
            rule_id=OPAQUE_RULE_ID,
            policy=OPAQUE_POLICY,
            enforcement=enforcement.value,
            severity=OPAQUE_SEVERITY,
            engine=OPAQUE_ENGINE,
            urn=item["urn"],
            resource_type=item["type"],
            message=(
                f"{item['type']} {item.get('name') or item['urn'].rsplit('::', 1)[-1]!r} could not be "
                f"looked inside offline: {item['why']}; no policy judged what it creates"
            ),
            remediation=OPAQUE_REMEDIATION,
        )
        for item in opaque
    ]
