"""GPU capacity for a research team written every way the AWS SDK allows: an ASG on a launch
configuration bidding spot, an ASG whose mixed-instances policy picks GPUs by attribute
(instance_requirements, no instance types), a spot fleet request, an EC2 fleet and an EKS managed
node group, plus the stack's budget.

`gpu-pools:break` selects one mistake; `none` is compliant. `gpu-pools:env` is the environment.
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import ResourceOptions

config = pulumi.Config()
BREAK = config.get("break") or "none"
ENV = config.get("env") or "dev"
TAGS = {"project": "research", "team": "ml", "cost-center": "cc-311", "env": ENV}

provider = aws.Provider("usw2", region="us-west-2", default_tags=aws.ProviderDefaultTagsArgs(tags=TAGS))
opts = ResourceOptions(provider=provider)
SUBNETS = ["subnet-0aa11bb22cc33dd44", "subnet-0ee55ff66aa77bb88"]
AMI = "ami-0c1d2e3f4a5b6c7d8"


ssm_role = aws.iam.Role(
    "gpu-instances",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    ),
    opts=opts,
)
aws.iam.RolePolicyAttachment(
    "gpu-instances-ssm",
    role=ssm_role.name,
    policy_arn="arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
    opts=opts,
)
profile = aws.iam.InstanceProfile("gpu-instances", role=ssm_role.name, opts=opts)


class GpuWorkers(pulumi.ComponentResource):
    """A team's own wrapper: a launch configuration and the ASG that runs it."""

    def __init__(self, name: str, instance_type: str, spot_price: str | None, opts: ResourceOptions) -> None:
        super().__init__("research:index:GpuWorkers", name, None, opts)
        child = ResourceOptions(parent=self, provider=provider)
        self.lc = aws.ec2.LaunchConfiguration(
            f"{name}-lc",
            image_id=AMI,
            instance_type=instance_type,
            spot_price=spot_price,
            iam_instance_profile=profile.name,
            metadata_options={
                "http_tokens": "required",
                "http_endpoint": "enabled",
                "http_put_response_hop_limit": 2,
            },
            root_block_device={"volume_type": "gp3", "volume_size": 100, "encrypted": True},
            opts=child,
        )
        self.asg = aws.autoscaling.Group(
            f"{name}-asg",
            launch_configuration=self.lc.name,
            min_size=0,
            max_size=2,
            desired_capacity=0,
            vpc_zone_identifiers=SUBNETS,
            tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
            opts=child,
        )
        self.register_outputs({})


workers = GpuWorkers(
    "notebooks",
    "p5.48xlarge" if BREAK == "p5-in-dev" else "g4dn.xlarge",
    None if BREAK == "lc-on-demand" else "0.30",
    opts,
)
aws.autoscaling.Policy(
    "notebooks-cpu",
    autoscaling_group_name=workers.asg.name,
    policy_type="TargetTrackingScaling",
    estimated_instance_warmup=300,
    target_tracking_configuration=aws.autoscaling.PolicyTargetTrackingConfigurationArgs(
        target_value=50,
        predefined_metric_specification=aws.autoscaling.PolicyTargetTrackingConfigurationPredefinedMetricSpecificationArgs(
            predefined_metric_type="ASGAverageCPUUtilization"
        ),
    ),
    opts=opts,
)
aws.autoscaling.Schedule(
    "notebooks-night",
    scheduled_action_name="notebooks-night",
    autoscaling_group_name=workers.asg.name,
    min_size=0,
    max_size=0,
    desired_capacity=0,
    recurrence="0 19 * * 1-5",
    time_zone="Europe/Berlin",
    opts=opts,
)
if BREAK != "no-weekend":
    aws.autoscaling.Schedule(
        "notebooks-morning",
        scheduled_action_name="notebooks-morning",
        autoscaling_group_name=workers.asg.name,
        min_size=0,
        max_size=2,
        desired_capacity=0,
        recurrence="0 7 * * MON-FRI",
        time_zone="Europe/Berlin",
        opts=opts,
    )

