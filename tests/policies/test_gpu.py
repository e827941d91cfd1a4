from __future__ import annotations

from dataclasses import dataclass

import pytest

from gpufleet.policies.gpu import cloud_of, gpu_class_of, is_gpu_ami_type, is_gpu_type, use_catalog


@dataclass(frozen=True)
class _Type:
    gpu_class: str
    gpu_count: int


class _Catalog:
    def __init__(self, types: dict[tuple[str, str], _Type]) -> None:
        self.types = types

    def find(self, cloud: str, name: str) -> _Type | None:
        return self.types.get((cloud, name))

    def convert(self, amount: float, from_cur: str, to_cur: str) -> float:
        return amount


@pytest.mark.parametrize(
    ("cloud", "name", "expected"),
    [
        ("aws", "g4dn.xlarge", (True, "T4", "family")),
        ("aws", "g5g.xlarge", (True, "T4G", "family")),
        ("aws", "gr6.4xlarge", (True, "L4", "family")),
        ("aws", "p4de.24xlarge", (True, "A100", "family")),
        ("aws", "p6-b200.48xlarge", (True, "B200", "family")),
        ("aws", "g2.2xlarge", (True, None, "family")),
        ("aws", "trn1.32xlarge", (False, None, "none")),
        ("aws", "inf2.xlarge", (False, None, "none")),
        ("aws", "dl1.24xlarge", (False, None, "none")),
        ("aws", "m5.large", (False, None, "none")),
        ("alicloud", "ecs.gn7i-c8g1.2xlarge", (True, "A10", "family")),
        ("alicloud", "ecs.sccgn7ex.32xlarge", (True, None, "family")),
        ("alicloud", "ecs.vgn6i-m4.xlarge", (True, None, "family")),
        ("alicloud", "ecs.egn6e-vws.xlarge", (True, None, "family")),
        ("alicloud", "ecs.ebmgi6s.26xlarge", (True, None, "family")),
        ("alicloud", "ecs.g7.large", (False, None, "none")),
        ("tencentcloud", "GN7.2XLARGE32", (True, "T4", "family")),
        ("tencentcloud", "gnv4.3xlarge44", (True, "A10", "family")),
        ("tencentcloud", "HCCPNV4h.32XLARGE1929", (True, None, "family")),
        ("tencentcloud", "HCCG5v.32XLARGE", (True, None, "family")),
        ("tencentcloud", "BMGNV4.24XLARGE", (True, None, "family")),
        ("tencentcloud", "S5.MEDIUM4", (False, None, "none")),
        ("kubernetes", "g5.xlarge", (False, None, "none")),
    ],
)
def test_family_prefixes(cloud: str, name: str, expected: tuple[bool, str | None, str]) -> None:
    assert gpu_class_of(cloud, name) == expected


def test_the_catalogue_is_authoritative() -> None:
    catalog = _Catalog({("aws", "g5.2xlarge"): _Type("A10G", 1), ("aws", "p9.big"): _Type("", 0)})
    assert gpu_class_of("aws", "g5.2xlarge", catalog) == (True, "A10G", "catalogue")
    # A listed type without GPUs is not a GPU type even though its family prefix looks like one.
    assert gpu_class_of("aws", "p9.big", catalog) == (False, "", "catalogue")
    with use_catalog(catalog):
        assert is_gpu_type("aws", "g5.2xlarge")
        assert not is_gpu_type("aws", "p9.big")
        assert is_gpu_type("aws", "p5.48xlarge")


@pytest.mark.parametrize("value", [None, "", 8, ["g5.xlarge"]])
def test_is_gpu_type_rejects_what_is_not_a_type_name(value: object) -> None:
    assert not is_gpu_type("aws", value)


def test_gpu_ami_types_and_clouds() -> None:
    assert is_gpu_ami_type("AL2_x86_64_GPU")
    assert is_gpu_ami_type("AL2023_x86_64_NVIDIA")
    assert is_gpu_ami_type("BOTTLEROCKET_x86_64_NVIDIA")
    assert not is_gpu_ami_type("AL2023_x86_64_STANDARD")
    assert not is_gpu_ami_type(None)
    assert cloud_of("tencentcloud:Instance/instance:Instance") == "tencentcloud"
    assert cloud_of("aws:ec2/instance:Instance") == "aws"
