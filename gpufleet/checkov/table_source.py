"""The curated source of `table.json`: Pulumi type tokens of the bridged providers and their Terraform
resource types, with the property renames the bridge applied.

The bridge names a Pulumi property by camel-casing the Terraform name and, for a list of blocks that may
hold more than one item, pluralising it (`ebs_block_device` -> `ebsBlockDevices`). Snake-casing undoes
the first step; `renames` undoes the second where the Terraform name is singular (a Terraform name that
is already plural, such as `aws_launch_template.block_device_mappings`, needs no entry). Every token is
a resource of pulumi-aws 7.51, pulumi-alicloud 4.0 and tencentcloud-iac-pulumi 0.2.3 (a test reads the
SDKs) and every property name is the SDK's wire name; the Terraform names are the providers' block
names. The autoscaling entries (`tags` -> `tag`, `vpcZoneIdentifiers`, `overrides` -> `override`,
`stepAdjustments`, `metricDimensions`) were checked against pulumi-aws's bridge-metadata.json
(`renames.renamedProperties`, commit 07d08a0); that file is 3.7 MB and the other AWS entries were not.
`generate_table --bridge-metadata` checked every Alibaba entry against pulumi-alicloud's (commit
9d2b1e47cc, a 3.x snapshot without the separate OSS resources: types agree, its renames are here) and
the Tencent types against tencentcloud's `auto-aliasing` (commit a8c3ff6da: all agree; `Audit/track`,
`Security/groupRule` and `Security/groupLiteRule` are newer than that snapshot). `COMMON_MAPS` names
map-valued properties whose keys are data and are left alone.

Run `python -m gpufleet.checkov.generate_table` after editing; `--bridge-metadata FILE` (repeatable)
checks every type and rename here against a provider's bridge metadata and adds renames it finds.
"""

from __future__ import annotations

from typing import Any

_S3_RULES = {"rules": "rule"}

