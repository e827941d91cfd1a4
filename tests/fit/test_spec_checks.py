"""The fleet spec's launch and fit checks on every cloud: each shipped single-cloud stack, changed the way a
user would change it, runs offline through this project's program and is judged by the GF-FIT rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpufleet.engine import run_program
from gpufleet.evaluate import Finding, evaluate_stack
from gpufleet.policies.fit import POLICIES
from tests.cli.helpers import ROOT, copy_project


def _edit(text: str, *, fit: str | None = None, quotas: str | None = None, ceiling: float | None = None,
          max_size: int | None = None, types: str | None = None) -> str:  # fmt: skip
    if fit is not None:
        text, count = re.subn(
            r"(?m)^(\s+)(instance_types: \[[^\]]*\])", rf"\1\2\n\1fit: {fit}", text, count=1
        )
        assert count == 1
    if types is not None:
        text, count = re.subn(r"(?m)^(\s+instance_types: )\[[^\]]*\]", rf"\1{types}", text, count=1)
        assert count == 1
    if max_size is not None:
        text, count = re.subn(
            r"size: \{min: 0, max: 4\}", f"size: {{min: 0, max: {max_size}}}", text, count=1
        )
        assert count == 1
    if ceiling is not None:
        text, count = re.subn(r"budget: \{", f"budget: {{instance_ceiling: {ceiling}, ", text, count=1)
        assert count == 1
    if quotas is not None:
        text = text.replace("\nconfig:\n", f"\nconfig:\n  gpufleet:quotas: {quotas}\n", 1)
    return text


def judge(tmp_path: Path, stack: str, **edits: object) -> dict[str, list[Finding]]:
    text = _edit((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text(), **edits)  # type: ignore[arg-type]
    root = copy_project(tmp_path / "p", {stack: text})
    result = evaluate_stack(run_program(root, stack), POLICIES, {}, project_root=root)
    found: dict[str, list[Finding]] = {}
    for finding in result.violations:
        found.setdefault(finding.rule_id, []).append(finding)
    return found


@pytest.mark.parametrize("stack", ["dev", "cn-dev", "tc-dev", "prod", "hybrid"])
def test_shipped_stacks_have_no_mandatory_fit_finding(tmp_path: Path, stack: str) -> None:
    root = copy_project(tmp_path / "p")
    result = evaluate_stack(run_program(root, stack), POLICIES, {}, project_root=root)
    assert [f for f in result.violations if f.enforcement == "mandatory"] == []


def test_aws_spec_g5g_on_the_default_image_model_and_quota(tmp_path: Path) -> None:
    found = judge(
        tmp_path,
        "dev",
        fit="{model: llama-7b-inference}",
        quotas='{"aws:us-east-1": {L-3819A6DF: 8}}',
    )
    assert "needs 24 GiB for llama-7b-inference" in found["GF-FIT-004"][0].message
    assert "g4dn.xlarge 16 GiB" in found["GF-FIT-004"][0].message
    assert "L-3819A6DF (All G and VT Spot Instance Requests) allows 8 vCPUs; the pools need 16" in (
        found["GF-FIT-001"][0].message
    )
    arm = judge(tmp_path / "arm", "dev", types="[g5g.xlarge, g5g.2xlarge]")
    assert "boots a x86_64 image (its tag gpufleet:image-arch=x86_64" in arm["GF-FIT-003"][0].message
    assert arm["GF-FIT-003"][0].enforcement == "mandatory"


def test_alicloud_spec_memory_quota_ceiling_and_vswitch(tmp_path: Path) -> None:
    found = judge(
        tmp_path,
        "cn-dev",
        fit="{model_memory_gib: 40, distributed: true}",
        quotas='{"alicloud:cn-hangzhou": {max-spot-instance-vcpu-count: 8}}',
        ceiling=1,
    )
    assert "ecs.gn7i-c8g1.2xlarge 24 GiB (1 x A10)" in found["GF-FIT-004"][0].message
    assert (
        "alicloud:cn-hangzhou quota max-spot-instance-vcpu-count (Alibaba Cloud preemptible instance "
        "vCPUs) allows 8 vCPUs; the pools need 32"
    ) in (found["GF-FIT-001"][0].message)
    assert "over the dev ceiling of 1 CNY/h" in found["GF-FIT-006"][0].message
    assert "GF-FIT-005" not in found  # 16 Gbps sustained: enough; Alibaba has no EFA or placement check
    big = judge(tmp_path / "big", "cn-dev", max_size=10000)
    assert "may need 10000 private addresses" in big["GF-FIT-002"][0].message


def test_tencent_spec_memory_quota_and_subnets(tmp_path: Path) -> None:
    found = judge(
        tmp_path,
        "tc-dev",
        fit="{model: llama-7b-inference}",
        quotas='{"tencentcloud:ap-guangzhou": {SpotPaidQuotaSet: 3}}',
        max_size=10000,
    )
    assert "GN7.2XLARGE32 16 GiB (1 x T4)" in found["GF-FIT-004"][0].message
    assert (
        "tencentcloud:ap-guangzhou quota SpotPaidQuotaSet (Tencent Cloud spot instances) allows 3 "
        "instances; the pools need 10000"
    ) in found["GF-FIT-001"][0].message
    assert "may need 10000 private addresses" in found["GF-FIT-002"][0].message


def test_unknown_model_is_a_spec_error(tmp_path: Path) -> None:
    from gpufleet.cli.common import BadInput
    from gpufleet.cli.fleet_view import load_fleet

    text = _edit((ROOT / "stacks" / "Pulumi.dev.yaml").read_text(), fit="{model: gpt-5}")
    root = copy_project(tmp_path / "p", {"dev": text})
    with pytest.raises(BadInput) as raised:
        load_fleet(root, "dev")
    assert "unknown model 'gpt-5'" in str(raised.value) + str(getattr(raised.value, "details", ""))


def _add_pool_line(text: str, line: str) -> str:
    text, count = re.subn(r"(?m)^(\s+)(instance_types: \[[^\]]*\].*)$", rf"\1\2\n\1{line}", text, count=1)
    assert count == 1
    return text


def test_aws_spec_pinned_ami_from_the_image_table(tmp_path: Path) -> None:
    text = _edit((ROOT / "stacks" / "Pulumi.dev.yaml").read_text(), types="[g5g.xlarge]")
    text = _add_pool_line(text, "image: {ami: ami-0a1b2c3d4e5f60718}")
    text = text.replace("\nconfig:\n", "\nconfig:\n  gpufleet:images: {ami-0a1b2c3d4e5f60718: x86_64}\n", 1)
    root = copy_project(tmp_path / "p", {"dev": text})
    result = evaluate_stack(run_program(root, "dev"), POLICIES, {}, project_root=root)
    [finding] = [f for f in result.violations if f.rule_id == "GF-FIT-003"]
    assert (
        "boots a x86_64 image (imageId 'ami-0a1b2c3d4e5f60718', x86_64 in gpufleet:images" in finding.message
    )
    assert "on g5g.xlarge, which is arm64" in finding.message


def test_aws_spec_pinned_ssm_parameter_of_the_other_architecture(tmp_path: Path) -> None:
    text = _edit((ROOT / "stacks" / "Pulumi.dev.yaml").read_text(), types="[g5.xlarge]")
    text = _add_pool_line(
        text,
        "image: {ssm_parameter: "
        "/aws/service/deeplearning/ami/arm64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id:3}",
    )
    root = copy_project(tmp_path / "p", {"dev": text})
    result = evaluate_stack(run_program(root, "dev"), POLICIES, {}, project_root=root)
    [finding] = [f for f in result.violations if f.rule_id == "GF-FIT-003"]
    assert "boots a arm64 image (imageId 'resolve:ssm:/aws/service/deeplearning/ami/arm64/" in finding.message
    assert "on g5.xlarge, which is x86_64" in finding.message


def test_aws_spec_distributed_subnets_and_ceiling(tmp_path: Path) -> None:
    # A /22 VPC: private subnets of a few hundred addresses, for up to 600 instances.
    text = (
        (ROOT / "stacks" / "Pulumi.dev.yaml")
        .read_text()
        .replace("vpc_cidr: 10.40.0.0/16", "vpc_cidr: 10.40.0.0/22")
    )
    text = _edit(text, fit="{model_memory_gib: 12, distributed: true}", ceiling=0.1, max_size=600)
    root = copy_project(tmp_path / "p", {"dev": text})
    found: dict[str, list[Finding]] = {}
    for finding in evaluate_stack(run_program(root, "dev"), POLICIES, {}, project_root=root).violations:
        found.setdefault(finding.rule_id, []).append(finding)
    distributed = found["GF-FIT-005"][0].message
    assert found["GF-FIT-005"][0].enforcement == "advisory"
    assert "is declared distributed (pools.experiments.fit)" in distributed
    assert "under a sustained 10 Gbps: g5.xlarge (up to 10 Gbps)" in distributed
    assert "no placement group" in distributed
    subnets = found["GF-FIT-002"][0].message
    assert "may need 600 private addresses" in subnets and "subnets hold " in subnets
    ceiling = found["GF-FIT-006"][0].message
    assert (
        "g4dn.xlarge at 0.19 USD/h spot (spot 0.19, on-demand 0.53) over the dev ceiling of 0.10 USD/h for T4"
        in (ceiling)
    )


def test_tencent_spec_distributed_and_ceiling(tmp_path: Path) -> None:
    found = judge(tmp_path, "tc-dev", fit="{model_memory_gib: 12, distributed: true}", ceiling=1)
    assert "under a sustained 10 Gbps: GN7.2XLARGE32 (3 Gbps)" in found["GF-FIT-005"][0].message
    assert "over the dev ceiling of 1 CNY/h for T4" in found["GF-FIT-006"][0].message


@pytest.mark.parametrize(
    ("stack", "image", "source", "types"),
    [
        (
            "cn-dev",
            "{id: m-bp1g7004ksh0oeuc1234, arch: arm64}",
            "gpufleet-cn-dev-cn-hangzhou-pool-a10-dev",
            "ecs.gn7i-c8g1.2xlarge",
        ),
        (
            "tc-dev",
            "{id: img-eb30mz89, arch: arm64}",
            "gpufleet-tc-dev-tencentcloud-ap-guangzhou-pool-t4-dev",
            "GN7.2XLARGE32",
        ),
    ],
)
def test_china_spec_named_arm_image_on_an_x86_type(
    tmp_path: Path, stack: str, image: str, source: str, types: str
) -> None:
    """An Alibaba or Tencent pool naming an arm64 image by a bare id: the launch template / configuration
    carries gpufleet:image-arch, and GF-FIT-003 refuses the x86_64 GPU type."""
    text = _add_pool_line((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text(), f"image: {image}")
    root = copy_project(tmp_path / "p", {stack: text})
    result = evaluate_stack(run_program(root, stack), POLICIES, {}, project_root=root)
    found = sorted((f.message, f.enforcement) for f in result.violations if f.rule_id == "GF-FIT-003")
    # tc-dev's pool is all spot: one AS group, the spot one.
    groups = ["-group"] if stack == "cn-dev" else ["-spot"]
    kind = "ESS scaling group" if stack == "cn-dev" else "AS scaling group"
    launch = "-template" if stack == "cn-dev" else "-config"
    assert found == [
        (
            f"{kind} '{source}{group}' boots a arm64 image (its tag gpufleet:image-arch=arm64 on "
            f"'{source}{group.replace('-group', '')}{launch}') on {types}, which is x86_64: the launch is "
            "refused",
            "mandatory",
        )
        for group in groups
    ]
