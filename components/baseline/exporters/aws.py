"""AWS's part of the burst signal's exporter (see :mod:`gpufleet.components.baseline.exporters`): the
signal's sites are AWS sites, and the exporter's AWS SDK reads a config file (:func:`aws_config`) whose
``credential_process`` runs ``aws_signing_helper credential-process`` with the client certificate, its
key and the trust anchor, profile and role ARNs of
:class:`gpufleet.components.baseline.aws_signal.BaselineSignal`: every SDK call gets short-lived
credentials from IAM Roles Anywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpufleet.components.baseline.exporters import CLIENT_DIR

if TYPE_CHECKING:
    from gpufleet.components.baseline.exporter import SignalExporterArgs

AWS_CONFIG_KEY = "config"
SITES_REQUIRED = "at least one AWS site to publish for"


def aws_config(trust_anchor_arn: str, profile_arn: str, role_arn: str) -> str:
    """The AWS config file: every SDK call gets short-lived credentials from IAM Roles Anywhere."""
    return (
        "[default]\n"
        "credential_process = aws_signing_helper credential-process"
        f" --certificate {CLIENT_DIR}/tls.crt --private-key {CLIENT_DIR}/tls.key"
        f" --trust-anchor-arn {trust_anchor_arn} --profile-arn {profile_arn} --role-arn {role_arn}\n"
    )


def config_data(args: SignalExporterArgs) -> dict[str, pulumi.Input[str]]:
    """The AWS config file, under :data:`AWS_CONFIG_KEY`."""
    found = pulumi.Output.all(args.trust_anchor_arn, args.profile_arn, args.role_arn).apply(
        lambda arns: aws_config(str(arns[0]), str(arns[1]), str(arns[2]))
    )
    return {AWS_CONFIG_KEY: found}


def env(config_dir: str) -> list[dict[str, Any]]:
    """The SDK reads the config file, and calls STS in the region."""
    return [
        {"name": "AWS_CONFIG_FILE", "value": f"{config_dir}/{AWS_CONFIG_KEY}"},
        {"name": "AWS_SDK_LOAD_CONFIG", "value": "1"},
        {"name": "AWS_STS_REGIONAL_ENDPOINTS", "value": "regional"},
    ]