AWS: dict[str, tuple[str, dict[str, str]]] = {
    # compute
    "aws:ec2/instance:Instance": (
        "aws_instance",
        {
            "ebsBlockDevices": "ebs_block_device",
            "ephemeralBlockDevices": "ephemeral_block_device",
            "networkInterfaces": "network_interface",
        },
    ),
    "aws:ec2/launchTemplate:LaunchTemplate": (
        "aws_launch_template",
        {"elasticGpuSpecifications": "elastic_gpu_specifications"},
    ),
    "aws:ec2/launchConfiguration:LaunchConfiguration": (
        "aws_launch_configuration",
        {"ebsBlockDevices": "ebs_block_device", "ephemeralBlockDevices": "ephemeral_block_device"},
    ),
    "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults": ("aws_ec2_instance_metadata_defaults", {}),
    "aws:autoscaling/group:Group": (
        "aws_autoscaling_group",
        {
            "tags": "tag",
            "initialLifecycleHooks": "initial_lifecycle_hook",
            "trafficSources": "traffic_source",
            "vpcZoneIdentifiers": "vpc_zone_identifier",
            "overrides": "override",
        },
    ),
    "aws:autoscaling/policy:Policy": (
        "aws_autoscaling_policy",
        {"stepAdjustments": "step_adjustment", "metricDimensions": "metric_dimension"},
    ),
    "aws:autoscaling/schedule:Schedule": ("aws_autoscaling_schedule", {}),
    "aws:autoscaling/lifecycleHook:LifecycleHook": ("aws_autoscaling_lifecycle_hook", {}),
    "aws:batch/computeEnvironment:ComputeEnvironment": (
        "aws_batch_compute_environment",
        {"ec2Configurations": "ec2_configuration"},
    ),
    "aws:batch/jobQueue:JobQueue": (
        "aws_batch_job_queue",
        {"computeEnvironmentOrders": "compute_environment_order"},
    ),
    "aws:batch/jobDefinition:JobDefinition": ("aws_batch_job_definition", {}),
    # network
    "aws:ec2/vpc:Vpc": ("aws_vpc", {}),
    "aws:ec2/subnet:Subnet": ("aws_subnet", {}),
    "aws:ec2/routeTable:RouteTable": ("aws_route_table", {"routes": "route"}),
    "aws:ec2/routeTableAssociation:RouteTableAssociation": ("aws_route_table_association", {}),
    "aws:ec2/route:Route": ("aws_route", {}),
    "aws:ec2/internetGateway:InternetGateway": ("aws_internet_gateway", {}),
    "aws:ec2/natGateway:NatGateway": ("aws_nat_gateway", {}),
    "aws:ec2/eip:Eip": ("aws_eip", {}),
    "aws:ec2/vpcEndpoint:VpcEndpoint": ("aws_vpc_endpoint", {"subnetConfigurations": "subnet_configuration"}),
    "aws:ec2/flowLog:FlowLog": ("aws_flow_log", {}),
    "aws:ec2/networkAcl:NetworkAcl": ("aws_network_acl", {}),
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": ("aws_default_security_group", {}),
    "aws:ec2/securityGroup:SecurityGroup": ("aws_security_group", {}),
    "aws:ec2/securityGroupRule:SecurityGroupRule": ("aws_security_group_rule", {}),
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": ("aws_vpc_security_group_ingress_rule", {}),
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": ("aws_vpc_security_group_egress_rule", {}),
    # storage
    "aws:s3/bucket:Bucket": (
        "aws_s3_bucket",
        {
            "corsRules": "cors_rule",
            "grants": "grant",
            "lifecycleRules": "lifecycle_rule",
            "serverSideEncryptionConfiguration": "server_side_encryption_configuration",
            "transitions": "transition",
            "noncurrentVersionTransitions": "noncurrent_version_transition",
            "rules": "rule",
        },
    ),
    "aws:s3/bucketV2:BucketV2": (
        "aws_s3_bucket",
        {
            "corsRules": "cors_rule",
            "grants": "grant",
            "lifecycleRules": "lifecycle_rule",
            "loggings": "logging",
            "versionings": "versioning",
            "websites": "website",
            "replicationConfigurations": "replication_configuration",
            "serverSideEncryptionConfigurations": "server_side_encryption_configuration",
            "transitions": "transition",
            "noncurrentVersionTransitions": "noncurrent_version_transition",
            "rules": "rule",
            "applyServerSideEncryptionByDefaults": "apply_server_side_encryption_by_default",
        },
    ),
    "aws:s3/bucketPolicy:BucketPolicy": ("aws_s3_bucket_policy", {}),
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": ("aws_s3_bucket_public_access_block", {}),
    "aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock": ("aws_s3_account_public_access_block", {}),
    "aws:s3/bucketAcl:BucketAcl": ("aws_s3_bucket_acl", {"grants": "grant"}),
    "aws:s3/bucketAclV2:BucketAclV2": ("aws_s3_bucket_acl", {"grants": "grant"}),
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls": ("aws_s3_bucket_ownership_controls", {}),
    "aws:s3/bucketVersioning:BucketVersioning": ("aws_s3_bucket_versioning", {}),
    "aws:s3/bucketVersioningV2:BucketVersioningV2": ("aws_s3_bucket_versioning", {}),
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": (
        "aws_s3_bucket_server_side_encryption_configuration",
        _S3_RULES,
    ),
    "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2": (
        "aws_s3_bucket_server_side_encryption_configuration",
        _S3_RULES,
    ),
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": (
        "aws_s3_bucket_lifecycle_configuration",
        {
            "rules": "rule",
            "transitions": "transition",
            "noncurrentVersionTransitions": "noncurrent_version_transition",
        },
    ),
    "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2": (
        "aws_s3_bucket_lifecycle_configuration",
        {
            "rules": "rule",
            "transitions": "transition",
            "noncurrentVersionTransitions": "noncurrent_version_transition",
        },
    ),
    "aws:s3/bucketLogging:BucketLogging": ("aws_s3_bucket_logging", {"targetGrants": "target_grant"}),
    "aws:s3/bucketLoggingV2:BucketLoggingV2": ("aws_s3_bucket_logging", {"targetGrants": "target_grant"}),
    "aws:s3/bucketReplicationConfig:BucketReplicationConfig": (
        "aws_s3_bucket_replication_configuration",
        {"rules": "rule"},
    ),
    "aws:s3/bucketNotification:BucketNotification": (
        "aws_s3_bucket_notification",
        {"queues": "queue", "topics": "topic", "lambdaFunctions": "lambda_function"},
    ),
    "aws:ebs/volume:Volume": ("aws_ebs_volume", {}),
    "aws:ebs/snapshot:Snapshot": ("aws_ebs_snapshot", {}),
    "aws:ebs/encryptionByDefault:EncryptionByDefault": ("aws_ebs_encryption_by_default", {}),
    "aws:ebs/defaultKmsKey:DefaultKmsKey": ("aws_ebs_default_kms_key", {}),
    # identity and keys
    "aws:iam/role:Role": ("aws_iam_role", {"inlinePolicies": "inline_policy"}),
    "aws:iam/rolePolicy:RolePolicy": ("aws_iam_role_policy", {}),
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ("aws_iam_role_policy_attachment", {}),
    "aws:iam/policy:Policy": ("aws_iam_policy", {}),
    "aws:iam/policyAttachment:PolicyAttachment": ("aws_iam_policy_attachment", {}),
    "aws:iam/instanceProfile:InstanceProfile": ("aws_iam_instance_profile", {}),
    "aws:iam/user:User": ("aws_iam_user", {}),
    "aws:iam/userPolicy:UserPolicy": ("aws_iam_user_policy", {}),
    "aws:iam/userPolicyAttachment:UserPolicyAttachment": ("aws_iam_user_policy_attachment", {}),
    "aws:iam/group:Group": ("aws_iam_group", {}),
    "aws:iam/groupPolicy:GroupPolicy": ("aws_iam_group_policy", {}),
    "aws:iam/accessKey:AccessKey": ("aws_iam_access_key", {}),
    "aws:iam/serviceLinkedRole:ServiceLinkedRole": ("aws_iam_service_linked_role", {}),
    "aws:iam/accountPasswordPolicy:AccountPasswordPolicy": ("aws_iam_account_password_policy", {}),
    "aws:kms/key:Key": ("aws_kms_key", {}),
    "aws:kms/alias:Alias": ("aws_kms_alias", {}),
    "aws:kms/externalKey:ExternalKey": ("aws_kms_external_key", {}),
    "aws:kms/replicaKey:ReplicaKey": ("aws_kms_replica_key", {}),
    "aws:kms/replicaExternalKey:ReplicaExternalKey": ("aws_kms_replica_external_key", {}),
    "aws:kms/grant:Grant": ("aws_kms_grant", {}),
    # audit and monitoring
    "aws:cloudtrail/trail:Trail": (
        "aws_cloudtrail",
        {
            "eventSelectors": "event_selector",
            "advancedEventSelectors": "advanced_event_selector",
            "insightSelectors": "insight_selector",
            "dataResources": "data_resource",
            "fieldSelectors": "field_selector",
        },
    ),
    "aws:cloudwatch/logGroup:LogGroup": ("aws_cloudwatch_log_group", {}),
    "aws:cloudwatch/metricAlarm:MetricAlarm": (
        "aws_cloudwatch_metric_alarm",
        {"metricQueries": "metric_query"},
    ),
    "aws:cloudwatch/eventRule:EventRule": ("aws_cloudwatch_event_rule", {}),
    "aws:cloudwatch/eventTarget:EventTarget": ("aws_cloudwatch_event_target", {}),
    "aws:sns/topic:Topic": ("aws_sns_topic", {}),
    "aws:sns/topicPolicy:TopicPolicy": ("aws_sns_topic_policy", {}),
    "aws:sns/topicSubscription:TopicSubscription": ("aws_sns_topic_subscription", {}),
    "aws:sqs/queue:Queue": ("aws_sqs_queue", {}),
    "aws:sqs/queuePolicy:QueuePolicy": ("aws_sqs_queue_policy", {}),
    "aws:sqs/redrivePolicy:RedrivePolicy": ("aws_sqs_queue_redrive_policy", {}),
    "aws:sqs/redriveAllowPolicy:RedriveAllowPolicy": ("aws_sqs_queue_redrive_allow_policy", {}),
    "aws:budgets/budget:Budget": (
        "aws_budgets_budget",
        {"notifications": "notification", "costFilters": "cost_filter", "plannedLimits": "planned_limit"},
    ),
    "aws:ssm/document:Document": ("aws_ssm_document", {}),
    "aws:ssm/parameter:Parameter": ("aws_ssm_parameter", {}),
    # kubernetes services
    "aws:eks/cluster:Cluster": ("aws_eks_cluster", {}),
    "aws:eks/nodeGroup:NodeGroup": ("aws_eks_node_group", {"taints": "taint"}),
    "aws:eks/addon:Addon": ("aws_eks_addon", {}),
    "aws:ecr/repository:Repository": ("aws_ecr_repository", {}),
}

