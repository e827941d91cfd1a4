"""What an AWS pool's instances boot: the image (the Deep Learning Base AMI unless the spec names one)
and the user data: the CloudWatch agent and the workload (:mod:`gpufleet.components.pools.userdata`), or,
for a pool whose nodes join the on-prem cluster, the join script
(:func:`gpufleet.components.pools.aws_join.join_user_data`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi
import pulumi_aws as aws

from gpufleet.components.pools.aws_join import join_user_data
from gpufleet.components.pools.aws_userdata import encoded_user_data
from gpufleet.components.pools.userdata import WorkloadContext
from gpufleet.components.tags import IMAGE_ARCH_TAG

if TYPE_CHECKING:
    from gpufleet.components.pools.aws import GpuPoolArgs
    from gpufleet.components.pools.aws_queue import PoolQueueRefs

# AWS Deep Learning Base AMI with the NVIDIA driver, CUDA and the CloudWatch agent.
DLAMI_NAME_FILTER = "Deep Learning Base OSS Nvidia Driver GPU AMI (Amazon Linux 2023) *"
# The architecture of the looked-up image is tagged on the template (IMAGE_ARCH_TAG) so the pack can hold
# it against the types (GF-FIT-003): an id from a lookup says nothing of it at preview.


def pool_image(args: GpuPoolArgs, parent: pulumi.Resource) -> tuple[pulumi.Input[str], dict[str, str]]:
    """The image id and the tags it adds to the launch template: the spec's image, else the newest
    x86_64 Deep Learning Base AMI of the region."""
    if args.image_id is not None:
        return args.image_id, {}
    image = aws.ec2.get_ami_output(
        most_recent=True,
        owners=["amazon"],
        region=args.region,
        filters=[
            aws.ec2.GetAmiFilterArgs(name="name", values=[DLAMI_NAME_FILTER]),
            aws.ec2.GetAmiFilterArgs(name="architecture", values=["x86_64"]),
        ],
        opts=pulumi.InvokeOutputOptions(parent=parent),
    ).id
    return image, {IMAGE_ARCH_TAG: "x86_64"}


def pool_user_data(
    args: GpuPoolArgs, queue: PoolQueueRefs, region: pulumi.Input[str], join_secret: str | None
) -> pulumi.Input[str] | None:
    """The launch template's user data (base64). A joined pool boots the join script, which reads its
    secret (``join_secret``) with the instance's role; the others the agent and their workload."""
    if args.join is not None:
        if join_secret is None:  # GpuPool builds the secret of every joined pool
            raise AssertionError(f"pools.{args.pool}: a joined pool without its join secret")
        return pulumi.Output.from_input(region).apply(lambda r: join_user_data(args.join, join_secret, r))
    workload = args.workload
    if args.agent_log_group_name is not None and workload is None:
        # Known at preview (the log group's name is fixed), so rules can read the agent config.
        return pulumi.Output.from_input(args.agent_log_group_name).apply(
            lambda group: encoded_user_data(group, args.stack)
        )
    if args.agent_log_group_name is not None and workload is not None:
        # The workload is told its queue, whose name and URL a created queue gets at deploy.
        return pulumi.Output.all(args.agent_log_group_name, queue.name, region, queue.url).apply(
            lambda values: encoded_user_data(
                values[0],
                args.stack,
                WorkloadContext(
                    workload=workload, queue_name=values[1], region=values[2], queue_url=values[3]
                ),
            )
        )
    return None