# -- attribute-based GPU selection --------------------------------------------------------------
lt = aws.ec2.LaunchTemplate(
    "batch",
    image_id=AMI,
    iam_instance_profile={"arn": profile.arn},
    metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
        http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=2
    ),
    block_device_mappings=[
        aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
            device_name="/dev/xvda",
            ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                volume_size=200, volume_type="gp2" if BREAK == "gp2" else "gp3", encrypted="true"
            ),
        )
    ],
    opts=opts,
)
batch = aws.autoscaling.Group(
    "batch",
    min_size=0,
    max_size=4,
    vpc_zone_identifiers=SUBNETS,
    default_cooldown=120 if BREAK == "short-cooldown" else 300,
    mixed_instances_policy={
        "instances_distribution": {
            "on_demand_base_capacity": 0,
            "on_demand_percentage_above_base_capacity": 100 if BREAK == "batch-on-demand" else 0,
            "spot_allocation_strategy": "price-capacity-optimized",
        },
        "launch_template": {
            "launch_template_specification": {"launch_template_id": lt.id, "version": "$Latest"},
            "overrides": [
                {
                    "instance_requirements": {
                        "vcpu_count": {"min": 4, "max": 16},
                        "memory_mib": {"min": 16384},
                        "accelerator_types": ["gpu"],
                        "accelerator_manufacturers": ["nvidia"],
                        "accelerator_names": ["h100"] if BREAK == "h100-by-attribute" else ["t4", "a10g"],
                        "accelerator_count": {"min": 1, "max": 1},
                    }
                }
            ],
        },
    },
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
    opts=opts,
)
aws.autoscaling.Policy(
    "batch-gpu-target",
    autoscaling_group_name=batch.name,
    policy_type="TargetTrackingScaling",
    estimated_instance_warmup=300,
    target_tracking_configuration={
        "target_value": 60,
        "disable_scale_in": BREAK == "no-scale-in",
        "customized_metric_specification": {
            "metric_name": "nvidia_smi_utilization_gpu",
            "namespace": "CWAgent",
            "statistic": "Average",
            "metric_dimensions": [{"name": "AutoScalingGroupName", "value": batch.name}],
        },
    },
    opts=opts,
)
if BREAK != "no-schedule":
    for action, size, cron in (("batch-night", 0, "0 20 * * *"), ("batch-day", 4, "0 8 * * 1-5")):
        aws.autoscaling.Schedule(
            action,
            scheduled_action_name=action,
            autoscaling_group_name=batch.name,
            min_size=0,
            max_size=size,
            desired_capacity=0,
            recurrence=cron,
            opts=opts,
        )

# -- fleets ---------------------------------------------------------------------------------------
fleet_role = aws.iam.Role(
    "spot-fleet",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Service": "spotfleet.amazonaws.com"},
                    "Action": "sts:AssumeRole",
                }
            ],
        }
    ),
    managed_policy_arns=["arn:aws:iam::aws:policy/service-role/AmazonEC2SpotFleetTaggingRole"],
    opts=opts,
)
sweeps = aws.ec2.SpotFleetRequest(
    "sweeps",
    iam_fleet_role=fleet_role.arn,
    target_capacity=2,
    on_demand_target_capacity=2 if BREAK == "spot-fleet-on-demand" else 0,
    allocation_strategy="priceCapacityOptimized",
    terminate_instances_with_expiration=True,
    valid_until="2027-01-01T00:00:00Z",
    launch_template_configs=[
        {
            "launch_template_specification": {"id": lt.id, "version": "$Latest"},
            "overrides": [{"instance_type": "g5.xlarge", "subnet_id": SUBNETS[0]}],
        }
    ],
    opts=opts,
)
sweeps_target = aws.appautoscaling.Target(
    "sweeps",
    service_namespace="ec2",
    scalable_dimension="ec2:spot-fleet-request:TargetCapacity",
    resource_id=sweeps.id.apply(lambda i: f"spot-fleet-request/{i}"),
    min_capacity=0,
    max_capacity=2,
    opts=opts,
)
if BREAK != "spot-fleet-no-schedule":
    aws.appautoscaling.ScheduledAction(
        "sweeps-night",
        service_namespace=sweeps_target.service_namespace,
        resource_id=sweeps_target.resource_id,
        scalable_dimension=sweeps_target.scalable_dimension,
        schedule="cron(0 20 * * ? *)",
        timezone="Europe/Berlin",
        scalable_target_action={"min_capacity": 0, "max_capacity": 0},
        opts=opts,
    )
    aws.appautoscaling.ScheduledAction(
        "sweeps-morning",
        service_namespace=sweeps_target.service_namespace,
        resource_id=sweeps_target.resource_id,
        scalable_dimension=sweeps_target.scalable_dimension,
        schedule="cron(0 8 ? * MON-FRI *)",
        timezone="Europe/Berlin",
        scalable_target_action={"min_capacity": 0, "max_capacity": 2},
        opts=opts,
    )
