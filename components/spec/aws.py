"""AWS's facts the spec reads: the shape of its region names, its image forms (AMI, SSM parameter), its
queue (SQS ARNs, the KEDA scaler), that the reference worker runs on it and a burst order gates its
pools on the exporter's signal (IAM Roles Anywhere), its private links (Direct Connect ids, VLANs, the
Amazon-side ASNs), and the checks only it makes (existing subnets, ECR behind VPC endpoints, link
fields it picks itself). Read by the neutral spec modules through ``cloud_parts``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from gpufleet.components import spec_limits as limits

if TYPE_CHECKING:
    from gpufleet.components.spec.links import Link
    from gpufleet.components.spec.specs import FleetSpec

# A region name's shape (``us-west-2``): a name of another shape is said so before the list of regions.
REGION_NAME_RE = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")
# How messages describe one region name, and a list of them.
REGION_NAME = "an AWS region name like us-west-2"
REGION_NAMES = "AWS region names like us-east-1"
# A pinned SSM parameter holding an AMI id, as messages show one.
SSM_PARAMETER_EXAMPLE = (
    "/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id:42"
)
# A pool's queue (``PoolQueue``) is an SQS queue: the ARNs an existing queue and its key are named by,
# and the examples messages give.
QUEUE_ARN_RE = re.compile(r"^arn:aws[a-z-]*:sqs:[a-z]{2}(-[a-z]+)+-\d:\d{12}:(?P<name>[^:]+)$")
KMS_KEY_ARN_RE = re.compile(r"^arn:aws[a-z-]*:kms:[a-z]{2}(-[a-z]+)+-\d:\d{12}:key/[A-Za-z0-9-]{1,128}$")
QUEUE_ARN_EXAMPLE = "arn:aws:sqs:us-east-1:123456789012:jobs"
KMS_KEY_ARN_EXAMPLE = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
# The burst signal's exporter (``Signal``) signs in with IAM Roles Anywhere: the trust anchor's ARN, as
# matched and as messages write it, and what the schema says of the certificate's CN and of the image.
TRUST_ANCHOR_RE = re.compile(
    r"^arn:aws(-cn|-us-gov)?:rolesanywhere:[a-z0-9-]+:\d{12}:trust-anchor/[0-9a-f-]{36}$"
)
TRUST_ANCHOR_FORM = "arn:aws:rolesanywhere:<region>:<account>:trust-anchor/<uuid>"
SIGNAL_CN_TAG = "aws:PrincipalTag/x509Subject/CN"
SIGNAL_IMAGE_TOOLS = "python3, boto3, aws_signing_helper"
# A private link (``links``): the Direct Connect connection id and the VLAN ids a virtual interface takes;
# why a dedicated link needs bgp_asn; the Amazon-side ASNs of the VPN gateway and the Direct Connect
# gateway a dedicated link creates.
CONNECTION_ID: tuple[re.Pattern[str], str] = (
    re.compile(r"^dxcon-[a-z0-9]{8,17}$"),
    "an AWS Direct Connect connection id like dxcon-ffabc123",
)
VLAN_RANGE = (1, 4094)
DEDICATED_BGP = "AWS private virtual interfaces always route with BGP"
AWS_SIDE_ASNS = (64512, 64513)
# How a pool's default image is described (``Pool.image``).
DEFAULT_IMAGE = "AWS the newest Deep Learning Base AMI"
# `python -m gpufleet.worker` wires SQS and EC2 Auto Scaling (gpufleet/worker/wiring/aws.py).
REFERENCE_WORKER = True
# The KEDA scaler that reads its queue service (SQS), beside the cloud-neutral ones (redis, rabbitmq).
KEDA_QUEUE_SOURCE = "aws-sqs-queue"
# The queue KEDA's aws-sqs-queue scaler reads: the SQS queue's URL, its region in the host.
KEDA_QUEUE_RE = re.compile(
    r"^https://sqs\.(?P<region>[a-z]{2}(-[a-z]+)+-\d+)\.amazonaws\.com(\.cn)?/\d{12}/[A-Za-z0-9_-]{1,80}(\.fifo)?$"
)
KEDA_QUEUE_FORM = "an SQS queue URL like https://sqs.us-east-1.amazonaws.com/123456789012/jobs"
# The cloud whose pools a burst order gates on the exporter's signal (gpufleet/Baseline FreeGpusAhead).
BURST_SIGNAL = True


def network_problems(
    spec: FleetSpec, at: Mapping[tuple[str, str], list[str]], home: str | None
) -> list[tuple[str, str]]:
    """What AWS networks cannot carry: a way out built into existing subnets, and an ECR image of another
    region than its pool behind VPC endpoints (which reach only their own region's registry)."""
    net = spec.network
    found: list[tuple[str, str]] = []
    if net.subnet_ids and net.egress != "none" and at.get(("aws", home or "")):
        found.append(
            (
                "network.egress",
                f"{net.egress} builds endpoints or a NAT gateway in a network the fleet creates; with "
                "network.subnet_ids the existing network brings its own way out: use none",
            )
        )
    if net.subnet_ids or net.egress != "endpoints":
        return found
    pools = sorted(
        (name, region) for (cloud, region), names in at.items() if cloud == "aws" for name in names
    )
    for name, region in pools:
        workload = spec.pools[name].workload
        container = workload.container if workload is not None else None
        match = limits.ECR_IMAGE_RE.match(container.image) if container is not None else None
        if match is not None and match.group("region") != region:
            ecr = match.group("region")
            found.append(
                (
                    f"pools.{name}.workload.container.image",
                    f"is in ECR in {ecr} but the pool runs in {region}, whose ECR endpoints reach only "
                    f"{region}'s registry: replicate the repository to {region} (ECR replication) or set "
                    "network.egress: nat",
                )
            )
    return found


def link_problems(link: Link) -> list[str]:
    """What an AWS link cannot be, before its kind's checks: the Amazon side's own ASN as the on-prem's."""
    if link.bgp_asn in AWS_SIDE_ASNS:
        return [
            f"bgp_asn: {link.bgp_asn} is the AWS side's ASN (VPN gateway {AWS_SIDE_ASNS[0]}, Direct "
            f"Connect gateway {AWS_SIDE_ASNS[1]}); give the on-prem router's own ASN"
        ]
    return []


def vpn_problems(link: Link) -> list[str]:
    """What an AWS VPN picks itself: each tunnel's inside range, and its bandwidth."""
    problems: list[str] = []
    if link.bgp_tunnel_cidr is not None:
        problems.append("bgp_tunnel_cidr: AWS picks each tunnel's inside range; leave it out")
    if link.bandwidth_mbps is not None:
        problems.append("bandwidth_mbps: an AWS VPN tunnel's bandwidth is fixed; leave it out")
    return problems
