"""The pack's gRPC servicer with waivers: a waived violation reaches the Pulumi engine as advisory.

pulumi-policy's servicer gives every violation of a policy the policy's enforcement level. A waived
violation must not be mandatory, so the pack served by `policies/__main__.py` uses this subclass: its
`report_violation` also has `waived(message, urn, waiver)` (what `policies.rule`'s waiver wrapper calls),
which sends the violation at advisory with the waiver (reason, owner, expiry) appended to the message.
It relies on pulumi-policy's `_PolicyAnalyzerServicer._create_report_violation` (pulumi-policy 1.x);
without it the pack still serves, and every violation keeps its level (no waiver applies).
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation
from pulumi_policy import policy as policy_module

from gpufleet.policies.waivers import Waiver, today, waived_message

_BASE: Any = getattr(policy_module, "_PolicyAnalyzerServicer", None)


class WaiverReport:
    """A policy's `report_violation` with a second, advisory channel for waived violations."""

    def __init__(self, report: ReportViolation, advisory: ReportViolation) -> None:
        self._report = report
        self._advisory = advisory

    def __call__(self, message: str, urn: str | None = None) -> None:
        self._report(message, urn)

    def waived(self, message: str, urn: str | None, waiver: Waiver) -> None:
        self._advisory(waived_message(message, waiver, today()), urn)


if _BASE is not None and hasattr(_BASE, "_create_report_violation"):

    class WaivingServicer(_BASE):  # type: ignore[misc]
        def _create_report_violation(
            self,
            response: Any,
            policy_name: str,
            policy_description: str,
            enforcement_level: EnforcementLevel,
            severity: Any = None,
        ) -> ReportViolation:
            report = super()._create_report_violation(
                response, policy_name, policy_description, enforcement_level, severity
            )
            advisory = super()._create_report_violation(
                response, policy_name, policy_description, EnforcementLevel.ADVISORY, severity
            )
            return WaiverReport(report, advisory)

    def install() -> bool:
        """Make `PolicyPack(...)` build the waiver-aware servicer; True when it could."""
        policy_module._PolicyAnalyzerServicer = WaivingServicer  # type: ignore[attr-defined,misc]
        return True

else:  # pragma: no cover - another pulumi-policy

    def install() -> bool:
        return False
