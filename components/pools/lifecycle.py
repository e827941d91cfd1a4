"""What lets a worker on an AWS pool instance finish (or checkpoint) its job before the instance goes.

Scale-in never ends a running job, by two mechanisms the pool sets up and the worker drives:

- **Scale-in protection**: a worker that holds a job protects its own instance
  (``autoscaling:SetInstanceProtection``) and lifts the protection when the job is done and the
  message deleted. Auto Scaling never picks a protected instance for a scale-in; it lowers the desired
  capacity and removes the instance once its worker lifts the protection.
- **A termination lifecycle hook** (``-drain``, :data:`DRAIN_HOOK_NAME`): every other termination
  (spot capacity rebalancing, a health replacement, the off-hours stop) waits in
  ``Terminating:Wait`` for up to :data:`DRAIN_HEARTBEAT_S`, which the worker may extend
  (``autoscaling:RecordLifecycleActionHeartbeat``) while it checkpoints, then completes
  (``autoscaling:CompleteLifecycleAction``); a worker that never answers lets the termination go on
  (``CONTINUE``) when the heartbeat runs out, so a dead worker never holds an instance for ever.

The worker learns where it runs from the environment the boot script gives it
(:mod:`gpufleet.components.pools.userdata`): :data:`QUEUE_URL_ENV`, :data:`GROUP_ENV` (read at boot from the
instance's ``aws:autoscaling:groupName`` tag, which Auto Scaling adds itself) and :data:`HOOK_ENV`.
"""

from __future__ import annotations

import pulumi

from gpufleet.components.identity.documents import Statement
from gpufleet.components.spec_limits import DRAIN_HOOK_TIMEOUT_S

TERMINATING = "autoscaling:EC2_INSTANCE_TERMINATING"
# Fixed, so the boot script can name it before the hook exists (hook names: 1-255 of [A-Za-z0-9-_/]).
DRAIN_HOOK_NAME = "gpufleet-drain"
# Long enough to write a checkpoint of a large model to the bucket; the worker extends it while busy.
DRAIN_HEARTBEAT_S = DRAIN_HOOK_TIMEOUT_S
# Auto Scaling accepts 30 s to 7200 s for a hook's heartbeat timeout.
HEARTBEAT_RANGE_S = (30, 7200)
# What Auto Scaling does when the heartbeat runs out: the instance goes (ABANDON would too, and would
# also skip any other hook's answer); a stuck worker never keeps a GPU instance billed for ever.
DRAIN_DEFAULT_RESULT = "CONTINUE"
DEFAULT_RESULTS = ("CONTINUE", "ABANDON")

QUEUE_URL_ENV = "GPUFLEET_QUEUE_URL"
GROUP_ENV = "GPUFLEET_GROUP"
HOOK_ENV = "GPUFLEET_LIFECYCLE_HOOK"
# The queue's visibility timeout, for a worker whose queue cannot be asked for it (MNS, CMQ).
VISIBILITY_ENV = "GPUFLEET_VISIBILITY_S"

PROTECTION_ACTIONS = (
    "autoscaling:SetInstanceProtection",
    "autoscaling:CompleteLifecycleAction",
    "autoscaling:RecordLifecycleActionHeartbeat",
)


# What the worker reads of its group: its own lifecycle state (a termination waiting on the hook) and
# the group's maximum (0: the pool is stopped, by the off-hours schedule or by hand). Auto Scaling's
# Describe actions take no resource ARN.
DESCRIBE_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
)


def protection_statements(group_arn: pulumi.Input[str]) -> list[Statement]:
    """What a pool's worker may do to its own group, and to no other: protect its instance while it
    holds a job, and answer the termination hook; and read its instance's state and its group's size."""
    return [
        Statement(sid="ProtectOwnInstance", actions=PROTECTION_ACTIONS, resources=[group_arn]),
        Statement(sid="ReadOwnState", actions=DESCRIBE_ACTIONS, resources=["*"]),
    ]
