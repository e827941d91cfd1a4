"""Resources as users write them with the three bridged SDKs and pulumi-kubernetes, with known flaws."""

import json

import pulumi_alicloud as alicloud
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import tencentcloud_iac_pulumi as tencentcloud

sg = aws.ec2.SecurityGroup(
    "ssh-open",
    description="admin",
    ingress=[
        aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=22, to_port=22, cidr_blocks=["0.0.0.0/0"])
    ],
)
aws.ec2.Instance(
    "imdsv1",
    ami="ami-0abc",
    instance_type="g5.xlarge",
    vpc_security_group_ids=[sg.id],
    metadata_options=aws.ec2.InstanceMetadataOptionsArgs(http_tokens="optional"),
    ebs_block_devices=[
        aws.ec2.InstanceEbsBlockDeviceArgs(device_name="/dev/sdb", volume_size=100, encrypted=False)
    ],
)
role = aws.iam.Role(
    "node",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "ec2.amazonaws.com"}}
            ],
        }
    ),
)
aws.iam.RolePolicy(
    "node-admin",
    role=role.id,
    policy={"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]},
)
alicloud.oss.Bucket(
    "ali-ckpt",
    bucket="ali-ckpt",
    lifecycle_rules=[
        alicloud.oss.BucketLifecycleRuleArgs(
            enabled=True,
            prefix="ckpt/",
            expirations=[alicloud.oss.BucketLifecycleRuleExpirationArgs(days=30)],
        )
    ],
)
tencentcloud.security.GroupRuleSet(
    "tc-rules",
    security_group_id="sg-tc",
    ingresses=[
        tencentcloud.security.GroupRuleSetIngressArgs(action="ACCEPT", cidr_block="0.0.0.0/0", protocol="ALL")
    ],
)
tencentcloud.cbs.Storage(
    "tc-disk",
    storage_name="tc-disk",
    storage_type="CLOUD_PREMIUM",
    storage_size=100,
    availability_zone="ap-guangzhou-3",
    encrypt=False,
)
k8s.apps.v1.Deployment(
    "trainer",
    metadata={"name": "trainer", "namespace": "ml"},
    spec={
        "selector": {"match_labels": {"app": "trainer"}},
        "template": {
            "metadata": {"labels": {"app": "trainer"}},
            "spec": {
                "containers": [
                    {
                        "name": "t",
                        "image": "nvcr.io/nvidia/pytorch:24.01-py3",
                        "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
)