ALICLOUD: dict[str, tuple[str, dict[str, str]]] = {
    "alicloud:oss/bucket:Bucket": (
        "alicloud_oss_bucket",
        {
            "corsRules": "cors_rule",
            "lifecycleRules": "lifecycle_rule",
            "expirations": "expiration",
            "noncurrentVersionTransitions": "noncurrent_version_transition",
            "noncurrentVersionExpirations": "noncurrent_version_expiration",
            "abortMultipartUploads": "abort_multipart_upload",
        },
    ),
    "alicloud:oss/bucketAcl:BucketAcl": ("alicloud_oss_bucket_acl", {}),
    "alicloud:oss/bucketPolicy:BucketPolicy": ("alicloud_oss_bucket_policy", {}),
    "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock": (
        "alicloud_oss_bucket_public_access_block",
        {},
    ),
    "alicloud:oss/accountPublicAccessBlock:AccountPublicAccessBlock": (
        "alicloud_oss_account_public_access_block",
        {},
    ),
    "alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption": (
        "alicloud_oss_bucket_server_side_encryption",
        {},
    ),
    "alicloud:oss/bucketVersioning:BucketVersioning": ("alicloud_oss_bucket_versioning", {}),
    "alicloud:oss/bucketLogging:BucketLogging": ("alicloud_oss_bucket_logging", {}),
    "alicloud:ecs/instance:Instance": ("alicloud_instance", {}),
    "alicloud:ecs/securityGroup:SecurityGroup": ("alicloud_security_group", {}),
    "alicloud:ecs/securityGroupRule:SecurityGroupRule": ("alicloud_security_group_rule", {}),
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate": ("alicloud_ecs_launch_template", {}),
    "alicloud:ecs/disk:Disk": ("alicloud_disk", {}),
    "alicloud:ecs/ecsDisk:EcsDisk": ("alicloud_ecs_disk", {}),
    "alicloud:ram/role:Role": ("alicloud_ram_role", {}),
    "alicloud:ram/policy:Policy": (
        "alicloud_ram_policy",
        {"statements": "statement", "actions": "action", "resources": "resource"},
    ),
    "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment": ("alicloud_ram_role_policy_attachment", {}),
    "alicloud:kms/key:Key": ("alicloud_kms_key", {}),
    "alicloud:ess/scalingGroup:ScalingGroup": (
        "alicloud_ess_scaling_group",
        {"launchTemplateOverrides": "launch_template_override"},
    ),
    "alicloud:ess/scalingConfiguration:ScalingConfiguration": (
        "alicloud_ess_scaling_configuration",
        {
            "dataDisks": "data_disk",
            "instancePatternInfos": "instance_pattern_info",
            "instanceTypeOverrides": "instance_type_override",
            "spotPriceLimits": "spot_price_limit",
        },
    ),
    "alicloud:vpc/network:Network": ("alicloud_vpc", {}),
    "alicloud:vpc/switch:Switch": ("alicloud_vswitch", {}),
    "alicloud:actiontrail/trail:Trail": ("alicloud_actiontrail_trail", {}),
    "alicloud:log/store:Store": ("alicloud_log_store", {"fieldSearches": "field_search"}),
    "alicloud:log/project:Project": ("alicloud_log_project", {}),
    "alicloud:cs/managedKubernetes:ManagedKubernetes": ("alicloud_cs_managed_kubernetes", {}),
    "alicloud:cs/nodePool:NodePool": (
        "alicloud_cs_kubernetes_node_pool",
        {"spotPriceLimits": "spot_price_limit"},
    ),
    # The rest of what the Alibaba site builds (cn-dev): no checkov check reads these types today; they
    # are exported so that a future check, or a custom one, sees the whole site.
    "alicloud:oss/bucketHttpsConfig:BucketHttpsConfig": ("alicloud_oss_bucket_https_config", {}),
    "alicloud:oss/bucketReplication:BucketReplication": ("alicloud_oss_bucket_replication", {}),
    "alicloud:kms/alias:Alias": ("alicloud_kms_alias", {}),
    "alicloud:ess/scalingRule:ScalingRule": (
        "alicloud_ess_scaling_rule",
        {"stepAdjustments": "step_adjustment"},
    ),
    "alicloud:ess/alarm:Alarm": ("alicloud_ess_alarm", {}),
    "alicloud:ess/scheduledTask:ScheduledTask": ("alicloud_ess_scheduled_task", {}),
    "alicloud:cms/alarm:Alarm": ("alicloud_cms_alarm", {"prometheuses": "prometheus"}),
    "alicloud:cms/alarmContactGroup:AlarmContactGroup": ("alicloud_cms_alarm_contact_group", {}),
    "alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus": (
        "alicloud_ecs_session_manager_status",
        {},
    ),
    "alicloud:message/serviceQueue:ServiceQueue": ("alicloud_message_service_queue", {}),
}

