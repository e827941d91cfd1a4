"""Throughput of the offline policy evaluation: every policy of the default registry over synthetic graphs.

    .venv/bin/python bench/policy_bench.py [--sizes 1000,10000,50000] [--runs 3]

Each run of each size is a fresh process, so its peak memory (ru_maxrss) is its own; the sizes are
interleaved run by run, so a busy machine slows them alike. Printed: medians of --runs runs, wall and
CPU seconds of the evaluation (CPU time is what a shared machine leaves stable), resources per CPU
second, and the load average before and after. Targets: at least 10,000 resources/s, and linear: the
CPU time per resource at 50,000 no more than at 10,000 (within the noise of a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gpufleet.graph import UNKNOWN_STRING, Resource, ResourceGraph  # noqa: E402

STACK, PROJECT = "bench", "gpufleet"
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}


def _urn(token: str, name: str, parent: str | None = None) -> str:
    qualified = f"{parent}${token}" if parent else token
    return f"urn:pulumi:{STACK}::{PROJECT}::{qualified}::{name}"


def _unit(i: int) -> list[Resource]:
    """One pool's worth of resources (22): storage with its separate resources, compute, access, logs, k8s."""
    comp_type = "gpufleet:pools:GpuPool"
    comp = _urn(comp_type, f"pool{i}")
    out = [Resource(urn=comp, type=comp_type, name=f"pool{i}", custom=False, inputs={})]

    def add(
        token: str,
        name: str,
        inputs: dict[str, Any],
        deps: tuple[str, ...] = (),
        prop_deps: dict[str, tuple[str, ...]] | None = None,
    ) -> str:
        urn = _urn(token, f"pool{i}-{name}", comp_type)
        out.append(
            Resource(
                urn=urn,
                type=token,
                name=f"pool{i}-{name}",
                custom=True,
                inputs=inputs,
                parent=comp,
                dependencies=deps,
                property_dependencies=prop_deps or {},
                outputs={"id": f"pool{i}-{name}-id", **inputs},
            )
        )
        return urn

    key = add(
        "aws:kms/key:Key",
        "key",
        {
            "enableKeyRotation": i % 3 != 0,
            "tags": TAGS,
            "policy": json.dumps({"Version": "2012-10-17", "Statement": []}),
        },
    )
    bucket = add(
        "aws:s3/bucket:Bucket",
        "ckpt",
        {"bucket": f"pool{i}-ckpt", "tags": {**TAGS, "purpose": "checkpoints"}},
    )
    on_bucket: dict[str, tuple[str, ...]] = {"bucket": (bucket,)}
    add(
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "sse",
        {
            "bucket": UNKNOWN_STRING,
            "rules": [
                {
                    "applyServerSideEncryptionByDefault": {
                        "sseAlgorithm": "aws:kms" if i % 4 else "AES256",
                        "kmsMasterKeyId": UNKNOWN_STRING,
                    }
                }
            ],
        },
        (bucket, key),
        on_bucket,
    )
    add(
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
        "pab",
        {
            "bucket": UNKNOWN_STRING,
            "blockPublicAcls": True,
            "blockPublicPolicy": True,
            "ignorePublicAcls": True,
            "restrictPublicBuckets": i % 5 != 0,
        },
        (bucket,),
        on_bucket,
    )
    add(
        "aws:s3/bucketVersioning:BucketVersioning",
        "versioning",
        {"bucket": UNKNOWN_STRING, "versioningConfiguration": {"status": "Enabled"}},
        (bucket,),
        on_bucket,
    )
    add(
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
        "lifecycle",
        {
            "bucket": UNKNOWN_STRING,
            "rules": [
                {
                    "id": "ckpt",
                    "status": "Enabled",
                    "transitions": [{"days": 30, "storageClass": "STANDARD_IA"}],
                    "expiration": {"days": 60},
                    "abortIncompleteMultipartUpload": {"daysAfterInitiation": 7},
                }
            ],
        },
        (bucket,),
        on_bucket,
    )
    add(
        "aws:s3/bucketPolicy:BucketPolicy",
        "policy",
        {
            "bucket": UNKNOWN_STRING,
            "policy": json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Deny",
                            "Principal": "*",
                            "Action": "s3:*",
                            "Resource": "*",
                            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                        }
                    ],
                }
            ),
        },
        (bucket,),
        on_bucket,
    )
    sg = add(
        "aws:ec2/securityGroup:SecurityGroup",
        "sg",
        {
            "vpcId": "vpc-1",
            "tags": TAGS,
            "ingress": [{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["10.0.0.0/8"]}],
        },
    )
    add(
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
        "ssh" if i % 7 == 0 else "https",
        {
            "securityGroupId": UNKNOWN_STRING,
            "ipProtocol": "tcp",
            "fromPort": 22 if i % 7 == 0 else 443,
            "toPort": 22 if i % 7 == 0 else 443,
            "cidrIpv4": "0.0.0.0/0" if i % 7 == 0 else "10.0.0.0/8",
        },
        (sg,),
    )
    role = add(
        "aws:iam/role:Role",
        "role",
        {
            "tags": TAGS,
            "assumeRolePolicy": json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Action": "sts:AssumeRole",
                            "Principal": {"Service": "ec2.amazonaws.com"},
                        }
                    ],
                }
            ),
        },
    )
    add(
        "aws:iam/rolePolicy:RolePolicy",
        "ckpt-access",
        {
            "role": UNKNOWN_STRING,
            "policy": json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Action": ["s3:GetObject", "s3:PutObject"],
                            "Resource": f"arn:aws:s3:::pool{i}-ckpt/*",
                        }
                    ],
                }
            ),
        },
        (role,),
    )
    add(
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        "ssm",
        {"role": UNKNOWN_STRING, "policyArn": "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"},
        (role,),
    )
    profile = add(
        "aws:iam/instanceProfile:InstanceProfile", "profile", {"role": UNKNOWN_STRING, "tags": TAGS}, (role,)
    )
    template = add(
        "aws:ec2/launchTemplate:LaunchTemplate",
        "lt",
        {
            "instanceType": "g5.2xlarge",
            "imageId": "ami-123",
            "tags": TAGS,
            "iamInstanceProfile": {"arn": UNKNOWN_STRING},
            "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 2},
            "blockDeviceMappings": [
                {
                    "deviceName": "/dev/xvda",
                    "ebs": {"encrypted": "true", "volumeType": "gp3", "volumeSize": 200},
                }
            ],
            "vpcSecurityGroupIds": [UNKNOWN_STRING],
        },
        (sg, profile),
    )
    add(
        "aws:autoscaling/group:Group",
        "asg",
        {
            "minSize": 0,
            "maxSize": 8,
            "desiredCapacity": 0,
            "vpcZoneIdentifiers": ["subnet-1"],
            "mixedInstancesPolicy": {
                "instancesDistribution": {
                    "onDemandBaseCapacity": 0,
                    "onDemandPercentageAboveBaseCapacity": 0,
                    "spotAllocationStrategy": "price-capacity-optimized",
                },
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateId": UNKNOWN_STRING, "version": "$Latest"},
                    "overrides": [{"instanceType": "g5.2xlarge"}],
                },
            },
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()],
        },
        (template,),
    )
    add(
        "aws:autoscaling/policy:Policy",
        "scale-out",
        {
            "autoscalingGroupName": UNKNOWN_STRING,
            "policyType": "TargetTrackingScaling",
            "targetTrackingConfiguration": {"targetValue": 70},
        },
    )
    add(
        "aws:autoscaling/schedule:Schedule",
        "night",
        {
            "autoscalingGroupName": UNKNOWN_STRING,
            "scheduledActionName": "night",
            "recurrence": "0 20 * * *",
            "minSize": 0,
            "maxSize": 0,
            "desiredCapacity": 0,
            "timeZone": "Asia/Shanghai",
        },
    )
    add(
        "aws:cloudwatch/logGroup:LogGroup",
        "logs",
        {"retentionInDays": 180 if i % 6 else 30, "kmsKeyId": UNKNOWN_STRING, "tags": TAGS},
        (key,),
    )
    ns = add("kubernetes:core/v1:Namespace", "ns", {"metadata": {"name": f"pool{i}", "labels": TAGS}})
    add(
        "kubernetes:apps/v1:Deployment",
        "trainer",
        {
            "metadata": {"name": f"trainer-{i}", "namespace": f"pool{i}", "labels": TAGS},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "trainer"}},
                "template": {
                    "metadata": {"labels": {"app": "trainer"}},
                    "spec": {
                        "tolerations": [
                            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
                        ],
                        "containers": [
                            {
                                "name": "trainer",
                                "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                                "resources": {"limits": {"nvidia.com/gpu": "1"}},
                                "securityContext": {"privileged": i % 9 == 0},
                            }
                        ],
                    },
                },
            },
        },
        (ns,),
    )
    add(
        "kubernetes:core/v1:ResourceQuota",
        "quota",
        {
            "metadata": {"name": "gpu", "namespace": f"pool{i}"},
            "spec": {"hard": {"requests.nvidia.com/gpu": "8"}},
        },
        (ns,),
    )
    return out


