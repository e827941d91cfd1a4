"""The mutation matrix: for each catalogue rule, one change to a golden stack that breaks only that rule.

Each entry says which golden stack it changes (`dev` or `prod`, as recorded from stacks/), what the
change is, and a function that applies it to a private copy of that stack's graph. The function
returns the changed graph and the logical name the violation must carry: the resource changed or
added; for the separate configuration resources of a bucket (encryption, public-access block,
policy, lifecycle, versioning), the bucket they configure, which is what those rules judge; for a
removal, the resource left without what was removed.

Where the golden stacks have nothing a rule judges (Kubernetes, site-to-site VPN, internet routes,
access keys), the change adds what a user would write with the raw SDK: camelCase wire inputs, the
engine's URN, and the cost tags, so that the addition breaks nothing but the rule under test.

Most changes are made on the dev stack, whose baseline is clean. The resilience rules judge only
production, so GF-DR-001 and GF-DR-002 change prod, whose baseline is clean too (two regions,
checkpoints replicated both ways): the replication dropped, the second region's burst pool removed.
Rules whose natural mistake is a production one (re-keying restricted data away from BYOK, raising
the production spend envelope) change prod, judged on top of its baseline.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

from gpufleet.graph import Resource, ResourceGraph
from tests.mutation.edits import (
    add,
    add_statement,
    asg_tag,
    cost_tags,
    document,
    find,
    inputs,
    rewire,
    set_document,
    without,
)

Mutate = Callable[[ResourceGraph], tuple[ResourceGraph, str]]


class Mutation(NamedTuple):
    """One row of the matrix: the golden stack changed, what the change is, and the change."""

    stack: str
    description: str
    mutate: Mutate


ACCOUNT = "123456789012"

# The 59 ids of the catalogue (shared RULES.md), copied here so that a rule dropped from the registry
# is noticed by the coverage test rather than silently losing its mutation.
CATALOGUE_IDS = (
    "GF-STOR-001", "GF-STOR-002", "GF-STOR-003", "GF-STOR-004", "GF-STOR-005", "GF-STOR-006",
    "GF-STOR-007", "GF-STOR-008", "GF-KMS-001", "GF-KMS-002",
    "GF-ACC-001", "GF-ACC-002", "GF-ACC-003", "GF-ACC-004", "GF-ACC-005", "GF-ACC-006",
    "GF-IAM-001", "GF-IAM-002", "GF-IAM-003", "GF-IAM-004", "GF-IAM-005", "GF-IAM-006",
    "GF-AUD-001", "GF-AUD-002", "GF-AUD-003",
    "GF-NET-001", "GF-NET-002", "GF-NET-003", "GF-NET-004",
    "GF-COST-001", "GF-COST-002", "GF-COST-003", "GF-COST-004", "GF-COST-005", "GF-COST-006",
    "GF-COST-007", "GF-COST-008", "GF-COST-009",
    "GF-K8S-001", "GF-K8S-002", "GF-K8S-003", "GF-K8S-004", "GF-K8S-005",
    "GF-DR-001", "GF-DR-002",
    "GF-OPS-001", "GF-OPS-002", "GF-OPS-003", "GF-OPS-004", "GF-OPS-005",
    "GF-DEPLOY-001", "GF-DEPLOY-002", "GF-DEPLOY-003",
    "GF-FIT-001", "GF-FIT-002", "GF-FIT-003", "GF-FIT-004", "GF-FIT-005", "GF-FIT-006",
)  # fmt: skip


# --- storage and keys --------------------------------------------------------------------------------


def stor_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    rule = inputs(graph, "storage-encryption")["rules"][0]
    rule["applyServerSideEncryptionByDefault"] = {"sseAlgorithm": "AES256"}
    rule.pop("bucketKeyEnabled", None)
    return graph, find(graph, "storage-bucket").name


def stor_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # prod's restricted checkpoints re-keyed to a new, rotating, AWS-generated customer-managed key:
    # still SSE-KMS with a customer-managed key (GF-STOR-001 holds), but no longer BYOK.
    key_id = "5f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f"
    arn = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/{key_id}"
    key = add(
        graph,
        "aws:kms/key:Key",
        "checkpoints-cmk",
        {"description": "checkpoint key", "enableKeyRotation": True, "tags": cost_tags(graph)},
        resource_id=key_id,
        state={"arn": arn, "keyId": key_id},
    )
    encryption = find(graph, "storage-encryption")
    encryption.inputs["rules"][0]["applyServerSideEncryptionByDefault"]["kmsMasterKeyId"] = arn
    return rewire(graph, "storage-encryption", "rules", [key]), find(graph, "storage-bucket").name


def stor_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    inputs(graph, "storage-public-access")["blockPublicPolicy"] = False
    return graph, find(graph, "storage-bucket").name


def stor_004(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    policy = find(graph, "storage-policy")
    doc = document(policy)
    doc["Statement"] = [s for s in doc["Statement"] if s.get("Sid") != "DenyInsecureTransport"]
    set_document(policy, doc)
    return graph, find(graph, "storage-bucket").name


def stor_005(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    rule = inputs(graph, "storage-lifecycle")["rules"][0]
    rule["expiration"] = {"days": 90}
    return graph, find(graph, "storage-bucket").name


def stor_006(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    rule = inputs(graph, "storage-lifecycle")["rules"][0]
    rule["transitions"] = [{"storageClass": "STANDARD_IA", "days": 7}]
    return graph, find(graph, "storage-lifecycle").name


def stor_007(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    inputs(graph, "storage-versioning")["versioningConfiguration"] = {"status": "Suspended"}
    return graph, find(graph, "storage-bucket").name


def stor_008(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    template = find(graph, "pool-experiments-lt")
    ebs = template.inputs["blockDeviceMappings"][0]["ebs"]
    ebs["encrypted"] = "false"
    ebs.pop("kmsKeyId")
    return graph, template.name


def kms_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    key = find(graph, "key-key")
    key.inputs["enableKeyRotation"] = False
    return graph, key.name


def kms_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    key = find(graph, "key-key")
    add_statement(
        key,
        {
            "Sid": "AnyoneAdministersKey",
            "Effect": "Allow",
            "Principal": {"AWS": "*"},
            "Action": "kms:*",
            "Resource": "*",
        },
    )
    return graph, key.name


# --- access and identity -----------------------------------------------------------------------------


def acc_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = find(graph, "network-instances-sg")
    rule = add(
        graph,
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
        "ssh-from-anywhere",
        {
            "securityGroupId": group.id,
            "ipProtocol": "tcp",
            "fromPort": 22,
            "toPort": 22,
            "cidrIpv4": "0.0.0.0/0",
            "description": "debug access",
            "tags": cost_tags(graph),
        },
        references={"securityGroupId": [group]},
    )
    return graph, rule.name


def acc_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    template = find(graph, "pool-experiments-lt")
    template.inputs["keyName"] = "ml-team"
    return graph, template.name


def acc_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    permissions = find(graph, "pool-experiments-permissions")
    policy = permissions.inputs["policy"]
    document = json.loads(policy) if isinstance(policy, str) else policy
    document["Statement"] = [s for s in document["Statement"] if s.get("Sid") != "SessionManagerChannels"]
    permissions.inputs["policy"] = json.dumps(document)
    return graph, find(graph, "pool-experiments-role").name


def acc_004(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    template = find(graph, "pool-experiments-lt")
    template.inputs["metadataOptions"]["httpTokens"] = "optional"
    return graph, template.name


def acc_005(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    template = find(graph, "pool-experiments-lt")
    template.inputs["networkInterfaces"][0]["associatePublicIpAddress"] = "true"
    return graph, template.name


def acc_006(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # dev leaves its account's preferences to the account-baseline stack (stack tag); a preferences
    # document of its own is judged all the same. It is marked as the account baseline's, so only its
    # unencrypted session logs are wrong (an unmarked one also breaks GF-OPS-004, one per account).
    logs = find(graph, "audit-agent-logs")
    content = {
        "schemaVersion": "1.0",
        "sessionType": "Standard_Stream",
        "inputs": {"cloudWatchLogGroupName": logs.inputs["name"], "cloudWatchEncryptionEnabled": False},
    }
    preferences = add(
        graph,
        "aws:ssm/document:Document",
        "session-prefs",
        {
            "name": "SSM-SessionManagerRunShell",
            "documentType": "Session",
            "documentFormat": "JSON",
            "content": json.dumps(content),
            "tags": {**cost_tags(graph), "gpufleet:account-baseline": "gpufleet-dev"},
        },
    )
    return graph, preferences.name


def _bucket_arn(graph: ResourceGraph) -> str:
    return f"arn:aws:s3:::{find(graph, 'storage-bucket').id}"


def iam_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    policy = find(graph, "pool-experiments-permissions")
    arn = _bucket_arn(graph)
    add_statement(
        policy,
        {"Sid": "ManageCheckpoints", "Effect": "Allow", "Action": ["s3:*"], "Resource": [arn, f"{arn}/*"]},
    )
    return graph, policy.name


def iam_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    policy = find(graph, "pool-experiments-permissions")
    add_statement(
        policy, {"Sid": "WriteAnyBucket", "Effect": "Allow", "Action": ["s3:PutObject"], "Resource": ["*"]}
    )
    return graph, policy.name


def iam_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    role = find(graph, "pool-experiments-role")
    attachment = add(
        graph,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        "fleet-admin",
        {"role": role.id, "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
        references={"role": [role]},
    )
    return graph, attachment.name


def iam_004(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    role = find(graph, "pool-experiments-role")
    trust = document(role, "assumeRolePolicy")
    trust["Statement"][0]["Principal"] = {"AWS": "*"}
    set_document(role, trust, "assumeRolePolicy")
    return graph, role.name


def iam_005(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    key = add(graph, "aws:iam/accessKey:AccessKey", "ci-uploader-key", {"user": "ci-uploader"})
    return graph, key.name


def iam_006(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    policy = find(graph, "pool-experiments-permissions")
    role = find(graph, "pool-experiments-role")
    add_statement(
        policy,
        {
            "Sid": "AttachPoliciesToOwnRole",
            "Effect": "Allow",
            "Action": ["iam:AttachRolePolicy"],
            "Resource": [f"arn:aws:iam::{ACCOUNT}:role/{role.id}"],
        },
    )
    return graph, policy.name


# --- audit -------------------------------------------------------------------------------------------


def aud_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # A fleet on a separate baseline has no trail of its own (the baseline's records the account);
    # a trail it does declare is still judged.
    key = find(graph, "key-key")
    trail = add(
        graph,
        "aws:cloudtrail/trail:Trail",
        "team-trail",
        {
            "name": "team-trail",
            "s3BucketName": "team-trail-logs",
            "isMultiRegionTrail": False,
            "includeGlobalServiceEvents": True,
            "enableLogFileValidation": True,
            "kmsKeyId": key.outputs["arn"],
            "region": "us-east-1",
            "tags": cost_tags(graph),
        },
        references={"kmsKeyId": [key]},
    )
    return graph, trail.name


def aud_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = find(graph, "audit-agent-logs")
    group.inputs["retentionInDays"] = 30
    return graph, group.name


def aud_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = find(graph, "audit-agent-logs")
    del group.inputs["kmsKeyId"]
    return graph, group.name


# --- network -----------------------------------------------------------------------------------------

STRONG_TUNNEL: dict[str, Any] = {
    "IkeVersions": ["ikev2"],
    "Phase1EncryptionAlgorithms": ["AES256-GCM-16", "AES256"],
    "Phase2EncryptionAlgorithms": ["AES256-GCM-16", "AES256"],
    "Phase1IntegrityAlgorithms": ["SHA2-256", "SHA2-384", "SHA2-512"],
    "Phase2IntegrityAlgorithms": ["SHA2-256", "SHA2-384", "SHA2-512"],
    "Phase1DhGroupNumbers": [14, 19, 20, 21],
    "Phase2DhGroupNumbers": [14, 19, 20, 21],
}
ONPREM_CIDR = "192.168.0.0/16"


def vpn_connection(graph: ResourceGraph, name: str, tunnel1: dict[str, Any]) -> Resource:
    """A site-to-site VPN to the on-prem cluster; tunnel 2 is strong, tunnel 1 as given."""
    tunnels = {f"tunnel1{key}": value for key, value in tunnel1.items()}
    tunnels |= {f"tunnel2{key}": value for key, value in STRONG_TUNNEL.items()}
    return add(
        graph,
        "aws:ec2/vpnConnection:VpnConnection",
        name,
        {
            "customerGatewayId": "cgw-0a1b2c3d4e5f60718",
            "vpnGatewayId": "vgw-0f1e2d3c4b5a69788",
            "type": "ipsec.1",
            "staticRoutesOnly": True,
            "localIpv4NetworkCidr": ONPREM_CIDR,
            **tunnels,
            "tags": cost_tags(graph),
        },
    )


def net_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    vpn = vpn_connection(graph, "onprem-vpn", {**STRONG_TUNNEL, "IkeVersions": ["ikev1", "ikev2"]})
    return graph, vpn.name


def net_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    vpn = vpn_connection(graph, "onprem-vpn", STRONG_TUNNEL)
    route = add(
        graph,
        "aws:ec2/vpnConnectionRoute:VpnConnectionRoute",
        "onprem-lab-route",
        {"vpnConnectionId": "vpn-0123456789abcdef0", "destinationCidrBlock": "10.40.8.0/21"},
        references={"vpnConnectionId": [vpn]},
    )
    return graph, route.name


def net_004(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # A VPN to the lab, and the instances' group opening every protocol to the lab's range over it.
    vpn_connection(graph, "onprem-vpn", STRONG_TUNNEL)
    group = find(graph, "network-instances-sg")
    group.inputs["egress"] = [
        *group.inputs["egress"],
        {"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": [ONPREM_CIDR], "description": "lab"},
    ]
    return graph, group.name


def net_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    vpc = find(graph, "network-vpc")
    table = find(graph, "network-private-rt")
    gateway = add(
        graph,
        "aws:ec2/internetGateway:InternetGateway",
        "fleet-igw",
        {"vpcId": vpc.id, "tags": cost_tags(graph)},
        references={"vpcId": [vpc]},
        resource_id="igw-0123456789abcdef0",
    )
    route = add(
        graph,
        "aws:ec2/route:Route",
        "fleet-default-route",
        {"routeTableId": table.id, "destinationCidrBlock": "0.0.0.0/0", "gatewayId": gateway.id},
        references={"routeTableId": [table], "gatewayId": [gateway]},
    )
    return graph, route.name


# --- cost --------------------------------------------------------------------------------------------


def cost_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    bucket = find(graph, "storage-bucket")
    del bucket.inputs["tags"]["team"]
    return graph, bucket.name


def cost_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    budget = find(graph, "budget-budget")
    for notification in budget.inputs["notifications"]:
        notification["threshold"] = 95
    return graph, budget.name


def cost_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = find(graph, "pool-experiments-asg")
    overrides = group.inputs["mixedInstancesPolicy"]["launchTemplate"]["overrides"]
    overrides.append({"instanceType": "g6e.xlarge"})
    return graph, group.name


def cost_004(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = find(graph, "pool-experiments-asg")
    group.inputs["mixedInstancesPolicy"]["instancesDistribution"]["onDemandPercentageAboveBaseCapacity"] = 100
    return graph, group.name


def cost_005(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    name = find(graph, "pool-experiments-asg").name
    return (
        without(
            graph,
            "pool-experiments-stop",
            "pool-experiments-start",
            "pool-experiments-scale-in",
            "pool-experiments-gpu-low",
        ),
        name,
    )


def cost_006(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # Step policies ignore the group's default cooldown: their estimated warm-up is what spaces out
    # successive scale-outs, so that is where a too-eager setting lands.
    policy = find(graph, "pool-experiments-scale-out")
    policy.inputs["estimatedInstanceWarmup"] = 60
    return graph, policy.name


def cost_007(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = find(graph, "pool-train-a100-asg")
    group.inputs["maxSize"] = 64
    return graph, group.name


def cost_008(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    bucket = find(graph, "storage-bucket")
    bucket.inputs["region"] = "eu-west-1"
    return graph, bucket.name


def cost_009(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    template = find(graph, "pool-experiments-lt")
    template.inputs["blockDeviceMappings"][0]["ebs"]["volumeType"] = "gp2"
    return graph, template.name


# --- launch and fit --------------------------------------------------------------------------------


def _fleet_config(graph: ResourceGraph) -> dict[str, Any]:
    fleet = graph.config["gpufleet:fleet"]
    spec: dict[str, Any] = json.loads(fleet) if isinstance(fleet, str) else fleet
    graph.config["gpufleet:fleet"] = spec
    return spec


def fit_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # 4 spot instances of 4 vCPUs against a spot quota of 4 vCPUs
    graph.config["gpufleet:quotas"] = {"aws:us-east-1": {"L-3819A6DF": 4}}
    return graph, find(graph, "pool-experiments-asg").name


def fit_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # two /28 private subnets hold 2 x 11 addresses; the pool may grow to 24 instances
    for subnet in graph.of_type("aws:ec2/subnet:Subnet"):
        if subnet.inputs.get("mapPublicIpOnLaunch"):
            continue
        base = subnet.inputs["cidrBlock"].split("/")[0]
        subnet.inputs["cidrBlock"] = f"{base}/28"
    group = find(graph, "pool-experiments-asg")
    group.inputs["maxSize"] = 24
    return graph, group.name


def fit_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    template = find(graph, "pool-experiments-lt")
    template.inputs["imageId"] = (
        "resolve:ssm:/aws/service/deeplearning/ami/arm64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id"
    )
    template.inputs["tags"].pop("gpufleet:image-arch", None)
    return graph, find(graph, "pool-experiments-asg").name


def fit_004(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = find(graph, "pool-experiments-asg")
    asg_tag(group, "gpufleet:fit", "model=llama-7b-inference")
    return graph, group.name


def fit_005(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = find(graph, "pool-experiments-asg")
    asg_tag(group, "gpufleet:fit", "model_memory_gib=8,distributed=true")
    return graph, group.name


def fit_006(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    _fleet_config(graph)["budget"]["instance_ceiling"] = 0.05
    return graph, find(graph, "pool-experiments-asg").name


# --- Kubernetes --------------------------------------------------------------------------------------

TRAINING_NS = "training"
TRAINER_LABELS = {"app": "trainer"}
GPU = "nvidia.com/gpu"


def trainer_container() -> dict[str, Any]:
    return {
        "name": "trainer",
        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
        "resources": {"limits": {GPU: "1"}, "requests": {GPU: "1"}},
        "env": [{"name": "CHECKPOINT_PREFIX", "value": "checkpoints/"}],
    }


def trainer_deployment(graph: ResourceGraph) -> dict[str, Any]:
    """A GPU training Deployment that meets every Kubernetes rule."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "trainer",
            "namespace": TRAINING_NS,
            "labels": {**cost_tags(graph), **TRAINER_LABELS},
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": dict(TRAINER_LABELS)},
            "template": {
                "metadata": {"labels": dict(TRAINER_LABELS)},
                "spec": {
                    "priorityClassName": "gpu-baseline",
                    "tolerations": [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [trainer_container()],
                },
            },
        },
    }


