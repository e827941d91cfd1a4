"""A small fixed catalogue, so the expected figures can be worked out by hand."""

from __future__ import annotations

from typing import Any

from gpufleet.components.catalog import Catalog, parse_catalog

DATE = "2026-01-15"
CNY_SOURCE = "https://example.test/cny-price-list"
USD_SOURCE = "https://example.test/usd-price-list"


def catalog_data() -> dict[str, Any]:
    return {
        "rates": {"per_usd": {"USD": 1.0, "CNY": 7.5}, "date": DATE, "source": "https://example.test/rates"},
        "instance_types": [
            # An A10G-class instance at 15 CNY an hour, spot half price.
            {"cloud": "alicloud", "name": "ecs.gn7i-c8g1.2xlarge", "family": "gn7i",
             "gpu_model": "NVIDIA A10",
             "gpu_class": "A10", "gpu_count": 1, "vram_gib": 24, "vcpu": 8, "memory_gib": 30,
             "spot_discount": 0.5,
             "on_demand": {"currency": "CNY", "date": DATE, "source": CNY_SOURCE, "confirmed": False,
                           "regions": {"cn-hangzhou": 15.0}}},
            # A round 1 USD an hour type, spot at 0.4 USD.
            {"cloud": "aws", "name": "g5.2xlarge", "family": "g5", "gpu_model": "NVIDIA A10G",
             "gpu_class": "A10G",
             "gpu_count": 1, "vram_gib": 24, "vcpu": 8, "memory_gib": 32, "spot_discount": 0.6,
             "on_demand": {"currency": "USD", "date": DATE, "source": USD_SOURCE,
                           "regions": {"us-east-1": 1.0, "eu-west-1": 1.2}}},
            {"cloud": "aws", "name": "g6.2xlarge", "family": "g6", "gpu_model": "NVIDIA L4",
             "gpu_class": "L4",
             "gpu_count": 1, "vram_gib": 24, "vcpu": 8, "memory_gib": 32, "spot_discount": 0.5,
             "on_demand": {"currency": "USD", "date": DATE, "source": USD_SOURCE,
                           "regions": {"us-east-1": 0.8}}},
            {"cloud": "aws", "name": "p4d.24xlarge", "family": "p4d", "gpu_model": "NVIDIA A100 40GB",
             "gpu_class": "A100", "gpu_count": 8, "vram_gib": 40, "vcpu": 96, "memory_gib": 1152,
             "spot_discount": 0.7,
             "on_demand": {"currency": "USD", "date": DATE, "source": USD_SOURCE,
                           "regions": {"us-east-1": 30.0}},
             "purchase": {"amount": 216000, "currency": "USD", "date": DATE, "source": USD_SOURCE}},
            {"cloud": "tencentcloud", "name": "GN7.2XLARGE32", "family": "GN7", "gpu_model": "NVIDIA T4",
             "gpu_class": "T4", "gpu_count": 1, "vram_gib": 16, "vcpu": 8, "memory_gib": 32,
             "spot_discount": 0.6,
             "on_demand": {"currency": "CNY", "date": DATE, "source": CNY_SOURCE, "confirmed": False,
                           "regions": {"ap-guangzhou": 9.0}}},
        ],
        "purchase_formula": {"currency": "USD", "date": DATE, "source": USD_SOURCE, "confirmed": False,
                             "gpu_street_prices": {"A10": 3000, "A10G": 3000, "L4": 2000, "T4": 2000},
                             "host_price": 6000},
        "services": {
            "aws": {"currency": "USD", "region": "us-east-1", "date": DATE, "source": USD_SOURCE,
                    "block_gib_month": 0.1, "nat_gateway_hour": 0.05, "vpn_connection_hour": 0.05,
                    "transfer_out_gib": 0.09, "transfer_inter_region_gib": 0.02,
                    "object_gib_month": {"STANDARD": 0.02, "STANDARD_IA": 0.01},
                    # Intelligent-Tiering's tiers, each distinct from STANDARD so a test sees which applied.
                    "intelligent_tiering_gib_month": {"frequent": 0.018, "infrequent": 0.01,
                                                      "archive_instant": 0.004},
                    "unconfirmed": ["transfer_inter_region_gib"]},
            "alicloud": {"currency": "CNY", "region": "cn-hangzhou", "date": DATE, "source": CNY_SOURCE,
                         "confirmed": False, "block_gib_month": 0.5, "nat_gateway_hour": 0.4,
                         "object_gib_month": {"Standard": 0.12, "IA": 0.08}},
        },
    }  # fmt: skip


def small_catalog() -> Catalog:
    return parse_catalog(catalog_data())
