"""GF-ACC-002 and GF-ACC-005 on every compute that launches instances beside instances, templates and
groups: AWS Batch compute environments, EC2 fleets, EKS managed node groups, ACK and TKE node pools.
Each must-fire case has a compliant look-alike beside it."""

from __future__ import annotations

from pulumi_policy import PolicyResource

from gpufleet.policies.access import gpu_no_login_credentials as creds
from gpufleet.policies.access import gpu_no_public_ip as public_ip

from .helpers import UNKNOWN_STRING_VALUE, check_stack, res
from .helpers import urn_of as urn

KEY_TAIL = "GPU instances carry no SSH key or login password: connect through a session manager"
IP_TAIL = "GPU instances get no public IP: keep them private behind NAT"
BATCH = "aws:batch/computeEnvironment:ComputeEnvironment"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
FLEET = "aws:ec2/fleet:Fleet"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
SUBNET = "aws:ec2/subnet:Subnet"
ACK_POOL = "alicloud:cs/nodePool:NodePool"
TKE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"


def _batch(name: str, **compute: object) -> PolicyResource:
    resources = {"type": "SPOT", "maxVcpus": 64, "subnets": ["subnet-1"], **compute}
    return res(BATCH, name, {"type": "MANAGED", "computeResources": resources})


# --- AWS Batch ---------------------------------------------------------------------------------------


def test_batch_gpu_family_with_key_pair_fires() -> None:
    env = _batch("train", instanceTypes=["g5"], ec2KeyPair="ops")
    assert check_stack(creds.POLICY, [env]) == [
        (
            f"Batch compute environment 'train' (g5) has SSH key pair 'ops' (computeResources.ec2KeyPair); "
            f"{KEY_TAIL}",
            urn(BATCH, "train"),
        )
    ]


def test_batch_gpu_without_key_and_cpu_with_key_pass() -> None:
    assert check_stack(creds.POLICY, [_batch("train", instanceTypes=["p4d.24xlarge"])]) == []
    assert check_stack(creds.POLICY, [_batch("etl", instanceTypes=["optimal"], ec2KeyPair="ops")]) == []
    assert (
        check_stack(creds.POLICY, [_batch("etl", instanceTypes=["c5", "m5.large"], ec2KeyPair="ops")]) == []
    )


def test_batch_gpu_through_its_launch_template() -> None:
    template = res(LT, "batch-tpl", {"instanceType": "g6.xlarge", "keyName": "ops"})
    env = res(
        BATCH,
        "train",
        {
            "type": "MANAGED",
            "computeResources": {
                "type": "EC2",
                "maxVcpus": 8,
                "subnets": ["subnet-1"],
                "instanceTypes": ["g6"],
                "launchTemplate": {"launchTemplateId": UNKNOWN_STRING_VALUE},
            },
        },
        prop_deps={"computeResources": [template]},
    )
    assert check_stack(creds.POLICY, [template, env]) == [
        (
            f"EC2 launch template 'batch-tpl' (g6.xlarge) has SSH key pair 'ops' (keyName); {KEY_TAIL}",
            urn(LT, "batch-tpl"),
        )
    ]


def test_batch_gpu_in_public_subnet_fires_private_passes() -> None:
    public = res(SUBNET, "public", {"id": "subnet-pub", "mapPublicIpOnLaunch": True})
    private = res(SUBNET, "private", {"id": "subnet-priv", "mapPublicIpOnLaunch": False})
    gpu = _batch("train", instanceTypes=["p5"], subnets=["subnet-pub"])
    assert check_stack(public_ip.POLICY, [public, private, gpu]) == [
        (
            "Batch compute environment 'train' (p5) launches into subnet 'public', which gives every "
            "instance a public IP (mapPublicIpOnLaunch is true), and nothing sets associatePublicIpAddress "
            f"to false; {IP_TAIL}",
            urn(BATCH, "train"),
        )
    ]
    compliant = _batch("train", instanceTypes=["p5"], subnets=["subnet-priv"])
    cpu = _batch("etl", instanceTypes=["c5"], subnets=["subnet-pub"])
    assert check_stack(public_ip.POLICY, [public, private, compliant, cpu]) == []


# --- EC2 Fleet -----------------------------------------------------------------------------------------


def _fleet(template: PolicyResource, instance_type: str) -> PolicyResource:
    return res(
        FLEET,
        "burst",
        {
            "launchTemplateConfigs": [
                {
                    "launchTemplateSpecification": {
                        "launchTemplateId": UNKNOWN_STRING_VALUE,
                        "version": "$Latest",
                    },
                    "overrides": [{"instanceType": instance_type}],
                }
            ],
            "targetCapacitySpecification": {"defaultTargetCapacityType": "spot", "totalTargetCapacity": 2},
        },
        prop_deps={"launchTemplateConfigs": [template]},
    )


