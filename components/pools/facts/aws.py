"""AWS's pool facts (see :mod:`gpufleet.components.pools.facts`).

The burst gate is exact: metric-math alarms, ``IF(FILL(ahead, 0) < 1, <metric>, 0)``. A joined node's
provider id is the form cluster-autoscaler's AWS provider reads (aws_manager.go / aws_util.go:
``aws:///<availability zone>/<instance id>``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpufleet.components.pools.aws_ecr import EcrImage
    from gpufleet.components.spec.burst import Burst

ENFORCEMENT = "metric-math"
PROVIDER_ID = "aws:///{zone}/{instance}"
# The tag Auto Scaling puts on each instance of a group: its group's name.
GROUP_TAG = "aws:autoscaling:groupName"


def describe_gate(burst: Burst) -> str:
    """How an AWS site's pools are held back, for ``gpufleet plan``'s burst-order lines."""
    return "scale-out alarms gated by metric math on gpufleet/Baseline FreeGpusAhead"


def private_image(image: str) -> EcrImage | None:
    """The ECR repository ``image`` lives in (:func:`gpufleet.components.pools.aws_ecr.ecr_image`)."""
    from gpufleet.components.pools.aws_ecr import ecr_image

    return ecr_image(image)


def group_lookup(region: str) -> str:
    """Boot-script lines setting ``group_name`` to the instance's Auto Scaling group
    (:func:`gpufleet.components.pools.aws_userdata.group_lookup`)."""
    from gpufleet.components.pools.aws_userdata import group_lookup as lookup

    return lookup(region)
