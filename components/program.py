"""The gpufleet Pulumi program, as a function a project's ``__main__.py`` calls: one HybridGpuFleet from the
stack's ``gpufleet:fleet`` config, or the account's baseline
(:class:`gpufleet.components.account.aws.AccountBaseline`) from ``gpufleet:account``: one project, and
the stack's config says which kind of stack it is. This repository's ``infra/__main__.py`` and the
program ``gpufleet new`` writes into a new project are both this call, so the installed package carries
the whole program.

Bad input ends the run with ``pulumi.RunError``: the Python language host prints its message alone,
without the traceback and program listing an unhandled exception gets, so ``pulumi up`` shows the
spec's field-by-field errors and nothing else. ``SystemExit`` would end the program without the
message reaching the engine's diagnostics; ``RunError`` also lets an in-process runner tell bad input
from a program bug by its type.
"""

from __future__ import annotations

import importlib
from typing import Any

import pulumi

from gpufleet.components.clouds import ACCOUNT_CLOUD
from gpufleet.components.fleet import FleetError, HybridGpuFleet
from gpufleet.components.naming import fleet_name as fleet_name_of
from gpufleet.components.spec import (
    ACCOUNT_CONFIG_KEY,
    CONFIG_KEY,
    SpecError,
    parse_fleet,
)

__all__ = ["run_fleet_program"]


def run_fleet_program(stack_config_dir: str = "stacks") -> None:
    """Build this stack's fleet (or account baseline) from its config and export its outputs.
    ``stack_config_dir`` only names the stack file in error messages (Pulumi.yaml's stackConfigDir)."""
    stack = pulumi.get_stack()
    source = f"{stack_config_dir}/Pulumi.{stack}.yaml"
    config = pulumi.Config("gpufleet")
    account_raw = config.get_object("account")
    fleet_raw = config.get_object("fleet")
    if account_raw is not None and fleet_raw is not None:
        raise pulumi.RunError(
            f"{source}: give {CONFIG_KEY} (a fleet) or {ACCOUNT_CONFIG_KEY} (the account baseline), "
            "not both: the baseline is a stack of its own, deployed once per account before its fleets"
        )
    if account_raw is not None:
        _account_baseline(stack, source, account_raw)
    else:
        _fleet(stack, source, config)


def _account_baseline(stack: str, source: str, account_raw: Any) -> None:
    # The account baseline is the account cloud's; a fleet stack loads a cloud's SDK only through that
    # cloud's site, so the baseline's module (and its SDK) is imported here only.
    module = importlib.import_module(f"{__package__}.{ACCOUNT_CLOUD}_account_program")
    module.account_baseline(stack, source, account_raw)


def _fleet(stack: str, source: str, config: pulumi.Config) -> None:
    raw = config.require_object("fleet")
    try:
        spec = parse_fleet(raw, source=source)
    except SpecError as error:
        raise pulumi.RunError(f"invalid gpufleet:fleet\n{error.format()}") from None

    # Physical names (trail, log groups, key alias) derive from this (components/naming.py).
    fleet_name = fleet_name_of(stack)
    material = config.get_secret("byokMaterial")
    try:
        fleet = HybridGpuFleet(fleet_name, spec, byok_material_base64=material)
    except (FleetError, ValueError) as error:
        raise pulumi.RunError(f"{source}: {error}") from None

    pulumi.export("environment", spec.environment)
    pulumi.export("checkpoint_bucket", fleet.bucket_name)
    pulumi.export("fleet_key_arn", fleet.key_arn)
    pulumi.export("pool_asg_names", fleet.pool_asg_names)
    pulumi.export("pool_queue_names", fleet.pool_queue_names)  # where producers send a pool's work
    pulumi.export("pool_role_arns", fleet.pool_role_arns)  # each pool's instances' own role
    pulumi.export("budget_name", fleet.budget_name)
    pulumi.export("checkpoint_replica_bucket", fleet.replica_bucket_name)
    pulumi.export("regional_key_arns", fleet.regional_key_arns)
    # Cloud-neutral, for fleets on any cloud: each pool's scaling groups (two on Tencent: spot and
    # on-demand), queue and role, and each site's key by cloud:region.
    pulumi.export("pool_groups", fleet.pool_groups)
    pulumi.export("pool_queues", fleet.pool_queues)
    pulumi.export("pool_roles", fleet.pool_roles)
    pulumi.export("site_key_ids", fleet.site_key_ids)
    if fleet.signal_arns is not None:
        # The burst order's publisher: the trust anchor, profile and role the on-prem exporter signs in with.
        pulumi.export("burst_signal_arns", fleet.signal_arns)
    if fleet.keys_pending_import:
        # Phase one of a BYOK first deploy: import into each of these, then set byok_material: imported.
        # AWS keys by region; Alibaba and Tencent keys by cloud:region.
        pulumi.export("byok_keys_pending_import", fleet.pending_key_ids)