def test_fleet_template_key_and_public_ip_fire_for_gpu_overrides() -> None:
    template = res(
        LT,
        "fleet-tpl",
        {"keyName": "ops", "networkInterfaces": [{"associatePublicIpAddress": "true"}]},
    )
    fleet = _fleet(template, "g5.2xlarge")
    assert check_stack(creds.POLICY, [template, fleet]) == [
        (
            f"EC2 launch template 'fleet-tpl' (g5.2xlarge) has SSH key pair 'ops' (keyName); {KEY_TAIL}",
            urn(LT, "fleet-tpl"),
        )
    ]
    assert check_stack(public_ip.POLICY, [template, fleet]) == [
        (
            "EC2 launch template 'fleet-tpl' (g5.2xlarge) gets a public IP "
            f"(networkInterfaces.*.associatePublicIpAddress is true); {IP_TAIL}",
            urn(LT, "fleet-tpl"),
        )
    ]


def test_fleet_template_with_cpu_overrides_passes() -> None:
    template = res(
        LT, "fleet-tpl", {"keyName": "ops", "networkInterfaces": [{"associatePublicIpAddress": "true"}]}
    )
    fleet = _fleet(template, "m5.large")
    assert check_stack(creds.POLICY, [template, fleet]) == []
    assert check_stack(public_ip.POLICY, [template, fleet]) == []


# --- EKS managed node groups ---------------------------------------------------------------------------


def test_node_group_gpu_ami_type_with_ssh_key_fires() -> None:
    group = res(
        NODE_GROUP,
        "gpu",
        {"amiType": "AL2023_x86_64_NVIDIA", "remoteAccess": {"ec2SshKey": "ops"}, "subnetIds": ["s-1"]},
    )
    assert check_stack(creds.POLICY, [group]) == [
        (
            "EKS node group 'gpu' (AL2023_x86_64_NVIDIA) has SSH key pair 'ops' (remoteAccess.ec2SshKey); "
            f"{KEY_TAIL}",
            urn(NODE_GROUP, "gpu"),
        )
    ]


def test_node_group_cpu_with_ssh_key_and_gpu_without_pass() -> None:
    cpu = res(NODE_GROUP, "cpu", {"instanceTypes": ["m6i.large"], "remoteAccess": {"ec2SshKey": "ops"}})
    gpu = res(
        NODE_GROUP, "gpu", {"instanceTypes": ["g6e.xlarge"], "remoteAccess": {"sourceSecurityGroupIds": []}}
    )
    assert check_stack(creds.POLICY, [cpu, gpu]) == []


def test_node_group_in_public_subnet_fires_template_override_passes() -> None:
    subnet = res(SUBNET, "public", {"id": "subnet-pub", "mapPublicIpOnLaunch": True})
    group = res(NODE_GROUP, "gpu", {"instanceTypes": ["g5.xlarge"], "subnetIds": ["subnet-pub"]})
    assert check_stack(public_ip.POLICY, [subnet, group]) == [
        (
            "EKS node group 'gpu' (g5.xlarge) launches into subnet 'public', which gives every instance a "
            "public IP (mapPublicIpOnLaunch is true), and nothing sets associatePublicIpAddress to false; "
            f"{IP_TAIL}",
            urn(NODE_GROUP, "gpu"),
        )
    ]
    template = res(LT, "ng-tpl", {"networkInterfaces": [{"associatePublicIpAddress": "false"}]})
    overridden = res(
        NODE_GROUP,
        "gpu",
        {
            "instanceTypes": ["g5.xlarge"],
            "subnetIds": ["subnet-pub"],
            "launchTemplate": {"id": UNKNOWN_STRING_VALUE},
        },
        prop_deps={"launchTemplate": [template]},
    )
    assert check_stack(public_ip.POLICY, [subnet, template, overridden]) == []


# --- Alibaba Cloud ACK node pools ----------------------------------------------------------------------


def test_ack_gpu_pool_key_password_and_public_ip_fire() -> None:
    pool = res(
        ACK_POOL,
        "gpu",
        {
            "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
            "keyName": "ops",
            "password": "Secret123!",
            "internetChargeType": "PayByTraffic",
            "internetMaxBandwidthOut": 10,
        },
    )
    assert check_stack(creds.POLICY, [pool]) == [
        (
            "ACK node pool 'gpu' (ecs.gn7i-c8g1.2xlarge) has SSH key pair 'ops' (keyName) and a login "
            f"password (password); {KEY_TAIL}",
            urn(ACK_POOL, "gpu"),
        )
    ]
    assert check_stack(public_ip.POLICY, [pool]) == [
        (
            "ACK node pool 'gpu' (ecs.gn7i-c8g1.2xlarge) gets a public IP (internetMaxBandwidthOut is 10 "
            f"(a public IP with outbound bandwidth)); {IP_TAIL}",
            urn(ACK_POOL, "gpu"),
        )
    ]


