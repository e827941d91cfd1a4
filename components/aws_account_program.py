"""The account baseline's part of the gpufleet program (:mod:`gpufleet.components.program`): the baseline is
AWS's (:data:`gpufleet.components.clouds.ACCOUNT_CLOUD`), so its stack loads the AWS SDK and
:class:`gpufleet.components.account.aws.AccountBaseline`, and a fleet stack loads a cloud's SDK only
through that cloud's site.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_aws as aws

from gpufleet.components.account.aws import BASELINE_NAME, AccountBaseline, AccountBaselineArgs
from gpufleet.components.spec import ACCOUNT_CONFIG_KEY, SpecError, parse_account_baseline


def account_baseline(stack: str, source: str, account_raw: Any) -> None:
    """Build the account baseline from ``gpufleet:account`` and export its regions and keys."""
    try:
        baseline_spec = parse_account_baseline(account_raw, source=source)
    except SpecError as error:
        raise pulumi.RunError(f"invalid {ACCOUNT_CONFIG_KEY}\n{error.format()}") from None
    home = pulumi.Config("aws").get("region")
    regions = list(baseline_spec.regions) or ([home] if home else [])
    caller = aws.get_caller_identity_output()
    try:
        baseline = AccountBaseline(
            BASELINE_NAME,
            AccountBaselineArgs(
                regions=regions,
                tags=baseline_spec.cost_tags,
                account_id=caller.account_id,
                partition=aws.get_partition_output().partition,
                owner=stack,
                monthly_budget=baseline_spec.budget.monthly,
                currency=baseline_spec.budget.currency,
                alert_percent=baseline_spec.budget.alert_percent,
                alert_emails=baseline_spec.budget.alert_emails,
                session_log_retention_days=baseline_spec.session_log_retention_days,
                service_linked_roles=baseline_spec.service_linked_roles,
                trail=baseline_spec.audit.trail,
                trail_retention_days=baseline_spec.audit.log_retention_days,
            ),
        )
    except ValueError as error:
        raise pulumi.RunError(f"{source}: {error}") from None
    pulumi.export("account_baseline_regions", regions)
    pulumi.export("account_baseline_key_arns", baseline.key_arns)


__all__ = ["account_baseline"]
