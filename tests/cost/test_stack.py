"""The graph adapter: pools found in a program run, the spec's usage overlaid, third-party programs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.advise import advise_stack
from gpufleet.cost import CostError, cost_block, estimate_stack, render_text
from gpufleet.engine import run_program
from gpufleet.graph import Resource, ResourceGraph
from tests.cost.helpers import small_catalog

REPO = Path(__file__).resolve().parents[2]
CATALOG = small_catalog()

DEV_STACK = """\
config:
  aws:region: us-east-1
  gpufleet:fleet:
    environment: dev
    tags: {project: vision, team: ml-platform, cost-center: cc-042}
    budget: {monthly: 20000, currency: USD, alert_percent: 80}
    pools:
      train:
        instance_types: [g5.2xlarge]
        workload: {image_reads_queue: true}
        size: {min: 1, max: 8}
        spot_percent: 50
        on_demand_base: 1
        disk_gib: 100
        usage: {hours_per_day: 10, average_size: 4}
      experiments:
        instance_types: [g6.2xlarge, g5.2xlarge]
        workload: {image_reads_queue: true}
        size: {min: 0, max: 40}
        spot_percent: 100
        off_hours: {timezone: Asia/Shanghai, scale_to_zero: "20:00-08:00", weekends: true}
"""


@pytest.fixture(scope="module")
def dev_graph(tmp_path_factory: pytest.TempPathFactory) -> ResourceGraph:
    project = tmp_path_factory.mktemp("fleet")
    (project / "Pulumi.yaml").write_text(
        "name: gpufleet\nruntime: python\nmain: infra/\nstackConfigDir: stacks\n"
    )
    (project / "infra").symlink_to(REPO / "infra")
    (project / "stacks").mkdir()
    (project / "stacks" / "Pulumi.dev.yaml").write_text(DEV_STACK)
    return run_program(project, "dev")


def test_our_program_priced_with_the_spec_usage(dev_graph: ResourceGraph) -> None:
    report = estimate_stack(dev_graph, catalog=CATALOG)
    assert report.basis == "graph+spec"
    lines = {line.pool: line for line in report.pools}
    assert set(lines) == {"train", "experiments"}
    train = lines["train"]
    # Matched by the gpufleet:pool tag; 50% spot above the on-demand base of 1 (not the pool-wide 43.75%).
    assert not any("logical name" in note for note in train.notes)
    assert train.spot_percent == pytest.approx(50.0)
    # 8 instances: 1 + 3.5 on demand at 1.0, 3.5 spot at 0.4.
    assert train.hourly_max == pytest.approx(4.5 + 3.5 * 0.4)
    # 4 instances for 300 h (2.5 x 1.0 + 1.5 x 0.4 = 3.1 an hour), 1 on demand for the other 430 h.
    assert train.monthly_estimate == pytest.approx(3.1 * 300 + 1.0 * 430)
    experiments = lines["experiments"]
    assert experiments.instance_type == "g5.2xlarge"
    assert experiments.scheduled_hours == pytest.approx(730 * 60 / 168)
    assert experiments.monthly_estimate == pytest.approx(40 * 0.4 * 730 * 60 / 168)
    assert experiments.schedule == "stop '0 20 * * *'; start '0 8 * * 1-5'"
    volume = next(o for o in report.other if o.key == "volume:train")
    assert volume.monthly_estimate == pytest.approx(100 * 0.1 * (4 * 300 + 430) / 730)
    block = cost_block(report)
    assert block["currency"] == "USD" and block["budget"] == 20000.0
    assert block["monthly_estimate"] == round(report.monthly_estimate, 2)
    # The stack gives no volumes: no bucket or transfer line, and the notes name the missing fields.
    assert not [o for o in report.other if o.kind in ("bucket", "replication", "egress", "cross-region")]
    assert (
        "checkpoint bucket storage and replication are not priced: set "
        "gpufleet:fleet.storage.checkpoints.written_gib_per_month and gpufleet:fleet.storage.datasets_gib "
        "(gpufleet-dev-storage-bucket)"
    ) in report.notes
    assert (
        "data transfer not priced where the spec gives no volume: "
        "pools.train.transfer.egress_gib_per_month, pools.train.transfer.cross_region_gib_per_month, "
        "pools.experiments.transfer.egress_gib_per_month, "
        "pools.experiments.transfer.cross_region_gib_per_month"
    ) in report.notes
    text = render_text(report)
    assert text.splitlines()[0] == "cost of stack dev (amounts in USD; basis: graph+spec)"


def test_currency_option_converts_the_whole_report(dev_graph: ResourceGraph) -> None:
    usd = estimate_stack(dev_graph, catalog=CATALOG)
    cny = estimate_stack(dev_graph, catalog=CATALOG, currency="CNY")
    assert cny.currency == "CNY"
    assert cny.monthly_estimate == pytest.approx(usd.monthly_estimate * 7.5)
    assert cny.budget is not None and cny.budget.monthly == pytest.approx(150000)
    assert [c.label() for c in cny.conversions] == [
        "1 USD = 7.5 CNY (catalogue rate of 2026-01-15, https://example.test/rates)"
    ]


def test_advice_for_our_program(dev_graph: ResourceGraph) -> None:
    rows = {row.pool: row for row in advise_stack(dev_graph, catalog=CATALOG)}
    assert rows["train"].instances == 4
    assert rows["train"].purchase_formula == "1 x A10G at 3,000 + host 6,000 USD"
    assert rows["train"].rent_monthly == pytest.approx(3.1 * 300 + 430)


# ------------------------------------------------------------------------------ hand-built graphs

ASG = "aws:autoscaling/group:Group"


def _urn(token: str, name: str) -> str:
    return f"urn:pulumi:dev::thirdparty::{token}::{name}"


def _asg(name: str, *, tags: list[dict[str, object]] | None = None, types: tuple[str, ...] = ("g5.2xlarge",),
         min_size: int = 0, max_size: int = 10) -> Resource:  # fmt: skip
    return Resource(
        urn=_urn(ASG, name), type=ASG, name=name, custom=True,
        inputs={
            "name": name, "region": "us-east-1", "minSize": min_size, "maxSize": max_size, "tags": tags or [],
            "mixedInstancesPolicy": {
                "instancesDistribution": {"onDemandBaseCapacity": 0,
                                          "onDemandPercentageAboveBaseCapacity": 100},
                "launchTemplate": {"overrides": [{"instanceType": t} for t in types]},
            },
        },
    )  # fmt: skip


def _schedule(name: str, group: str, recurrence: str, max_size: int, desired: int) -> Resource:
    token = "aws:autoscaling/schedule:Schedule"
    return Resource(
        urn=_urn(token, name), type=token, name=name, custom=True,
        inputs={"autoscalingGroupName": group, "recurrence": recurrence, "maxSize": max_size, "minSize": 0,
                "desiredCapacity": desired, "scheduledActionName": name},
    )  # fmt: skip


def test_third_party_program_estimated_from_envelope_and_schedules() -> None:
    nat = Resource(urn=_urn("aws:ec2/natGateway:NatGateway", "nat"), type="aws:ec2/natGateway:NatGateway",
                   name="nat", custom=True, inputs={"subnetId": "subnet-1"})  # fmt: skip
    graph = ResourceGraph(
        project="thirdparty", stack="dev", config={"aws:region": "us-east-1"},
        resources=[
            _asg("workers", max_size=10),
            _schedule("night", "workers", "0 20 * * *", 0, 0),
            _schedule("morning", "workers", "0 8 * * *", 10, 0),
            nat,
        ],
    )  # fmt: skip
    report = estimate_stack(graph, catalog=CATALOG)
    assert report.basis == "graph"
    assert report.notes[1].startswith("no gpufleet:fleet spec: every pool is estimated at its maximum size")
    (line,) = report.pools
    assert line.pool == "workers"
    # Every night off: 12 h a day, 7 days; 10 on-demand instances at 1.0 for 365 h.
    assert line.scheduled_hours == pytest.approx(365.0)
    assert line.monthly_estimate == pytest.approx(3650.0)
    (nat_line,) = report.other
    assert nat_line.key == "nat:nat"
    assert nat_line.monthly_estimate == pytest.approx(0.05 * 730)
    assert cost_block(report)["budget"] is None


def test_spec_pool_matched_by_logical_name_when_untagged() -> None:
    spec = json.loads(json.dumps({
        "environment": "dev", "tags": {"project": "p", "team": "t", "cost-center": "c"},
        "budget": {"monthly": 100, "currency": "CNY"},
        "pools": {"train": {"workload": {"image_reads_queue": True},
                            "instance_types": ["g5.2xlarge"], "size": {"max": 10},
                            "usage": {"hours_per_day": 5, "average_size": 2}}},
    }))  # fmt: skip
    graph = ResourceGraph(
        project="p", stack="dev", config={"aws:region": "us-east-1", "gpufleet:fleet": json.dumps(spec)},
        resources=[_asg("acme-pool-train-asg")],
    )  # fmt: skip
    report = estimate_stack(graph, catalog=CATALOG)
    (line,) = report.pools
    assert line.pool == "train"
    assert "matched to spec pool train by logical name acme-pool-train-asg" in line.notes
    assert report.currency == "CNY"
    assert line.monthly_estimate == pytest.approx(2 * 150 * 1.0 * 7.5)


def test_bad_usage_profile_in_the_stack_is_a_cost_error_naming_the_file() -> None:
    spec = {
        "environment": "dev", "tags": {"project": "p", "team": "t", "cost-center": "c"},
        "budget": {"monthly": 100, "currency": "USD"},
        "pools": {"train": {"workload": {"image_reads_queue": True},
                            "instance_types": ["g5.2xlarge"], "size": {"min": 3, "max": 10},
                            "usage": {"hours_per_day": 5, "average_size": 2}}},
    }  # fmt: skip
    graph = ResourceGraph(
        project="p", stack="dev", config={"aws:region": "us-east-1", "gpufleet:fleet": spec},
        resources=[_asg("train", min_size=3, tags=[{"key": "gpufleet:pool", "value": "train"}])],
    )  # fmt: skip
    with pytest.raises(CostError) as excinfo:
        estimate_stack(graph, catalog=CATALOG)
    assert str(excinfo.value) == (
        "stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.train.usage.average_size: must be between size.min (3) "
        "and size.max (10), got 2"
    )
