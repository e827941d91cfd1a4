"""pulumi-aws 7.51 entries of the token table (see table_source.py): token -> (Terraform type,
renames)."""

from __future__ import annotations

_S3_RULES = {"rules": "rule"}

AWS: dict[str, tuple[str, dict[str, str]]] = {
    # compute
    "aws:ec2/instance:Instance": (
        "aws_instance",
        {
            "ebsBlockDevices": "ebs_block_device",
            "ephemeralBlockDevices": "ephemeral_block_device",
            "networkInterfaces": "network_interface",
            "secondaryNetworkInterfaces": "secondary_network_interface",
        },
    ),
    "aws:ec2/launchTemplate:LaunchTemplate": (
        "aws_launch_template",
        {
            "licenseSpecifications": "license_specification",
        },
    ),
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
            "primaryNetworkInterfaces": "primary_network_interface",
            "secondaryNetworkInterfaces": "secondary_network_interface",
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
        {
            "ec2Configurations": "ec2_configuration",
            "instanceTypes": "instance_type",
        },
    ),
    "aws:batch/jobQueue:JobQueue": (
        "aws_batch_job_queue",
        {
            "computeEnvironmentOrders": "compute_environment_order",
            "jobStateTimeLimitActions": "job_state_time_limit_action",
        },
    ),
    "aws:batch/jobDefinition:JobDefinition": (
        "aws_batch_job_definition",
        {
            "envs": "env",
            "evaluateOnExits": "evaluate_on_exit",
            "imagePullSecrets": "image_pull_secret",
            "commands": "command",
        },
    ),
    # network
    "aws:ec2/vpc:Vpc": ("aws_vpc", {}),
    "aws:ec2/subnet:Subnet": ("aws_subnet", {}),
    "aws:ec2/routeTable:RouteTable": ("aws_route_table", {"routes": "route"}),
    "aws:ec2/routeTableAssociation:RouteTableAssociation": ("aws_route_table_association", {}),
    "aws:ec2/route:Route": ("aws_route", {}),
    "aws:ec2/internetGateway:InternetGateway": ("aws_internet_gateway", {}),
    "aws:ec2/natGateway:NatGateway": (
        "aws_nat_gateway",
        {
            "availabilityZoneAddresses": "availability_zone_address",
            "regionalNatGatewayAddresses": "regional_nat_gateway_address",
        },
    ),
    "aws:ec2/eip:Eip": ("aws_eip", {}),
    "aws:ec2/vpcEndpoint:VpcEndpoint": (
        "aws_vpc_endpoint",
        {"subnetConfigurations": "subnet_configuration", "dnsEntries": "dns_entry"},
    ),
    "aws:ec2/vpcEndpointService:VpcEndpointService": (
        "aws_vpc_endpoint_service",
        {"privateDnsNameConfigurations": "private_dns_name_configuration"},
    ),
    "aws:ec2/defaultVpc:DefaultVpc": ("aws_default_vpc", {}),
    "aws:ec2/eipAssociation:EipAssociation": ("aws_eip_association", {}),
    "aws:ec2/networkAclRule:NetworkAclRule": ("aws_network_acl_rule", {}),
    "aws:ec2/flowLog:FlowLog": (
        "aws_flow_log",
        {
            "tagFieldSpecifications": "tag_field_specification",
        },
    ),
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
            "expirations": "expiration",
            "noncurrentVersionExpirations": "noncurrent_version_expiration",
            "defaultRetentions": "default_retention",
            "destinations": "destination",
            "filters": "filter",
            "sourceSelectionCriterias": "source_selection_criteria",
            "accessControlTranslations": "access_control_translation",
            "replicationTimes": "replication_time",
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
    # IAM Roles Anywhere: the burst signal's trust anchor and profile (components/baseline/aws_signal.py).
    "aws:rolesanywhere/trustAnchor:TrustAnchor": ("aws_rolesanywhere_trust_anchor", {}),
    "aws:rolesanywhere/profile:Profile": ("aws_rolesanywhere_profile", {}),
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
            "endsWiths": "ends_with",
            "notEndsWiths": "not_ends_with",
            "startsWiths": "starts_with",
            "notStartsWiths": "not_starts_with",
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
    "aws:cloudwatch/eventTarget:EventTarget": (
        "aws_cloudwatch_event_target",
        {
            "capacityProviderStrategies": "capacity_provider_strategy",
            "orderedPlacementStrategies": "ordered_placement_strategy",
            "placementConstraints": "placement_constraint",
            "pipelineParameterLists": "pipeline_parameter_list",
        },
    ),
    "aws:sns/topic:Topic": ("aws_sns_topic", {}),
    "aws:sns/topicPolicy:TopicPolicy": ("aws_sns_topic_policy", {}),
    "aws:sns/topicSubscription:TopicSubscription": ("aws_sns_topic_subscription", {}),
    "aws:sqs/queue:Queue": ("aws_sqs_queue", {}),
    "aws:sqs/queuePolicy:QueuePolicy": ("aws_sqs_queue_policy", {}),
    "aws:sqs/redrivePolicy:RedrivePolicy": ("aws_sqs_queue_redrive_policy", {}),
    "aws:sqs/redriveAllowPolicy:RedriveAllowPolicy": ("aws_sqs_queue_redrive_allow_policy", {}),
    "aws:budgets/budget:Budget": (
        "aws_budgets_budget",
        {
            "notifications": "notification",
            "costFilters": "cost_filter",
            "plannedLimits": "planned_limit",
            "ands": "and",
            "ors": "or",
        },
    ),
    "aws:ssm/document:Document": (
        "aws_ssm_document",
        {"attachmentsSources": "attachments_source", "parameters": "parameter"},
    ),
    "aws:ssm/parameter:Parameter": ("aws_ssm_parameter", {}),
    "aws:secretsmanager/secret:Secret": ("aws_secretsmanager_secret", {}),
    # kubernetes services
    "aws:eks/cluster:Cluster": (
        "aws_eks_cluster",
        {
            "oidcs": "oidc",
            "identities": "identity",
        },
    ),
    "aws:eks/nodeGroup:NodeGroup": ("aws_eks_node_group", {"taints": "taint"}),
    "aws:eks/addon:Addon": ("aws_eks_addon", {"podIdentityAssociations": "pod_identity_association"}),
    "aws:ecr/repository:Repository": (
        "aws_ecr_repository",
        {
            "encryptionConfigurations": "encryption_configuration",
            "imageTagMutabilityExclusionFilters": "image_tag_mutability_exclusion_filter",
        },
    ),
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
