"""The catalogue's families block: architecture, EFA and network bandwidth per type."""

from __future__ import annotations

import pytest

from gpufleet.components.catalog import CatalogError, load_catalog, parse_catalog
from gpufleet.components.catalog.workloads import MODEL_MEMORY_GIB


def test_g5g_is_arm64_and_the_rest_x86() -> None:
    catalog = load_catalog()
    assert {t.arch for t in catalog.types("aws") if t.family == "g5g"} == {"arm64"}
    assert {t.arch for t in catalog.types() if t.family != "g5g"} == {"x86_64"}


def test_efa_and_bandwidth_per_size() -> None:
    catalog = load_catalog()
    small = catalog.get("aws", "g5.xlarge")
    assert (small.efa, small.network_gbps, small.network_burst) == (False, 10.0, True)
    assert small.network_text == "up to 10 Gbps"
    big = catalog.get("aws", "g5.12xlarge")
    assert (big.efa, big.network_gbps, big.network_burst) == (True, 40.0, False)
    assert catalog.get("aws", "p4d.24xlarge").efa
    assert catalog.get("alicloud", "ecs.gn7i-c8g1.2xlarge").network_gbps == 16.0


def test_every_aws_type_has_a_bandwidth() -> None:
    missing = [t.name for t in load_catalog().types("aws") if t.network_gbps is None]
    assert missing == []


def _minimal(families: object) -> dict[str, object]:
    return {
        "rates": {"per_usd": {"USD": 1, "CNY": 7.2}, "date": "d", "source": "s"},
        "instance_types": [
            {
                "cloud": "aws", "name": "g5g.xlarge", "family": "g5g", "gpu_model": "T4g", "gpu_class": "T4G",
                "gpu_count": 1, "vram_gib": 16, "vcpu": 4, "memory_gib": 8, "spot_discount": 0.5,
                "on_demand": {"currency": "USD", "source": "s", "date": "d", "regions": {"us-east-1": 0.42}},
            }
        ],
        "families": families,
    }  # fmt: skip


def test_bad_families_are_named() -> None:
    with pytest.raises(CatalogError, match=r"families.aws.g5g.arch"):
        parse_catalog(_minimal({"aws": {"g5g": {"arch": "sparc"}}}))
    with pytest.raises(CatalogError, match=r"families.aws.g5g.network.xlarge"):
        parse_catalog(_minimal({"aws": {"g5g": {"network": {"xlarge": "fast"}}}}))
    parsed = parse_catalog(_minimal({"aws": {"g5g": {"arch": "arm64", "network": {"xlarge": "up to 10"}}}}))
    assert parsed.get("aws", "g5g.xlarge").arch == "arm64"


def test_model_table_seed() -> None:
    assert MODEL_MEMORY_GIB == {"resnet-50": 8.0, "bert-base": 16.0, "llama-7b-inference": 24.0}
