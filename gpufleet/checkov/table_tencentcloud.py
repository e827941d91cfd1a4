"""tencentcloud-iac-pulumi 0.2.3 entries of the token table (see table_source.py): token ->
(Terraform type, renames)."""

from __future__ import annotations

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
    "tencentcloud:Ssm/secret:Secret": ("tencentcloud_ssm_secret", {}),
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
    "tencentcloud:Monitor/policyBindingObject:PolicyBindingObject": (
        "tencentcloud_monitor_policy_binding_object",
        {},
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
