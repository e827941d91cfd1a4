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
    "aws:ec2/launchTemplate:LaunchTemplate": ("aws_launch_template", {}),
    "aws:ec2/launchConfiguration:LaunchConfiguration": (
        "aws_launch_configuration",
        {"ebsBlockDevices": "ebs_block_device", "ephemeralBlockDevices": "ephemeral_block_device"},
    ),
    "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults": ("aws_ec2_instance_metadata_defaults", {}),
    "aws:ec2/spotInstanceRequest:SpotInstanceRequest": (
        "aws_spot_instance_request",
        {
            "ebsBlockDevices": "ebs_block_device",
            "ephemeralBlockDevices": "ephemeral_block_device",
            "networkInterfaces": "network_interface",
        },
    ),
    "aws:ec2/spotFleetRequest:SpotFleetRequest": (
        "aws_spot_fleet_request",
        {
            "launchSpecifications": "launch_specification",
            "launchTemplateConfigs": "launch_template_config",
            "ebsBlockDevices": "ebs_block_device",
            "ephemeralBlockDevices": "ephemeral_block_device",
            "rootBlockDevices": "root_block_device",
        },
    ),
    "aws:ec2/fleet:Fleet": (
        "aws_ec2_fleet",
        {
            "launchTemplateConfigs": "launch_template_config",
            "overrides": "override",
            "fleetInstanceSets": "fleet_instance_set",
        },
    ),
    "aws:ec2/ami:Ami": (
        "aws_ami",
        {"ebsBlockDevices": "ebs_block_device", "ephemeralBlockDevices": "ephemeral_block_device"},
    ),
    "aws:ec2/amiCopy:AmiCopy": (
        "aws_ami_copy",
        {"ebsBlockDevices": "ebs_block_device", "ephemeralBlockDevices": "ephemeral_block_device"},
    ),
    "aws:ec2/amiLaunchPermission:AmiLaunchPermission": ("aws_ami_launch_permission", {}),
    "aws:ec2/keyPair:KeyPair": ("aws_key_pair", {}),
    "aws:ec2/placementGroup:PlacementGroup": ("aws_placement_group", {}),
    "aws:ec2/networkInterface:NetworkInterface": (
        "aws_network_interface",
        {
            "attachments": "attachment",
            "ipv6AddressLists": "ipv6_address_list",
            "privateIpLists": "private_ip_list",
        },
    ),
    "aws:ec2/volumeAttachment:VolumeAttachment": ("aws_volume_attachment", {}),
    "aws:autoscaling/attachment:Attachment": ("aws_autoscaling_attachment", {}),
    "aws:autoscaling/notification:Notification": ("aws_autoscaling_notification", {}),
    "aws:autoscaling/tag:Tag": ("aws_autoscaling_group_tag", {}),
    "aws:autoscaling/trafficSourceAttachment:TrafficSourceAttachment": (
        "aws_autoscaling_traffic_source_attachment",
        {},
    ),
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
    "aws:ec2/vpcEndpointService:VpcEndpointService": (
        "aws_vpc_endpoint_service",
        {"privateDnsNameConfigurations": "private_dns_name_configuration"},
    ),
    "aws:ec2/defaultVpc:DefaultVpc": ("aws_default_vpc", {}),
    "aws:ec2/eipAssociation:EipAssociation": ("aws_eip_association", {}),
    "aws:ec2/networkAclRule:NetworkAclRule": ("aws_network_acl_rule", {}),
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
            "transitions": "transition",
            "noncurrentVersionTransitions": "noncurrent_version_transition",
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
    "aws:s3/bucketCorsConfiguration:BucketCorsConfiguration": (
        "aws_s3_bucket_cors_configuration",
        {"corsRules": "cors_rule"},
    ),
    "aws:s3/bucketWebsiteConfiguration:BucketWebsiteConfiguration": (
        "aws_s3_bucket_website_configuration",
        {"routingRules": "routing_rule"},
    ),
    "aws:s3/bucketAccelerateConfiguration:BucketAccelerateConfiguration": (
        "aws_s3_bucket_accelerate_configuration",
        {},
    ),
    "aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration": (
        "aws_s3_bucket_object_lock_configuration",
        {},
    ),
    "aws:s3/bucketIntelligentTieringConfiguration:BucketIntelligentTieringConfiguration": (
        "aws_s3_bucket_intelligent_tiering_configuration",
        {"tierings": "tiering"},
    ),
    "aws:s3/bucketRequestPaymentConfiguration:BucketRequestPaymentConfiguration": (
        "aws_s3_bucket_request_payment_configuration",
        {},
    ),
    "aws:s3/inventory:Inventory": ("aws_s3_bucket_inventory", {}),
    "aws:s3/accessPoint:AccessPoint": ("aws_s3_access_point", {}),
    "aws:s3/bucketObject:BucketObject": ("aws_s3_bucket_object", {}),
    "aws:s3/bucketObjectv2:BucketObjectv2": ("aws_s3_object", {}),
    "aws:s3/objectCopy:ObjectCopy": ("aws_s3_object_copy", {"grants": "grant"}),
    "aws:ebs/volume:Volume": ("aws_ebs_volume", {}),
    "aws:ebs/snapshotCopy:SnapshotCopy": ("aws_ebs_snapshot_copy", {}),
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
    "aws:iam/groupMembership:GroupMembership": ("aws_iam_group_membership", {}),
    "aws:iam/groupPolicyAttachment:GroupPolicyAttachment": ("aws_iam_group_policy_attachment", {}),
    "aws:iam/userLoginProfile:UserLoginProfile": ("aws_iam_user_login_profile", {}),
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": (
        "aws_iam_openid_connect_provider",
        {"clientIdLists": "client_id_list", "thumbprintLists": "thumbprint_list"},
    ),
    "aws:iam/samlProvider:SamlProvider": ("aws_iam_saml_provider", {}),
    "aws:kms/key:Key": ("aws_kms_key", {}),
    "aws:kms/alias:Alias": ("aws_kms_alias", {}),
    "aws:kms/externalKey:ExternalKey": ("aws_kms_external_key", {}),
    "aws:kms/replicaKey:ReplicaKey": ("aws_kms_replica_key", {}),
    "aws:kms/replicaExternalKey:ReplicaExternalKey": ("aws_kms_replica_external_key", {}),
    "aws:kms/grant:Grant": ("aws_kms_grant", {}),
    "aws:kms/keyPolicy:KeyPolicy": ("aws_kms_key_policy", {}),
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
    "aws:cloudwatch/logStream:LogStream": ("aws_cloudwatch_log_stream", {}),
    "aws:cloudwatch/logMetricFilter:LogMetricFilter": ("aws_cloudwatch_log_metric_filter", {}),
    "aws:cloudwatch/logSubscriptionFilter:LogSubscriptionFilter": (
        "aws_cloudwatch_log_subscription_filter",
        {},
    ),
    "aws:cloudwatch/compositeAlarm:CompositeAlarm": ("aws_cloudwatch_composite_alarm", {}),
    "aws:cloudwatch/dashboard:Dashboard": ("aws_cloudwatch_dashboard", {}),
    "aws:cloudwatch/eventBus:EventBus": ("aws_cloudwatch_event_bus", {}),
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
    "aws:eks/fargateProfile:FargateProfile": ("aws_eks_fargate_profile", {"selectors": "selector"}),
    "aws:eks/accessEntry:AccessEntry": ("aws_eks_access_entry", {}),
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": ("aws_eks_access_policy_association", {}),
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": ("aws_eks_pod_identity_association", {}),
    "aws:eks/identityProviderConfig:IdentityProviderConfig": ("aws_eks_identity_provider_config", {}),
    # private links (components/links): site-to-site VPN and Direct Connect
    "aws:ec2/vpnGateway:VpnGateway": ("aws_vpn_gateway", {}),
    "aws:ec2/vpnGatewayAttachment:VpnGatewayAttachment": ("aws_vpn_gateway_attachment", {}),
    "aws:ec2/vpnGatewayRoutePropagation:VpnGatewayRoutePropagation": (
        "aws_vpn_gateway_route_propagation",
        {},
    ),
    "aws:ec2/customerGateway:CustomerGateway": ("aws_customer_gateway", {}),
    "aws:ec2/vpnConnection:VpnConnection": ("aws_vpn_connection", {"vgwTelemetries": "vgw_telemetry"}),
    "aws:ec2/vpnConnectionRoute:VpnConnectionRoute": ("aws_vpn_connection_route", {}),
    "aws:directconnect/gateway:Gateway": ("aws_dx_gateway", {}),
    "aws:directconnect/gatewayAssociation:GatewayAssociation": ("aws_dx_gateway_association", {}),
    "aws:directconnect/privateVirtualInterface:PrivateVirtualInterface": (
        "aws_dx_private_virtual_interface",
        {},
    ),
    "aws:costexplorer/costAllocationTag:CostAllocationTag": ("aws_ce_cost_allocation_tag", {}),
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
        {
            "launchTemplateOverrides": "launch_template_override",
            "albServerGroups": "alb_server_group",
        },
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
    "alicloud:log/store:Store": ("alicloud_log_store", {}),
    "alicloud:log/project:Project": ("alicloud_log_project", {}),
    "alicloud:cs/managedKubernetes:ManagedKubernetes": ("alicloud_cs_managed_kubernetes", {}),
    "alicloud:cs/nodePool:NodePool": (
        "alicloud_cs_kubernetes_node_pool",
        {
            "spotPriceLimits": "spot_price_limit",
            "reservedMemories": "reserved_memory",
        },
    ),
    # The rest of what the Alibaba site builds (cn-dev): no checkov check reads these types today; they
    # are exported so that a future check, or a custom one, sees the whole site.
    "alicloud:oss/bucketHttpsConfig:BucketHttpsConfig": (
        "alicloud_oss_bucket_https_config",
        {
            "customCipherSuites": "custom_cipher_suite",
            "tls13CustomCipherSuites": "tls13_custom_cipher_suite",
        },
    ),
    "alicloud:kms/alias:Alias": ("alicloud_kms_alias", {}),
    "alicloud:ess/scalingRule:ScalingRule": (
        "alicloud_ess_scaling_rule",
        {"stepAdjustments": "step_adjustment"},
    ),
    "alicloud:ess/alarm:Alarm": ("alicloud_ess_alarm", {}),
    "alicloud:ess/scheduledTask:ScheduledTask": ("alicloud_ess_scheduled_task", {}),
    "alicloud:cms/alarm:Alarm": (
        "alicloud_cms_alarm",
        {
            "prometheuses": "prometheus",
            "expressionLists": "expression_list",
        },
    ),
    "alicloud:cms/alarmContactGroup:AlarmContactGroup": ("alicloud_cms_alarm_contact_group", {}),
    "alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus": (
        "alicloud_ecs_session_manager_status",
        {},
    ),
    "alicloud:message/serviceQueue:ServiceQueue": ("alicloud_message_service_queue", {}),
    # private links (components/links): IPsec VPN, CEN, Express Connect, BGP, NAT
    "alicloud:vpn/gateway:Gateway": ("alicloud_vpn_gateway", {}),
    "alicloud:vpn/customerGateway:CustomerGateway": ("alicloud_vpn_customer_gateway", {}),
    "alicloud:vpn/connection:Connection": (
        "alicloud_vpn_connection",
        {
            "localSubnets": "local_subnet",
            "remoteSubnets": "remote_subnet",
            "tunnelOptionsSpecifications": "tunnel_options_specification",
        },
    ),
    "alicloud:vpc/routeEntry:RouteEntry": ("alicloud_route_entry", {}),
    "alicloud:vpc/routeTable:RouteTable": ("alicloud_route_table", {}),
    "alicloud:vpc/natGateway:NatGateway": ("alicloud_nat_gateway", {}),
    "alicloud:vpc/snatEntry:SnatEntry": ("alicloud_snat_entry", {}),
    "alicloud:vpc/bgpGroup:BgpGroup": ("alicloud_vpc_bgp_group", {}),
    "alicloud:vpc/bgpPeer:BgpPeer": ("alicloud_vpc_bgp_peer", {}),
    "alicloud:cen/instance:Instance": ("alicloud_cen_instance", {}),
    "alicloud:cen/instanceAttachment:InstanceAttachment": ("alicloud_cen_instance_attachment", {}),
    "alicloud:cen/routeMap:RouteMap": (
        "alicloud_cen_route_map",
        {
            "matchCommunitySets": "match_community_set",
            "operateCommunitySets": "operate_community_set",
            "prependAsPaths": "prepend_as_path",
        },
    ),
    "alicloud:expressconnect/virtualBorderRouter:VirtualBorderRouter": (
        "alicloud_express_connect_virtual_border_router",
        {},
    ),
    "alicloud:ecs/eipAddress:EipAddress": ("alicloud_eip_address", {}),
    "alicloud:ecs/eipAssociation:EipAssociation": ("alicloud_eip_association", {}),
    # common user-written types of the same families
    "alicloud:ecs/launchTemplate:LaunchTemplate": ("alicloud_launch_template", {}),
    "alicloud:ecs/ecsKeyPair:EcsKeyPair": ("alicloud_ecs_key_pair", {}),
    "alicloud:ecs/ecsDiskAttachment:EcsDiskAttachment": ("alicloud_ecs_disk_attachment", {}),
    "alicloud:ecs/ecsSnapshot:EcsSnapshot": ("alicloud_ecs_snapshot", {}),
    "alicloud:ess/attachment:Attachment": ("alicloud_ess_attachment", {}),
    "alicloud:ess/lifecycleHook:LifecycleHook": ("alicloud_ess_lifecycle_hook", {}),
    "alicloud:ess/notification:Notification": ("alicloud_ess_notification", {}),
    "alicloud:ram/accessKey:AccessKey": ("alicloud_ram_access_key", {}),
    "alicloud:ram/accountPasswordPolicy:AccountPasswordPolicy": ("alicloud_ram_account_password_policy", {}),
    "alicloud:ram/securityPreference:SecurityPreference": ("alicloud_ram_security_preference", {}),
    "alicloud:ram/user:User": ("alicloud_ram_user", {}),
    "alicloud:ram/group:Group": ("alicloud_ram_group", {}),
    "alicloud:ram/userPolicyAttachment:UserPolicyAttachment": ("alicloud_ram_user_policy_attachment", {}),
    "alicloud:ram/groupPolicyAttachment:GroupPolicyAttachment": ("alicloud_ram_group_policy_attachment", {}),
    "alicloud:oss/bucketCors:BucketCors": (
        "alicloud_oss_bucket_cors",
        {
            "corsRules": "cors_rule",
            "exposeHeaders": "expose_header",
        },
    ),
    "alicloud:oss/bucketReferer:BucketReferer": (
        "alicloud_oss_bucket_referer",
        {
            "refererBlacklists": "referer_blacklist",
            "refererLists": "referer_list",
        },
    ),
    "alicloud:oss/bucketReplication:BucketReplication": ("alicloud_oss_bucket_replication", {}),
    "alicloud:oss/bucketWorm:BucketWorm": ("alicloud_oss_bucket_worm", {}),
    "alicloud:oss/bucketObject:BucketObject": ("alicloud_oss_bucket_object", {}),
    "alicloud:kms/secret:Secret": ("alicloud_kms_secret", {}),
}