def add_training(
    graph: ResourceGraph,
    *,
    deployment: dict[str, Any] | None = None,
    quota: bool = True,
    priority_class: bool = True,
    disruption_budget: bool = True,
) -> Resource:
    """The on-prem baseline's training namespace as a team declares it with pulumi_kubernetes: a
    namespace with a GPU quota, a PriorityClass, a PodDisruptionBudget and the trainer Deployment.
    Returns the Deployment."""
    labels = cost_tags(graph)
    namespace = add(
        graph,
        "kubernetes:core/v1:Namespace",
        "training-ns",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": TRAINING_NS, "labels": labels}},
    )
    in_namespace = {"metadata": [namespace]}
    if quota:
        add(
            graph,
            "kubernetes:core/v1:ResourceQuota",
            "training-gpu-quota",
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": "gpu-quota", "namespace": TRAINING_NS},
                "spec": {"hard": {f"requests.{GPU}": "8"}},
            },
            references=in_namespace,
        )
    if priority_class:
        add(
            graph,
            "kubernetes:scheduling.k8s.io/v1:PriorityClass",
            "gpu-baseline",
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "gpu-baseline"},
                "value": 100000,
                "description": "baseline GPU training outranks burst work",
            },
        )
    if disruption_budget:
        add(
            graph,
            "kubernetes:policy/v1:PodDisruptionBudget",
            "trainer-pdb",
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": "trainer", "namespace": TRAINING_NS},
                "spec": {"maxUnavailable": 0, "selector": {"matchLabels": dict(TRAINER_LABELS)}},
            },
            references=in_namespace,
        )
    return add(
        graph,
        "kubernetes:apps/v1:Deployment",
        "trainer",
        deployment if deployment is not None else trainer_deployment(graph),
        references=in_namespace,
    )