if ENV == "prod" or BREAK == "fleet-on-demand":
    aws.ec2.Fleet(
        "evals",
        type="maintain",
        launch_template_configs=[
            {
                "launch_template_specification": {"launch_template_id": lt.id, "version": "$Latest"},
                "overrides": [{"instance_type": "g6.xlarge", "subnet_id": SUBNETS[1]}],
            }
        ],
        target_capacity_specification={
            "default_target_capacity_type": "on-demand" if BREAK == "fleet-on-demand" else "spot",
            "total_target_capacity": 2,
        },
        spot_options={"allocation_strategy": "price-capacity-optimized"},
        opts=opts,
    )

# -- EKS managed node group -----------------------------------------------------------------------
node_role = aws.iam.Role(
    "eks-gpu-nodes",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    ),
    managed_policy_arns=[
        "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
        "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    ],
    opts=opts,
)
node_group = aws.eks.NodeGroup(
    "gpu",
    cluster_name="research",
    node_role_arn=node_role.arn,
    subnet_ids=SUBNETS,
    ami_type="AL2023_x86_64_NVIDIA",
    capacity_type="ON_DEMAND"
    if BREAK == "nodegroup-on-demand"
    else ("SPOT" if ENV == "dev" else "ON_DEMAND"),
    instance_types=["g5.xlarge"],
    scaling_config={"min_size": 0, "desired_size": 0, "max_size": 2},
    taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
    opts=opts,
)

# Managed node groups run on an ASG that EKS creates; its name is an output of the node group.
node_asg = node_group.resources.apply(
    lambda rs: rs[0].autoscaling_groups[0].name if rs else "eks-gpu-unknown"
)
if BREAK != "nodegroup-no-schedule":
    for action, size, cron in (("nodes-night", 0, "0 20 * * *"), ("nodes-day", 2, "0 8 * * 1-5")):
        aws.autoscaling.Schedule(
            action,
            scheduled_action_name=action,
            autoscaling_group_name=node_asg,
            min_size=0,
            max_size=size,
            desired_capacity=0,
            recurrence=cron,
            opts=opts,
        )

# -- budget -----------------------------------------------------------------------------------------
aws.budgets.Budget(
    "research",
    budget_type="COST",
    limit_amount="3000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 2900 if BREAK == "budget-absolute-late" else 2000,
            "threshold_type": "ABSOLUTE_VALUE",
            "notification_type": "FORECASTED",
            "subscriber_email_addresses": ["ml@example.com"],
        }
    ],
    opts=opts,
)
if BREAK == "untagged":
    # A second provider without default_tags: only the resource's own tags count.
    bare = aws.Provider("bare", region="us-west-2")
    # A queue carries cost of its own (IAM roles and bucket objects do not, and are not judged).
    aws.sqs.Queue(
        "scratch",
        message_retention_seconds=86400,
        sqs_managed_sse_enabled=True,
        tags={"project": "research", "team": "ml"},
        opts=ResourceOptions(provider=bare),
    )
