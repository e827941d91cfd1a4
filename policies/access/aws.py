"""AWS compute resources as the access rules see them (`gpufleet.policies.access.compute`): their type
tokens, labels in messages, where each keeps its instance types, the launch templates and
configurations each takes its settings from, and which kinds ask for GPUs some other way.

EC2 instances, spot instance requests, launch templates and configurations, Auto Scaling groups, EC2
fleets and spot fleets, Batch compute environments (which take bare families such as `g5` as well as
types) and EKS node groups (a GPU `amiType` makes one a GPU group). Attribute-based selection
(`instanceRequirements.acceleratorTypes` including "gpu") asks for GPUs too.
"""

from __future__ import annotations

from gpufleet.policies.access.links import Link

AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SPOT_INSTANCE = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_AUTOSCALING_GROUP = "aws:autoscaling/group:Group"
AWS_FLEET = "aws:ec2/fleet:Fleet"
AWS_SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
AWS_BATCH_COMPUTE = "aws:batch/computeEnvironment:ComputeEnvironment"
AWS_EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"

LABELS = {
    AWS_INSTANCE: "EC2 instance",
    AWS_SPOT_INSTANCE: "EC2 spot instance request",
    AWS_LAUNCH_TEMPLATE: "EC2 launch template",
    AWS_LAUNCH_CONFIGURATION: "EC2 launch configuration",
    AWS_AUTOSCALING_GROUP: "Auto Scaling group",
    AWS_FLEET: "EC2 fleet",
    AWS_SPOT_FLEET: "EC2 spot fleet request",
    AWS_BATCH_COMPUTE: "Batch compute environment",
    AWS_EKS_NODE_GROUP: "EKS node group",
}

# Where each kind keeps its own instance types ("*" walks a list).
TYPE_PATHS: dict[str, tuple[str, ...]] = {
    AWS_INSTANCE: ("instanceType",),
    AWS_SPOT_INSTANCE: ("instanceType",),
    AWS_LAUNCH_TEMPLATE: ("instanceType",),
    AWS_LAUNCH_CONFIGURATION: ("instanceType",),
    AWS_AUTOSCALING_GROUP: ("mixedInstancesPolicy.launchTemplate.overrides.*.instanceType",),
    AWS_FLEET: ("launchTemplateConfigs.*.overrides.*.instanceType",),
    AWS_SPOT_FLEET: (
        "launchSpecifications.*.instanceType",
        "launchTemplateConfigs.*.overrides.*.instanceType",
    ),
    # Batch takes instance families ("g5") as well as types ("g5.xlarge"), and "optimal".
    AWS_BATCH_COMPUTE: ("computeResources.instanceTypes.*",),
    AWS_EKS_NODE_GROUP: ("instanceTypes.*",),
}

# Attribute-based selection: where a kind lists the accelerator types it asks for.
REQUIREMENT_PATHS: dict[str, tuple[str, ...]] = {
    AWS_LAUNCH_TEMPLATE: ("instanceRequirements.acceleratorTypes.*",),
    AWS_AUTOSCALING_GROUP: (
        "mixedInstancesPolicy.launchTemplate.overrides.*.instanceRequirements.acceleratorTypes.*",
    ),
    AWS_FLEET: ("launchTemplateConfigs.*.overrides.*.instanceRequirements.acceleratorTypes.*",),
}

# kinds whose instance types may be bare families (`g5`)
FAMILY_TYPES = (AWS_BATCH_COMPUTE,)
# kinds whose image type (`amiType`) alone can make them GPU
GPU_IMAGE_TYPES = (AWS_EKS_NODE_GROUP,)

_TEMPLATE_LINK = Link(("launchTemplate.id", "launchTemplate.name"), "launchTemplate", (AWS_LAUNCH_TEMPLATE,))

# user -> the resources it takes its launch settings from
LINKS: dict[str, tuple[Link, ...]] = {
    AWS_INSTANCE: (_TEMPLATE_LINK,),
    AWS_SPOT_INSTANCE: (_TEMPLATE_LINK,),
    AWS_AUTOSCALING_GROUP: (
        _TEMPLATE_LINK,
        Link(
            (
                "mixedInstancesPolicy.launchTemplate.launchTemplateSpecification.launchTemplateId",
                "mixedInstancesPolicy.launchTemplate.launchTemplateSpecification.launchTemplateName",
            ),
            "mixedInstancesPolicy",
            (AWS_LAUNCH_TEMPLATE,),
        ),
        Link(("launchConfiguration",), "launchConfiguration", (AWS_LAUNCH_CONFIGURATION,)),
    ),
    AWS_FLEET: (
        Link(
            (
                "launchTemplateConfigs.*.launchTemplateSpecification.launchTemplateId",
                "launchTemplateConfigs.*.launchTemplateSpecification.launchTemplateName",
            ),
            "launchTemplateConfigs",
            (AWS_LAUNCH_TEMPLATE,),
        ),
    ),
    AWS_SPOT_FLEET: (
        Link(
            (
                "launchTemplateConfigs.*.launchTemplateSpecification.id",
                "launchTemplateConfigs.*.launchTemplateSpecification.name",
            ),
            "launchTemplateConfigs",
            (AWS_LAUNCH_TEMPLATE,),
        ),
    ),
    AWS_BATCH_COMPUTE: (
        Link(
            (
                "computeResources.launchTemplate.launchTemplateId",
                "computeResources.launchTemplate.launchTemplateName",
            ),
            "computeResources",
            (AWS_LAUNCH_TEMPLATE,),
        ),
    ),
    AWS_EKS_NODE_GROUP: (_TEMPLATE_LINK,),
}
