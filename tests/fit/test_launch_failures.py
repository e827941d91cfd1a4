# ruff: noqa: E501  (stack file lines and messages are kept whole, as the user sees them)
"""Raw Pulumi programs (no gpufleet components) that would fail at launch or not fit their work: each is
run offline and judged by the pack, and the finding names its cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.engine import run_program
from gpufleet.evaluate import Finding, evaluate_stack
from gpufleet.policies.fit import POLICIES
from tests.engine.projects import write_project

PROGRAM = """
import pulumi
import pulumi_aws as aws

cfg = pulumi.Config("t")
vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")
subnets = [
    aws.ec2.Subnet(f"s{i}", vpc_id=vpc.id, cidr_block=cidr)
    for i, cidr in enumerate(cfg.require_object("cidrs"))
]
interfaces = [
    aws.ec2.LaunchTemplateNetworkInterfaceArgs(device_index=0, interface_type=kind)
    for kind in (cfg.get_object("interfaces") or [])
]
lt = aws.ec2.LaunchTemplate(
    "lt",
    image_id=cfg.get("image") or "ami-0123456789abcdef0",
    network_interfaces=interfaces or None,
    tags={"env": cfg.get("env") or "prod"},
)
aws.autoscaling.Group(
    "gpu",
    min_size=0,
    max_size=cfg.require_int("max"),
    vpc_zone_identifiers=[s.id for s in subnets],
    launch_template=aws.autoscaling.GroupLaunchTemplateArgs(id=lt.id, version="$Latest"),
    tags=[
        aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=True)
        for k, v in {"env": cfg.get("env") or "prod", **(cfg.get_object("tags") or {})}.items()
    ],
)
"""


def _lt_types(instance_type: str) -> str:
    return PROGRAM.replace('    tags={"env"', f'    instance_type="{instance_type}",\n    tags={{"env"', 1)


def _stack(config: str) -> str:
    return "config:\n  aws:region: us-east-1\n" + config


def judge(tmp_path: Path, instance_type: str, config: str) -> list[Finding]:
    root = write_project(tmp_path / "p", _lt_types(instance_type), stacks={"prod": _stack(config)})
    graph = run_program(root, "prod")
    return evaluate_stack(graph, POLICIES, {}, project_root=root).violations


def only(findings: list[Finding], rule_id: str) -> Finding:
    matching = [f for f in findings if f.rule_id == rule_id]
    assert len(matching) == 1, findings
    return matching[0]


def test_quota_shortfall_names_the_quota_and_the_need(tmp_path: Path) -> None:
    config = "  t:cidrs: [10.0.0.0/24]\n  t:max: 4\n  gpufleet:quotas:\n    aws:us-east-1: {L-DB2E81BA: 64}\n"
    finding = only(judge(tmp_path, "g5.12xlarge", config), "GF-FIT-001")
    assert finding.enforcement == "mandatory"
    assert (
        "aws:us-east-1 quota L-DB2E81BA (Running On-Demand G and VT instances) allows 64 vCPUs"
        in finding.message
    )
    assert "need 192" in finding.message and "4 x g5.12xlarge (48 vCPUs) on-demand" in finding.message


def test_quota_from_an_aws_cli_file(tmp_path: Path) -> None:
    quota_file = tmp_path / "p" / "quotas.json"
    quota_file.parent.mkdir(parents=True)
    quota_file.write_text(
        '{"Quotas": [{"QuotaCode": "L-417A185B", "QuotaName": "Running On-Demand P instances", "Value": 96.0}]}'
    )
    config = (
        "  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  gpufleet:quotas:\n    aws:us-east-1: {file: quotas.json}\n"
    )
    finding = only(judge(tmp_path, "p4d.24xlarge", config), "GF-FIT-001")
    assert "L-417A185B" in finding.message and "need 192" in finding.message


def test_enough_quota_is_no_finding(tmp_path: Path) -> None:
    config = (
        "  t:cidrs: [10.0.0.0/24]\n  t:max: 4\n  gpufleet:quotas:\n    aws:us-east-1: {L-DB2E81BA: 192}\n"
    )
    assert [f for f in judge(tmp_path, "g5.12xlarge", config) if f.rule_id == "GF-FIT-001"] == []


def test_500_instances_in_two_slash_26_subnets(tmp_path: Path) -> None:
    config = "  t:cidrs: [10.0.0.0/26, 10.0.0.64/26]\n  t:max: 500\n"
    finding = only(judge(tmp_path, "g4dn.xlarge", config), "GF-FIT-002")
    assert finding.enforcement == "mandatory"
    assert "may need 500 private addresses" in finding.message
    assert "subnets hold 118 usable" in finding.message  # 2 x (64 - 5)
    assert "10.0.0.0/26 (59)" in finding.message


def test_efa_interfaces_take_an_address_each(tmp_path: Path) -> None:
    config = "  t:cidrs: [10.0.0.0/24]\n  t:max: 130\n  t:interfaces: [efa, interface, efa-only]\n"
    finding = only(judge(tmp_path, "p4d.24xlarge", config), "GF-FIT-002")
    assert "max 130 x 3 network interfaces, 1 of them EFA = 260" in finding.message


@pytest.mark.parametrize("env", ["prod", "dev"])
def test_g5g_from_an_x86_image(tmp_path: Path, env: str) -> None:
    image = "resolve:ssm:/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id"
    config = f"  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:env: {env}\n  t:image: {image}\n"
    finding = only(judge(tmp_path, "g5g.xlarge", config), "GF-FIT-003")
    assert finding.enforcement == "mandatory"
    assert (
        "boots a x86_64 image (imageId 'resolve:ssm:/aws/service/deeplearning/ami/x86_64/" in finding.message
    )
    assert "on g5g.xlarge, which is arm64" in finding.message


def test_arm_image_on_arm_type_is_fine(tmp_path: Path) -> None:
    image = "resolve:ssm:/aws/service/deeplearning/ami/arm64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id"
    config = f"  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:image: {image}\n"
    assert [f for f in judge(tmp_path, "g5g.xlarge", config) if f.rule_id == "GF-FIT-003"] == []


def test_model_does_not_fit_the_gpu(tmp_path: Path) -> None:
    config = '  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:tags: {"gpufleet:fit": "model=llama-7b-inference"}\n'
    finding = only(judge(tmp_path, "g4dn.xlarge", config), "GF-FIT-004")
    assert finding.enforcement == "mandatory"
    assert "needs 24 GiB for llama-7b-inference of GPU memory per instance" in finding.message
    assert "g4dn.xlarge 16 GiB (1 x T4)" in finding.message


def test_distributed_pool_on_a_slow_type_without_efa_or_placement(tmp_path: Path) -> None:
    config = '  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:tags: {"gpufleet:fit": "model_memory_gib=20,distributed=true"}\n'
    finding = only(judge(tmp_path, "g5.xlarge", config), "GF-FIT-005")
    assert finding.enforcement == "advisory"
    assert "under a sustained 10 Gbps: g5.xlarge (up to 10 Gbps)" in finding.message
    assert "no placement group" in finding.message


def test_dev_pool_over_the_instance_ceiling(tmp_path: Path) -> None:
    config = "  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:env: dev\n"
    finding = only(judge(tmp_path, "g4dn.4xlarge", config), "GF-FIT-006")
    assert "over the dev ceiling of 5 CNY/h for T4" in finding.message
    assert "on-demand" in finding.message


def test_arm64_image_on_an_x86_type(tmp_path: Path) -> None:
    image = "resolve:ssm:/aws/service/deeplearning/ami/arm64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id"
    config = f"  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:image: {image}\n"
    finding = only(judge(tmp_path, "g5.xlarge", config), "GF-FIT-003")
    assert "boots a arm64 image (imageId 'resolve:ssm:/aws/service/deeplearning/ami/arm64/" in finding.message
    assert "on g5.xlarge, which is x86_64: the launch is refused" in finding.message


def test_bare_ami_id_from_the_image_table_in_the_stack(tmp_path: Path) -> None:
    config = (
        "  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:image: ami-0a1b2c3d4e5f60718\n"
        "  gpufleet:images: {ami-0a1b2c3d4e5f60718: x86_64}\n"
    )
    finding = only(judge(tmp_path, "g5g.2xlarge", config), "GF-FIT-003")
    assert (
        "boots a x86_64 image (imageId 'ami-0a1b2c3d4e5f60718', x86_64 in gpufleet:images on 'lt') on "
        "g5g.2xlarge, which is arm64" in finding.message
    )


def test_bare_ami_id_from_describe_images_output(tmp_path: Path) -> None:
    # `aws ec2 describe-images --image-ids ami-0a1b2c3d4e5f60718 --output json`
    answer = (
        '{"Images": [{"ImageId": "ami-0a1b2c3d4e5f60718", "Architecture": "arm64", "Name": "team-dl-al2023",'
        ' "State": "available", "RootDeviceType": "ebs", "VirtualizationType": "hvm"}]}'
    )
    (tmp_path / "p").mkdir(parents=True)
    (tmp_path / "p" / "images.json").write_text(answer)
    config = (
        "  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:image: ami-0a1b2c3d4e5f60718\n"
        "  gpufleet:images: {file: images.json}\n"
    )
    finding = only(judge(tmp_path, "g6.xlarge", config), "GF-FIT-003")
    assert "boots a arm64 image (imageId 'ami-0a1b2c3d4e5f60718', arm64 in gpufleet:images" in finding.message
    assert "on g6.xlarge, which is x86_64" in finding.message


def test_bare_ami_id_not_in_the_table_is_not_judged(tmp_path: Path) -> None:
    config = "  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:image: ami-0a1b2c3d4e5f60718\n"
    assert [f for f in judge(tmp_path, "g5g.xlarge", config) if f.rule_id == "GF-FIT-003"] == []


def test_an_image_table_entry_of_another_architecture_is_refused(tmp_path: Path) -> None:
    from gpufleet.policy_config import PolicyConfigError

    config = "  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  gpufleet:images: {ami-0a1b2c3d4e5f60718: sparc}\n"
    with pytest.raises(PolicyConfigError) as raised:
        judge(tmp_path, "g5.xlarge", config)
    assert (
        "gpufleet:images.ami-0a1b2c3d4e5f60718: architecture must be one of x86_64, arm64, got 'sparc'"
        in str(raised.value)
    )


def test_distributed_p4d_without_efa_in_a_spread_placement_group(tmp_path: Path) -> None:
    program = _lt_types("p4d.24xlarge").replace(
        '    "gpu",\n    min_size=0,',
        '    "gpu",\n    placement_group=aws.ec2.PlacementGroup("pg", strategy="spread").id,\n    min_size=0,',
    )
    assert "placement_group=" in program
    config = '  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n  t:tags: {"gpufleet:fit": "distributed=true"}\n'
    root = write_project(tmp_path / "p", program, stacks={"prod": _stack(config)})
    findings = evaluate_stack(run_program(root, "prod"), POLICIES, {}, project_root=root).violations
    finding = only(findings, "GF-FIT-005")
    assert "no EFA interface although p4d.24xlarge take one" in finding.message
    assert "placement group 'pg' of strategy spread, not cluster" in finding.message
    assert "under a sustained" not in finding.message  # 400 Gbps


@pytest.mark.parametrize(
    ("lookup", "told"),
    [
        (
            'aws.ec2.get_ami(most_recent=True, owners=["amazon"], filters=[aws.ec2.GetAmiFilterArgs(name="architecture", values=["x86_64"])]).id',
            "by the ec2.getAmi lookup",
        ),
        (
            'aws.ec2.get_ami(most_recent=True, owners=["amazon"], filters=[aws.ec2.GetAmiFilterArgs(name="name", values=["Deep Learning Base OSS Nvidia Driver GPU AMI (Amazon Linux 2023) x86_64*"])]).id',
            "by the ec2.getAmi lookup",
        ),
        (
            'aws.ssm.get_parameter(name="/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id").value',
            "by the ssm.getParameter /aws/service/deeplearning/ami/x86_64/",
        ),
    ],
)
def test_x86_image_looked_up_in_the_program_on_g5g(tmp_path: Path, lookup: str, told: str) -> None:
    program = _lt_types("g5g.xlarge").replace(
        'image_id=cfg.get("image") or "ami-0123456789abcdef0"', f"image_id={lookup}"
    )
    assert lookup in program
    config = "  t:cidrs: [10.0.0.0/24]\n  t:max: 2\n"
    root = write_project(tmp_path / "p", program, stacks={"prod": _stack(config)})
    findings = evaluate_stack(run_program(root, "prod"), POLICIES, {}, project_root=root).violations
    finding = only(findings, "GF-FIT-003")
    assert "boots a x86_64 image (imageId 'ami-" in finding.message and told in finding.message
    assert "on g5g.xlarge, which is arm64: the launch is refused" in finding.message