TENCENTCLOUD: dict[str, tuple[str, dict[str, str]]] = {
    "tencentcloud:Cos/bucket:Bucket": ("tencentcloud_cos_bucket", {}),
    "tencentcloud:Cos/bucketPolicy:BucketPolicy": ("tencentcloud_cos_bucket_policy", {}),
    "tencentcloud:Instance/instance:Instance": ("tencentcloud_instance", {}),
    "tencentcloud:Security/group:Group": ("tencentcloud_security_group", {}),
    "tencentcloud:Security/groupRuleSet:GroupRuleSet": (
        "tencentcloud_security_group_rule_set",
        {"ingresses": "ingress", "egresses": "egress"},
    ),
    "tencentcloud:Security/groupRule:GroupRule": ("tencentcloud_security_group_rule", {}),
    "tencentcloud:Security/groupLiteRule:GroupLiteRule": ("tencentcloud_security_group_lite_rule", {}),
    "tencentcloud:Cam/role:Role": ("tencentcloud_cam_role", {}),
    "tencentcloud:Cam/policy:Policy": ("tencentcloud_cam_policy", {}),
    "tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment": (
        "tencentcloud_cam_role_policy_attachment",
        {},
    ),
    "tencentcloud:Kms/key:Key": ("tencentcloud_kms_key", {}),
    "tencentcloud:Kms/externalKey:ExternalKey": ("tencentcloud_kms_external_key", {}),
    "tencentcloud:Cbs/storage:Storage": ("tencentcloud_cbs_storage", {}),
    "tencentcloud:As/scalingConfig:ScalingConfig": (
        "tencentcloud_as_scaling_config",
        {"dataDisks": "data_disk"},
    ),
    "tencentcloud:As/scalingGroup:ScalingGroup": (
        "tencentcloud_as_scaling_group",
        {"forwardBalancerIds": "forward_balancer_ids"},
    ),
    "tencentcloud:Vpc/instance:Instance": ("tencentcloud_vpc", {}),
    "tencentcloud:Subnet/instance:Instance": ("tencentcloud_subnet", {}),
    "tencentcloud:Kubernetes/cluster:Cluster": ("tencentcloud_kubernetes_cluster", {}),
    "tencentcloud:Kubernetes/nodePool:NodePool": ("tencentcloud_kubernetes_node_pool", {}),
    "tencentcloud:Audit/track:Track": ("tencentcloud_audit_track", {}),
    "tencentcloud:Cls/topic:Topic": ("tencentcloud_cls_topic", {}),
    # The rest of what the Tencent site builds (tc-dev), exported like the Alibaba ones above.
    "tencentcloud:Cls/logset:Logset": ("tencentcloud_cls_logset", {}),
    "tencentcloud:As/scalingPolicy:ScalingPolicy": ("tencentcloud_as_scaling_policy", {}),
    "tencentcloud:As/schedule:Schedule": ("tencentcloud_as_schedule", {}),
    "tencentcloud:Monitor/alarmPolicy:AlarmPolicy": (
        "tencentcloud_monitor_alarm_policy",
        {"groupBies": "group_by", "policyTags": "policy_tag"},
    ),
    "tencentcloud:Billing/budget:Budget": (
        "tencentcloud_billing_budget",
        {"warnJsons": "warn_json", "waveThresholdJsons": "wave_threshold_json"},
    ),
    "tencentcloud:Route/table:Table": ("tencentcloud_route_table", {}),
    "tencentcloud:Tat/command:Command": ("tencentcloud_tat_command", {}),
    "tencentcloud:Tcmq/queue:Queue": ("tencentcloud_tcmq_queue", {}),
}

# Map-valued properties whose keys are data (tag keys, dimension names): never renamed or snake-cased.
COMMON_MAPS = (
    "tags",
    "tagsAll",
    "volumeTags",
    "labels",
    "dimensions",
    "environment",
    "variables",
    "parameters",
    "annotations",
    "attributes",
)
# Properties that hold a JSON document: a dict or list given for them is JSON-encoded, as Terraform
# state has it.
JSON_DOCUMENTS = (
    "policy",
    "assumeRolePolicy",
    "assumeRolePolicyDocument",
    "policyDocument",
    "document",
    "redrivePolicy",
    "redriveAllowPolicy",
    "accessPolicies",
    "content",
    "keyPolicy",
)


def table() -> dict[str, Any]:
    """The table as written to table.json."""
    resources: dict[str, Any] = {}
    for group in (AWS, ALICLOUD, TENCENTCLOUD):
        for token, (tf_type, renames) in sorted(group.items()):
            resources[token] = {"type": tf_type, "renames": dict(sorted(renames.items()))}
    return {
        "comment": "Generated by `python -m gpufleet.checkov.generate_table` from table_source.py.",
        "maps": list(COMMON_MAPS),
        "json_documents": list(JSON_DOCUMENTS),
        "resources": resources,
    }
