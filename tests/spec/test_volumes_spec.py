"""The optional volumes the cost estimate prices: checkpoints written, datasets kept, pool transfer."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpufleet.components.spec import SpecError, Transfer, parse_fleet


def fleet() -> dict[str, Any]:
    return {
        "environment": "prod",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 60000},
        "storage": {"checkpoints": {"written_gib_per_month": 3000}, "datasets_gib": 8000.5},
        "pools": {
            "train": {
                "instance_types": ["p4d.24xlarge"],
                "size": {"max": 8},
                "workload": {"image_reads_queue": True},
                "transfer": {"egress_gib_per_month": 50, "cross_region_gib_per_month": 0},
            }
        },
    }


def _errors(raw: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as caught:
        parse_fleet(raw)
    return caught.value.errors


def test_volumes_parse_as_numbers_and_show_in_the_defaults_view() -> None:
    spec = parse_fleet(fleet())
    assert spec.storage.checkpoints.written_gib_per_month == 3000.0
    assert spec.storage.datasets_gib == 8000.5
    assert spec.pools["train"].transfer == Transfer(egress_gib_per_month=50.0, cross_region_gib_per_month=0.0)
    view = spec.defaults_view()
    assert view["pools"]["train"]["transfer"] == {
        "egress_gib_per_month": 50.0,
        "cross_region_gib_per_month": 0.0,
    }


def test_every_volume_is_optional() -> None:
    raw = fleet()
    del raw["storage"]
    del raw["pools"]["train"]["transfer"]
    spec = parse_fleet(raw)
    assert spec.storage.checkpoints.written_gib_per_month is None
    assert spec.storage.datasets_gib is None
    assert spec.pools["train"].transfer is None
    raw["pools"]["train"]["transfer"] = {"egress_gib_per_month": 5}
    assert parse_fleet(raw).pools["train"].transfer == Transfer(egress_gib_per_month=5.0)


def test_bad_volumes_are_all_reported_with_their_paths() -> None:
    raw = copy.deepcopy(fleet())
    raw["storage"]["checkpoints"]["written_gib_per_month"] = -1
    raw["storage"]["datasets_gib"] = "8 TB"
    raw["pools"]["train"]["transfer"] = {"egress_gib_per_month": float("inf"), "egress_gb": 3}
    assert _errors(raw) == [
        ("gpufleet:fleet.storage.checkpoints.written_gib_per_month", "must be >= 0, got -1"),
        ("gpufleet:fleet.storage.datasets_gib", "must be a number, got '8 TB'"),
        ("gpufleet:fleet.pools.train.transfer.egress_gib_per_month", "must be a finite number, got inf"),
        (
            "gpufleet:fleet.pools.train.transfer",
            "unknown field 'egress_gb'; did you mean 'egress_gib_per_month'? allowed: egress_gib_per_month, "
            "cross_region_gib_per_month",
        ),
    ]


def test_a_boolean_is_not_a_volume() -> None:
    raw = fleet()
    raw["pools"]["train"]["transfer"] = {"cross_region_gib_per_month": True}
    assert _errors(raw) == [
        ("gpufleet:fleet.pools.train.transfer.cross_region_gib_per_month", "must be a number, got true")
    ]