def _pod_spec(deployment: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return spec


def k8s_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    deployment = trainer_deployment(graph)
    del _pod_spec(deployment)["tolerations"]
    return graph, add_training(graph, deployment=deployment).name


def k8s_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    return graph, add_training(graph, quota=False).name


def k8s_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    deployment = trainer_deployment(graph)
    _pod_spec(deployment)["containers"][0]["securityContext"] = {"privileged": True}
    return graph, add_training(graph, deployment=deployment).name


def k8s_004(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    return graph, add_training(graph, disruption_budget=False).name


def k8s_005(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    deployment = trainer_deployment(graph)
    _pod_spec(deployment)["containers"][0]["env"].append(
        {"name": "AWS_ACCESS_KEY_ID", "value": "AKIAIOSFODNN7EXAMPLE"}
    )
    return graph, add_training(graph, deployment=deployment).name


# --- resilience --------------------------------------------------------------------------------------


def dr_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # prod's checkpoints replicate both ways between us-east-1 and us-west-2; `replicate_to` dropped.
    bucket = find(graph, "storage-bucket")
    return without(graph, "replication-to-replica", "replication-to-primary"), bucket.name


def dr_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # prod's us-west-2 burst pool removed (group, template, role, alarms and all): one region left.
    data = graph.to_json()
    data["resources"] = [r for r in data["resources"] if "pool-burst-a10g-west" not in r["urn"]]
    return ResourceGraph.from_json(data), find(graph, "pool-inference-a10g-asg").name


# --- deployability ------------------------------------------------------------------------------------
# The golden stacks give the clouds nothing they refuse; each change is one value a preview would refuse.


def deploy_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    queue = find(graph, "pool-experiments-queue")
    queue.inputs["visibilityTimeoutSeconds"] = 50000
    return graph, queue.name


def deploy_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    deployment = trainer_deployment(graph)
    _pod_spec(deployment)["containers"][0]["name"] = "Trainer"
    return graph, add_training(graph, deployment=deployment).name


def deploy_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    schedule = find(graph, "pool-experiments-stop")
    schedule.inputs["startTime"] = "2020-01-01T00:00:00Z"
    return graph, schedule.name


# --- operability ------------------------------------------------------------------------------------
# The golden stacks pass every operability rule; each change adds one instance of its mistake.


def ops_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # Scale out on the backlog of a queue the stack does not create: SQS publishes nothing for it.
    policy = find(graph, "pool-experiments-scale-out")
    alarm = add(
        graph,
        "aws:cloudwatch/metricAlarm:MetricAlarm",
        "experiments-backlog",
        {
            "namespace": "AWS/SQS",
            "metricName": "ApproximateNumberOfMessagesVisible",
            "dimensions": {"QueueName": "ml-jobs"},
            "statistic": "Maximum",
            "comparisonOperator": "GreaterThanThreshold",
            "threshold": 10,
            "period": 60,
            "evaluationPeriods": 5,
            "alarmActions": [policy.outputs["arn"]],
            "tags": cost_tags(graph),
        },
        references={"alarmActions": [policy]},
    )
    return graph, alarm.name


def ops_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # The bucket policy lets a data team's role read, a role no program of this account creates.
    policy = find(graph, "storage-policy")
    bucket = find(graph, "storage-bucket")
    name = bucket.outputs.get("bucket") or bucket.inputs.get("bucket")
    add_statement(
        policy,
        {
            "Sid": "DataTeamReads",
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:role/data-science"},
            "Action": ["s3:GetObject"],
            "Resource": [f"arn:aws:s3:::{name}/data/*"],
        },
    )
    return graph, policy.name


def ops_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # A second, faster step scale-in fired by the same idle alarm: removes two instances a minute.
    group = find(graph, "pool-experiments-asg")
    group_name = group.outputs.get("name") or group.inputs.get("name")
    policy = add(
        graph,
        "aws:autoscaling/policy:Policy",
        "experiments-scale-in-fast",
        {
            "autoscalingGroupName": group_name,
            "policyType": "StepScaling",
            "adjustmentType": "ChangeInCapacity",
            "metricAggregationType": "Average",
            "estimatedInstanceWarmup": 300,
            "stepAdjustments": [{"metricIntervalUpperBound": "0", "scalingAdjustment": -2}],
        },
        references={"autoscalingGroupName": [group]},
        resource_id="experiments-scale-in-fast",
        state={"arn": f"arn:aws:autoscaling:us-east-1:{ACCOUNT}:policy/experiments-scale-in-fast"},
    )
    alarm = find(graph, "pool-experiments-gpu-low")
    alarm.inputs["alarmActions"] = [*alarm.inputs["alarmActions"], policy.outputs["arn"]]
    deps = alarm.property_dependencies.setdefault("alarmActions", ())
    alarm.property_dependencies["alarmActions"] = (*deps, policy.urn)
    return graph, policy.name


def ops_004(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # The fleet stack turns on EBS encryption by default: an account-wide setting it now owns.
    setting = add(
        graph, "aws:ebs/encryptionByDefault:EncryptionByDefault", "ebs-default-encryption", {"enabled": True}
    )
    return graph, setting.name


def ops_005(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # A BYOK key whose material is imported later, already used by a log group of the same deployment.
    key_id = "0d1e2f3a-4b5c-4d6e-8f90-a1b2c3d4e5f6"
    arn = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/{key_id}"
    key = add(
        graph,
        "aws:kms/externalKey:ExternalKey",
        "jobs-byok-key",
        {"description": "jobs log key, material imported by the security team", "tags": cost_tags(graph)},
        resource_id=key_id,
        state={"arn": arn, "keyId": key_id},
    )
    logs = add(
        graph,
        "aws:cloudwatch/logGroup:LogGroup",
        "jobs-logs",
        {"name": "/gpufleet/jobs", "kmsKeyId": arn, "retentionInDays": 180, "tags": cost_tags(graph)},
        references={"kmsKeyId": [key]},
    )
    return graph, logs.name


MUTATIONS: dict[str, Mutation] = {
    "GF-STOR-001": Mutation("dev", "checkpoint bucket encryption switched to SSE-S3 (AES256)", stor_001),
    "GF-STOR-002": Mutation("prod", "restricted checkpoints re-keyed to a new AWS-generated key", stor_002),
    "GF-STOR-003": Mutation("dev", "public-access block stops blocking public bucket policies", stor_003),
    "GF-STOR-004": Mutation("dev", "bucket policy loses its deny of non-TLS requests", stor_004),
    "GF-STOR-005": Mutation("dev", "checkpoint lifecycle expires after 90 days instead of 30", stor_005),
    "GF-STOR-006": Mutation("dev", "checkpoints move to STANDARD_IA after 7 days (S3 needs 30)", stor_006),
    "GF-STOR-007": Mutation("dev", "checkpoint bucket versioning suspended", stor_007),
    "GF-STOR-008": Mutation("dev", "launch template root volume unencrypted", stor_008),
    "GF-KMS-001": Mutation("dev", "fleet key rotation turned off", kms_001),
    "GF-KMS-002": Mutation("dev", "key policy grants kms:* to any principal", kms_002),
    "GF-ACC-001": Mutation("dev", "SSH ingress from 0.0.0.0/0 added to the GPU instances' group", acc_001),
    "GF-ACC-002": Mutation("dev", "launch template given an SSH key pair", acc_002),
    "GF-ACC-003": Mutation("dev", "Session Manager actions removed from the instance role", acc_003),
    "GF-ACC-004": Mutation("dev", "launch template metadata tokens optional (IMDSv1)", acc_004),
    "GF-ACC-005": Mutation("dev", "launch template assigns public IPs", acc_005),
    "GF-ACC-006": Mutation("dev", "Session Manager preferences that do not encrypt session logs", acc_006),
    "GF-IAM-001": Mutation("dev", "instance role allowed s3:* on the checkpoint bucket", iam_001),
    "GF-IAM-002": Mutation("dev", "instance role allowed s3:PutObject on every resource", iam_002),
    "GF-IAM-003": Mutation("dev", "AdministratorAccess attached to the instance role", iam_003),
    "GF-IAM-004": Mutation("dev", "instance role trusts any AWS principal", iam_004),
    "GF-IAM-005": Mutation("dev", "access key created for a CI user", iam_005),
    "GF-IAM-006": Mutation("dev", "instance role may attach policies to itself", iam_006),
    "GF-AUD-001": Mutation("dev", "a single-region CloudTrail trail added to the fleet", aud_001),
    "GF-AUD-002": Mutation("dev", "agent log group kept 30 days", aud_002),
    "GF-AUD-003": Mutation("dev", "agent log group loses its KMS key", aud_003),
    "GF-NET-001": Mutation("dev", "site-to-site VPN whose tunnel 1 still offers IKEv1", net_001),
    "GF-NET-002": Mutation("dev", "VPN route to an on-prem range inside the fleet VPC", net_002),
    "GF-NET-003": Mutation("dev", "private route table routes 0.0.0.0/0 to an internet gateway", net_003),
    "GF-NET-004": Mutation("dev", "instances' group opens all protocols to the VPN's on-prem range", net_004),
    "GF-COST-001": Mutation("dev", "checkpoint bucket loses its team tag", cost_001),
    "GF-COST-002": Mutation("dev", "budget alerts raised to 95%", cost_002),
    "GF-COST-003": Mutation("dev", "dev pool may launch g6e.xlarge (L40S)", cost_003),
    "GF-COST-004": Mutation("dev", "dev pool runs on-demand above its base (spot share 0)", cost_004),
    "GF-COST-005": Mutation("dev", "dev pool loses its off-hours schedule and idle scale-in", cost_005),
    "GF-COST-006": Mutation("dev", "dev scale-out policy warm-up cut to 60 s", cost_006),
    "GF-COST-007": Mutation("prod", "prod training pool max raised to 64 p4d.24xlarge", cost_007),
    "GF-COST-008": Mutation("dev", "checkpoint bucket moved to eu-west-1, pool stays in us-east-1", cost_008),
    "GF-COST-009": Mutation("dev", "launch template root volume on gp2", cost_009),
    "GF-K8S-001": Mutation("dev", "training Deployment does not tolerate the GPU taint", k8s_001),
    "GF-K8S-002": Mutation("dev", "training namespace without a GPU ResourceQuota", k8s_002),
    "GF-K8S-003": Mutation("dev", "training container runs privileged", k8s_003),
    "GF-K8S-004": Mutation("dev", "training Deployment without a PodDisruptionBudget", k8s_004),
    "GF-K8S-005": Mutation("dev", "AWS access key id in the trainer's plain env", k8s_005),
    "GF-DR-001": Mutation("prod", "checkpoint replication dropped", dr_001),
    "GF-DR-002": Mutation("prod", "burst pool in the second region removed", dr_002),
    "GF-OPS-001": Mutation(
        "dev", "scale-out alarm on the backlog of a queue the stack does not create", ops_001
    ),
    "GF-OPS-002": Mutation("dev", "bucket policy names a role no stack of the account creates", ops_002),
    "GF-OPS-003": Mutation("dev", "second step scale-in policy fired by the idle alarm", ops_003),
    "GF-OPS-004": Mutation("dev", "fleet stack turns on EBS encryption by default", ops_004),
    "GF-OPS-005": Mutation("dev", "log group encrypted with a BYOK key pending import", ops_005),
    "GF-DEPLOY-001": Mutation("dev", "queue visibility timeout above SQS's 12 hours", deploy_001),
    "GF-DEPLOY-002": Mutation("dev", "training container named with a capital letter", deploy_002),
    "GF-DEPLOY-003": Mutation("dev", "off-hours schedule starting in 2020", deploy_003),
    "GF-FIT-001": Mutation("dev", "a spot G quota of 4 vCPUs declared for a pool of 16", fit_001),
    "GF-FIT-002": Mutation("dev", "private subnets cut to /28, pool max raised to 24", fit_002),
    "GF-FIT-003": Mutation("dev", "x86 pool launched from an arm64 Deep Learning AMI", fit_003),
    "GF-FIT-004": Mutation("dev", "T4/A10G pool declared to serve llama-7b (24 GiB)", fit_004),
    "GF-FIT-005": Mutation("dev", "pool declared distributed on up-to-25 Gbps types", fit_005),
    "GF-FIT-006": Mutation("dev", "budget.instance_ceiling of 0.05 USD an hour", fit_006),
}
