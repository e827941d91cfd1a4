"""The gpufleet Pulumi program: one HybridGpuFleet from the stack's ``gpufleet:fleet`` config.

Bad input ends the run with ``pulumi.RunError``: the Python language host prints its message alone,
without the traceback and program listing an unhandled exception gets, so ``pulumi up`` shows the
spec's field-by-field errors and nothing else. ``SystemExit`` would end the program without the
message reaching the engine's diagnostics; ``RunError`` also lets an in-process runner tell bad input
from a program bug by its type.
"""

from __future__ import annotations

import re

import pulumi

from components.fleet import FleetError, HybridGpuFleet
from components.spec import SpecError, parse_fleet

stack = pulumi.get_stack()
source = f"stacks/Pulumi.{stack}.yaml"
raw = pulumi.Config("gpufleet").require_object("fleet")
try:
    spec = parse_fleet(raw, source=source)
except SpecError as error:
    raise pulumi.RunError(f"invalid gpufleet:fleet\n{error.format()}") from None

# Physical names (trail, log groups, key alias) derive from this, so it must be unique per stack
# within an account and use only characters every AWS name accepts.
fleet_name = re.sub(r"[^A-Za-z0-9-]+", "-", f"gpufleet-{stack}").strip("-").lower()
try:
    fleet = HybridGpuFleet(fleet_name, spec)
except (FleetError, ValueError) as error:
    raise pulumi.RunError(f"{source}: {error}") from None

pulumi.export("environment", spec.environment)
pulumi.export("checkpoint_bucket", fleet.bucket_name)
pulumi.export("fleet_key_arn", fleet.key_arn)
pulumi.export("instance_role_arn", fleet.role_arn)
pulumi.export("pool_asg_names", fleet.pool_asg_names)
pulumi.export("pool_queue_names", fleet.pool_queue_names)  # where producers send a pool's work
pulumi.export("budget_name", fleet.budget_name)
pulumi.export("checkpoint_replica_bucket", fleet.replica_bucket_name)
pulumi.export("regional_key_arns", fleet.regional_key_arns)