TENCENTCLOUD: dict[str, tuple[str, dict[str, str]]] = {
    "tencentcloud:Cos/bucket:Bucket": (
        "tencentcloud_cos_bucket",
        {
            "nonCurrentTransitions": "non_current_transition",
            "transitions": "transition",
        },
    ),
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
        {
            "targetAttributes": "target_attribute",
        },
    ),
    "tencentcloud:Vpc/instance:Instance": ("tencentcloud_vpc", {}),
    "tencentcloud:Subnet/instance:Instance": ("tencentcloud_subnet", {}),
    "tencentcloud:Kubernetes/cluster:Cluster": (
        "tencentcloud_kubernetes_cluster",
        {
            "dataDisks": "data_disk",
            "existInstances": "exist_instance",
            "extensionAddons": "extension_addon",
            "kubeApiservers": "kube_apiserver",
            "kubeControllerManagers": "kube_controller_manager",
            "kubeSchedulers": "kube_scheduler",
            "masterConfigs": "master_config",
            "nodePoolGlobalConfigs": "node_pool_global_config",
            "securityPolicies": "security_policy",
            "workerConfigs": "worker_config",
            "workerInstancesLists": "worker_instances_list",
        },
    ),
    "tencentcloud:Kubernetes/nodePool:NodePool": (
        "tencentcloud_kubernetes_node_pool",
        {
            "dataDisks": "data_disk",
        },
    ),
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
    # private links (components/links): IPsec VPN, Direct Connect, CCN, NAT
    "tencentcloud:Vpn/gateway:Gateway": ("tencentcloud_vpn_gateway", {}),
    "tencentcloud:Vpn/customerGateway:CustomerGateway": ("tencentcloud_vpn_customer_gateway", {}),
    "tencentcloud:Vpn/connection:Connection": (
        "tencentcloud_vpn_connection",
        {
            "remoteCidrBlocks": "remote_cidr_block",
            "securityGroupPolicies": "security_group_policy",
        },
    ),
    "tencentcloud:Vpn/gatewayRoute:GatewayRoute": ("tencentcloud_vpn_gateway_route", {}),
    "tencentcloud:Route/tableEntry:TableEntry": ("tencentcloud_route_table_entry", {}),
    "tencentcloud:Dc/gateway:Gateway": ("tencentcloud_dc_gateway", {}),
    "tencentcloud:Dc/gatewayCcnRoute:GatewayCcnRoute": (
        "tencentcloud_dc_gateway_ccn_route",
        {
            "asPaths": "as_path",
        },
    ),
    "tencentcloud:Dcx/instance:Instance": ("tencentcloud_dcx", {}),
    "tencentcloud:Ccn/instance:Instance": ("tencentcloud_ccn", {}),
    "tencentcloud:Ccn/attachment:Attachment": (
        "tencentcloud_ccn_attachment",
        {
            "cidrBlocks": "cidr_block",
        },
    ),
    "tencentcloud:Ccn/attachmentV2:AttachmentV2": ("tencentcloud_ccn_attachment_v2", {}),
    "tencentcloud:Nat/gateway:Gateway": (
        "tencentcloud_nat_gateway",
        {
            "assignedEipSets": "assigned_eip_set",
        },
    ),
    "tencentcloud:Eip/instance:Instance": ("tencentcloud_eip", {}),
    "tencentcloud:Protocol/template:Template": ("tencentcloud_protocol_template", {}),
    # common user-written types of the same families
    "tencentcloud:Cam/accessKey:AccessKey": ("tencentcloud_cam_access_key", {}),
    "tencentcloud:Cam/user:User": ("tencentcloud_cam_user", {}),
    "tencentcloud:Cam/group:Group": ("tencentcloud_cam_group", {}),
    "tencentcloud:Cam/groupMembership:GroupMembership": ("tencentcloud_cam_group_membership", {}),
    "tencentcloud:Cam/userPolicyAttachment:UserPolicyAttachment": (
        "tencentcloud_cam_user_policy_attachment",
        {},
    ),
    "tencentcloud:Cam/groupPolicyAttachment:GroupPolicyAttachment": (
        "tencentcloud_cam_group_policy_attachment",
        {},
    ),
    "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName": (
        "tencentcloud_cam_role_policy_attachment_by_name",
        {},
    ),
    "tencentcloud:Cam/serviceLinkedRole:ServiceLinkedRole": (
        "tencentcloud_cam_service_linked_role",
        {
            "qcsServiceNames": "qcs_service_name",
        },
    ),
    "tencentcloud:Cbs/storageAttachment:StorageAttachment": ("tencentcloud_cbs_storage_attachment", {}),
    "tencentcloud:Cbs/snapshot:Snapshot": ("tencentcloud_cbs_snapshot", {}),
    "tencentcloud:Cbs/snapshotPolicy:SnapshotPolicy": ("tencentcloud_cbs_snapshot_policy", {}),
    "tencentcloud:As/attachment:Attachment": ("tencentcloud_as_attachment", {}),
    "tencentcloud:As/lifecycleHook:LifecycleHook": ("tencentcloud_as_lifecycle_hook", {}),
    "tencentcloud:As/notification:Notification": ("tencentcloud_as_notification", {}),
    "tencentcloud:Cos/bucketObject:BucketObject": ("tencentcloud_cos_bucket_object", {}),
    "tencentcloud:Vpc/flowLogConfig:FlowLogConfig": ("tencentcloud_vpc_flow_log_config", {}),
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