def test_ack_pool_eip_per_node_fires() -> None:
    pool = res(
        ACK_POOL,
        "gpu",
        {"instanceTypes": ["ecs.gn6i-c4g1.xlarge"], "scalingConfig": {"enable": True, "isBondEip": True}},
    )
    assert check_stack(public_ip.POLICY, [pool]) == [
        (
            "ACK node pool 'gpu' (ecs.gn6i-c4g1.xlarge) gets a public IP (scalingConfig.isBondEip is true); "
            f"{IP_TAIL}",
            urn(ACK_POOL, "gpu"),
        )
    ]


def test_ack_compliant_look_alikes_pass() -> None:
    # A charge type with no bandwidth assigns no address; a CPU pool may keep its key.
    gpu = res(
        ACK_POOL,
        "gpu",
        {
            "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
            "internetChargeType": "PayByTraffic",
            "internetMaxBandwidthOut": 0,
            "scalingConfig": {"enable": True, "isBondEip": False},
        },
    )
    cpu = res(
        ACK_POOL, "cpu", {"instanceTypes": ["ecs.g7.xlarge"], "keyName": "ops", "internetMaxBandwidthOut": 5}
    )
    assert check_stack(creds.POLICY, [gpu, cpu]) == []
    assert check_stack(public_ip.POLICY, [gpu, cpu]) == []


# --- Tencent Cloud TKE node pools ----------------------------------------------------------------------


def test_tke_gpu_pool_key_and_public_ip_fire() -> None:
    pool = res(
        TKE_POOL,
        "gpu",
        {
            "autoScalingConfig": {
                "instanceType": "GN7.2XLARGE32",
                "keyIds": ["skey-123"],
                "publicIpAssigned": True,
                "internetMaxBandwidthOut": 10,
            }
        },
    )
    assert check_stack(creds.POLICY, [pool]) == [
        (
            "TKE node pool 'gpu' (GN7.2XLARGE32) has SSH key pair 'skey-123' (autoScalingConfig.keyIds); "
            f"{KEY_TAIL}",
            urn(TKE_POOL, "gpu"),
        )
    ]
    assert check_stack(public_ip.POLICY, [pool]) == [
        (
            "TKE node pool 'gpu' (GN7.2XLARGE32) gets a public IP (autoScalingConfig.publicIpAssigned is "
            f"true); {IP_TAIL}",
            urn(TKE_POOL, "gpu"),
        )
    ]


def test_tke_gpu_backup_type_with_password_fires() -> None:
    pool = res(
        TKE_POOL,
        "mixed",
        {
            "autoScalingConfig": {
                "instanceType": "S5.LARGE8",
                "backupInstanceTypes": ["GN7.5XLARGE80"],
                "password": "x",
            }
        },
    )
    assert check_stack(creds.POLICY, [pool]) == [
        (
            "TKE node pool 'mixed' (GN7.5XLARGE80) has a login password (autoScalingConfig.password); "
            f"{KEY_TAIL}",
            urn(TKE_POOL, "mixed"),
        )
    ]


def test_tke_compliant_look_alikes_pass() -> None:
    gpu = res(
        TKE_POOL, "gpu", {"autoScalingConfig": {"instanceType": "GN7.2XLARGE32", "publicIpAssigned": False}}
    )
    cpu = res(
        TKE_POOL,
        "cpu",
        {"autoScalingConfig": {"instanceType": "S5.LARGE8", "keyIds": ["skey-1"], "publicIpAssigned": True}},
    )
    assert check_stack(creds.POLICY, [gpu, cpu]) == []
    assert check_stack(public_ip.POLICY, [gpu, cpu]) == []


def test_fleet_override_in_public_subnet_fires_unless_its_template_sets_the_address() -> None:
    subnet = res(SUBNET, "public", {"id": "subnet-pub", "mapPublicIpOnLaunch": True})
    template = res(LT, "fleet-tpl", {"imageId": "ami-1"})

    def fleet(tpl: PolicyResource) -> PolicyResource:
        config = {
            "launchTemplateSpecification": {"launchTemplateId": UNKNOWN_STRING_VALUE},
            "overrides": [{"instanceType": "p5.48xlarge", "subnetId": "subnet-pub"}],
        }
        return res(
            FLEET,
            "burst",
            {"launchTemplateConfigs": [config], "targetCapacitySpecification": {"totalTargetCapacity": 1}},
            prop_deps={"launchTemplateConfigs": [tpl]},
        )

    assert check_stack(public_ip.POLICY, [subnet, template, fleet(template)]) == [
        (
            "EC2 fleet 'burst' (p5.48xlarge) launches into subnet 'public', which gives every instance a "
            "public IP (mapPublicIpOnLaunch is true), and nothing sets associatePublicIpAddress to false"
            f"; {IP_TAIL}",
            urn(FLEET, "burst"),
        )
    ]
    private = res(
        LT, "fleet-tpl", {"imageId": "ami-1", "networkInterfaces": [{"associatePublicIpAddress": "false"}]}
    )
    assert check_stack(public_ip.POLICY, [subnet, private, fleet(private)]) == []