def synthetic_graph(size: int) -> ResourceGraph:
    resources: list[Resource] = []
    i = 0
    while len(resources) < size:
        resources.extend(_unit(i))
        i += 1
    return ResourceGraph(
        project=PROJECT,
        stack=STACK,
        resources=resources[:size],
        config={"aws:region": "us-east-1", "pulumi:tags": {"team": "ml-platform"}},
    )


def run_one(size: int) -> dict[str, Any]:
    from gpufleet.components.catalog import load_catalog
    from gpufleet.evaluate import evaluate_stack
    from gpufleet.policies.registry import default_registry
    from gpufleet.sandbox import collector_paused

    policies = list(default_registry())
    graph = synthetic_graph(size)
    # `gpufleet check` prices a stack before it judges it, so the GPU catalogue (a YAML file, about
    # 0.15 s to parse) is loaded by then; load it here too, so that the time below is the pack's.
    load_catalog()
    start, cpu = time.perf_counter(), time.process_time()
    # As `gpufleet check` judges: with the cyclic collector paused (on, it walks the growing graph of
    # policy objects again and again and takes about 60% of the time here).
    with collector_paused():
        result = evaluate_stack(graph, policies)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "resources": size,
        "policies": len(policies),
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "violations": len(result.violations),
        "peak_rss_mib": round(peak_kib / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: dict[int, list[dict[str, Any]]] = {size: [] for size in sizes}
    load_before = os.getloadavg()[0]
    for _ in range(args.runs):
        for size in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--one", str(size)],
                check=True,
                capture_output=True,
                text=True,
                cwd=ROOT,
            ).stdout
            rows[size].append(json.loads(out.strip().splitlines()[-1]))
    print(
        f"medians of {args.runs} runs; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after "
        f"({os.cpu_count()} cpus)"
    )
    print(
        f"{'resources':>10} {'policies':>8} {'wall s':>7} {'cpu s':>7} {'res/cpu s':>9} {'cpu us/res':>10} "
        f"{'violations':>10} {'peak MiB':>9}"
    )
    for size in sizes:
        runs = rows[size]
        wall = statistics.median(r["seconds"] for r in runs)
        cpu = statistics.median(r["cpu_seconds"] for r in runs)
        peak = statistics.median(r["peak_rss_mib"] for r in runs)
        print(
            f"{size:>10} {runs[0]['policies']:>8} {wall:>7.2f} {cpu:>7.2f} {size / cpu:>9,.0f} "
            f"{1e6 * cpu / size:>10.0f} {runs[0]['violations']:>10} {peak:>9.1f}"
        )


if __name__ == "__main__":
    main()
