"""`gpufleet cost` and `gpufleet advise buy-vs-rent` on this repository's stacks, checked by hand against
the GPU catalogue."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from gpufleet import cli
from gpufleet.components.catalog import load_catalog
from gpufleet.cost import (
    HOURS_PER_MONTH,
    PricedPool,
    UsageLevel,
    UsageProfile,
    pool_table,
    price_pools,
    render_text,
)
from gpufleet.engine import run_program
from gpufleet.graph import ResourceGraph
from tests.cli.helpers import ROOT, Run, copy_project, invoke
from tests.cost.helpers import small_catalog

PROD_FILE = ROOT / "stacks" / "Pulumi.prod.yaml"
DEV_FILE = ROOT / "stacks" / "Pulumi.dev.yaml"
FLEET = "gpufleet:fleet"
TRAIN = "train-a100"  # the pool the by-hand checks and the diff are about
INFERENCE = "inference-a10g"  # the pool with a two-step profile: a daytime peak and a night floor
CATALOG = load_catalog()


@pytest.fixture(scope="module", autouse=True)
def one_run_per_stack() -> Iterator[None]:
    """Each (project, stack) runs through the engine once in this module; every command reuses it."""
    runs: dict[tuple[Path, str], ResourceGraph] = {}

    def cached(
        project_dir: Path,
        stack: str,
        stack_references: Mapping[str, Mapping[str, Any]] | None = None,
        timeout: float | None = None,
    ) -> ResourceGraph:
        assert stack_references is None
        key = (Path(project_dir).resolve(), stack)
        if key not in runs:
            runs[key] = run_program(project_dir, stack, stack_references=None)
        return runs[key]

    patch = pytest.MonkeyPatch()
    patch.setattr(cli, "run_program", cached)
    yield
    patch.undo()


def _ok(run: Run) -> Run:
    assert run.exit_code == 0, run.stdout + run.stderr
    return run


def _bad(run: Run) -> str:
    """The one-paragraph error of a bad-input exit, whitespace folded as a terminal would wrap it."""
    assert run.exit_code == 2, run.stdout + run.stderr
    assert run.stderr.startswith("error: "), run.stderr
    return " ".join(run.stderr.split())


def _fleet(text: str) -> dict[str, Any]:
    fleet: dict[str, Any] = yaml.safe_load(text)["config"][FLEET]
    return fleet


def _with_fleet(text: str, fleet: Mapping[str, Any]) -> str:
    data = yaml.safe_load(text)
    data["config"][FLEET] = fleet
    return yaml.safe_dump(data, sort_keys=False)


@pytest.fixture(scope="module")
def prod_fleet() -> dict[str, Any]:
    return _fleet(PROD_FILE.read_text())


@pytest.fixture(scope="module")
def prod_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_ok(invoke("cost", str(ROOT), "-s", "prod", "--format", "json")).stdout)
    return data


def _pools(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {pool["pool"]: pool for pool in report["pools"]}


def _money(value: float) -> str:
    return f"{value:,.2f}"


def _steps(pool: Mapping[str, Any], average_size: float | None = None) -> list[tuple[float, float]]:
    """(size, hours a month) of each step of a pool's usage as the stack file writes it (around the
    clock: no prod pool has a schedule)."""
    usage = pool["usage"]
    days = float(usage.get("days_per_month", 30))
    if "profile" in usage:
        return [(float(step["size"]), step["hours_per_day"] * days) for step in usage["profile"]]
    size = float(usage["average_size"] if average_size is None else average_size)
    return [(size, usage["hours_per_day"] * days)]


def _hand_monthly(pool: Mapping[str, Any], region: str, *, average_size: float | None = None) -> float:
    """A pool's month from the stack file and the catalogue alone: price x instances x hours, the
    on-demand base on demand, spot_percent of the instances above it at the spot price; size.min for
    the hours of the 730 h month that no step covers."""
    instance_type = CATALOG.get("aws", pool["instance_types"][0])
    on_demand = instance_type.hourly(region).amount
    spot = instance_type.hourly(region, spot=True).amount
    base = float(pool.get("on_demand_base", 0))
    spot_share = float(pool.get("spot_percent", 0)) / 100

    def per_hour(size: float) -> float:
        above = size - min(size, base)
        return (size - above * spot_share) * on_demand + above * spot_share * spot

    steps = _steps(pool, average_size)
    in_use = sum(hours for _, hours in steps)
    idle = HOURS_PER_MONTH - in_use
    return sum(per_hour(size) * hours for size, hours in steps) + per_hour(pool["size"]["min"]) * idle


def _region(fleet: Mapping[str, Any], name: str) -> str:
    return str(fleet["pools"][name].get("region", "us-east-1"))


# -- cost -s prod ------------------------------------------------------------------------------------


def _table_column(text: str, first_header: str, column: str) -> dict[str, float]:
    """`row label -> figure` of one column of a plain-text table (cells are 2+ spaces apart)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{first_header} "))
    header = re.split(r"\s{2,}", lines[start])
    index = header.index(column)
    values: dict[str, float] = {}
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line)
        assert len(cells) == len(header), line
        values[cells[0]] = float(cells[index].replace(",", ""))
    return values


def test_text_shows_every_pool_and_a_total_that_adds_up(
    prod_json: dict[str, Any], prod_fleet: dict[str, Any]
) -> None:
    text = _ok(invoke("cost", str(ROOT), "-s", "prod")).stdout
    assert text.splitlines()[0] == "cost of stack prod (amounts in USD; basis: graph+spec)"
    pools = _table_column(text, "pool", "monthly est")
    assert set(pools) == set(prod_fleet["pools"])
    others = _table_column(text, "item", "monthly est")
    assert {f"volume:{name}" for name in prod_fleet["pools"]} <= set(others)
    total_line = next(line for line in text.splitlines() if line.startswith("total: "))
    match = re.search(r"monthly estimate ([\d,.]+) USD", total_line)
    assert match is not None, total_line
    total = float(match.group(1).replace(",", ""))
    lines = [*pools.values(), *others.values()]
    # Each shown line is rounded to the cent; their sum may differ from the total by that much each.
    assert total == pytest.approx(sum(lines), abs=0.005 * len(lines))
    # The text shows the JSON's figures, and the JSON's total is the sum of its lines.
    assert total == prod_json["totals"]["monthly_estimate"]
    for name, pool in _pools(prod_json).items():
        assert pools[name] == pool["monthly_estimate"]
    json_lines = [p["monthly_estimate"] for p in prod_json["pools"]]
    json_lines += [o["monthly_estimate"] for o in prod_json["other"]]
    assert total == pytest.approx(sum(json_lines), abs=0.005 * len(json_lines))
    budget = prod_json["budget"]
    used = total / budget["monthly"] * 100
    status = (
        "OVER BUDGET"
        if used > 100
        else f"above the {budget['alert_percent']}% alert"
        if used >= budget["alert_percent"]
        else "within budget"
    )
    assert (
        f"{status}: monthly estimate {_money(total)} USD is {used:.1f}% of the budget "
        f"{_money(budget['monthly'])} USD (declared {prod_fleet['budget']['monthly']} USD)"
    ) in text.splitlines()


def test_a_pool_checks_by_hand_against_the_catalogue(
    prod_json: dict[str, Any], prod_fleet: dict[str, Any]
) -> None:
    spec = prod_fleet["pools"][TRAIN]
    region = _region(prod_fleet, TRAIN)
    line = _pools(prod_json)[TRAIN]
    instance_type = CATALOG.get("aws", spec["instance_types"][0])
    assert line["instance_type"] == instance_type.name
    assert line["on_demand_price"]["amount"] == pytest.approx(instance_type.hourly(region).amount)
    assert line["spot_price"]["amount"] == pytest.approx(instance_type.hourly(region, spot=True).amount)
    # The JSON rounds to the cent: a figure on the half cent may round either way.
    assert line["monthly_estimate"] == pytest.approx(_hand_monthly(spec, region), abs=0.0051)
    # The worst hour: every instance at max, all on demand (GF-COST-007's figure).
    assert line["hourly_worst"] == pytest.approx(
        spec["size"]["max"] * instance_type.hourly(region).amount, abs=0.0001
    )
    usage = spec["usage"]
    in_use = usage["hours_per_day"] * usage.get("days_per_month", 30)
    assert line["usage_hours"] == pytest.approx(in_use)
    assert line["basis"].startswith(
        f"usage profile over {usage.get('days_per_month', 30)} days: {usage['average_size']} x "
        f"{usage['hours_per_day']} h/day ({in_use:g} h); size.min {spec['size']['min']} for the other "
        f"{HOURS_PER_MONTH - in_use:g} of 730 scheduled h"
    )


def test_the_inference_profile_checks_by_hand(prod_json: dict[str, Any], prod_fleet: dict[str, Any]) -> None:
    spec = prod_fleet["pools"][INFERENCE]
    profile = spec["usage"]["profile"]
    # A daytime peak above a night floor, both above size.min.
    assert len(profile) == 2 and profile[0]["size"] > profile[1]["size"] > spec["size"]["min"]
    line = _pools(prod_json)[INFERENCE]
    region = _region(prod_fleet, INFERENCE)
    # The JSON rounds to the cent: a figure on the half cent may round either way.
    assert line["monthly_estimate"] == pytest.approx(_hand_monthly(spec, region), abs=0.0051)
    steps = _steps(spec)
    idle = HOURS_PER_MONTH - sum(hours for _, hours in steps)
    assert [(s["label"], s["size"], s["hours"]) for s in line["steps"]] == [
        *((f"usage.profile[{i}]", size, pytest.approx(hours)) for i, (size, hours) in enumerate(steps)),
        ("size.min", spec["size"]["min"], pytest.approx(idle)),
    ]
    instance_hours = sum(size * hours for size, hours in steps) + spec["size"]["min"] * idle
    assert line["instance_hours"] == pytest.approx(instance_hours)
    # Each term is the pool's cost an hour at that size times its hours; the terms add up to the month,
    # to the cent each is rounded to (and the hourly cost to its 4 places).
    cents = 0.005 * len(line["steps"]) + 1e-9
    assert sum(s["monthly"] for s in line["steps"]) == pytest.approx(line["monthly_estimate"], abs=cents)
    for step in line["steps"]:
        assert step["monthly"] == pytest.approx(
            step["hourly"] * step["hours"], abs=0.00005 * step["hours"] + 0.005
        )

    text = _ok(invoke("cost", str(ROOT), "-s", "prod")).stdout
    assert _table_column(text, "pool", "inst-h/mo")[INFERENCE] == pytest.approx(instance_hours)
    lines = text.splitlines()
    start = lines.index(f"  {INFERENCE}: {line['basis']}; schedule around the clock")
    shown = lines[start + 1 : start + 2 + len(line["steps"])]
    assert shown == [
        *(
            f"    {s['label']}: {s['size']:g} x {s['hours']:g} h at {s['hourly']:g} USD/h "
            f"= {_money(s['monthly'])} USD"
            for s in line["steps"]
        ),
        f"    = {instance_hours:g} instance-h, {_money(line['monthly_estimate'])} USD",
    ]


def test_currency_converts_with_the_catalogue_rate(prod_json: dict[str, Any]) -> None:
    rate = CATALOG.rate("USD", "CNY")
    assert rate == CATALOG.per_usd["CNY"] and rate != 1.0
    cny = json.loads(_ok(invoke("cost", str(ROOT), "-s", "prod", "--currency", "CNY", "-f", "json")).stdout)
    assert cny["currency"] == "CNY"
    assert [(r["from"], r["to"], r["rate"]) for r in cny["rates"]] == [("USD", "CNY", round(rate, 6))]
    usd_pools = _pools(prod_json)
    for name, pool in _pools(cny).items():
        # Prices stay in their own currency; the figures are converted.
        assert pool["on_demand_price"]["currency"] == "USD"
        assert pool["monthly_estimate"] == pytest.approx(usd_pools[name]["monthly_estimate"] * rate, abs=0.05)
    assert cny["totals"]["monthly_estimate"] == pytest.approx(
        prod_json["totals"]["monthly_estimate"] * rate, abs=0.05
    )
    text = _ok(invoke("cost", str(ROOT), "-s", "prod", "--currency", "cny")).stdout
    assert "(amounts in CNY;" in text
    assert f"1 USD = {rate:g} CNY (catalogue rate of {CATALOG.rates_date}" in text
    assert f"monthly estimate {_money(cny['totals']['monthly_estimate'])} CNY" in text


def test_markdown_report(prod_json: dict[str, Any]) -> None:
    text = _ok(invoke("cost", str(ROOT), "-s", "prod", "--format", "markdown")).stdout
    assert text.startswith("### Cost of `prod` (USD per month unless marked /h)\n")
    for pool in prod_json["pools"]:
        row = next(line for line in text.splitlines() if line.startswith(f"| {pool['pool']} |"))
        assert row.endswith(f"| {_money(pool['monthly_estimate'])} | {_money(pool['monthly_envelope'])} |")
    assert f"**monthly estimate {_money(prod_json['totals']['monthly_estimate'])} USD**" in text


def test_output_file_is_written_whole(tmp_path: Path, prod_json: dict[str, Any]) -> None:
    target = tmp_path / "cost.json"
    run = _ok(invoke("cost", str(ROOT), "-s", "prod", "--format", "json", "--output", str(target)))
    assert run.stdout.strip() == f"wrote {target}"
    assert json.loads(target.read_text()) == prod_json
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cost.json"]


# -- --compare --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def smaller_base(tmp_path_factory: pytest.TempPathFactory, prod_fleet: dict[str, Any]) -> Path:
    """The base branch's cost JSON: the same stack with the training pool's max halved (and its busy
    size with it, so that the month changes, not only the envelope)."""
    fleet = json.loads(json.dumps(prod_fleet))
    pool = fleet["pools"][TRAIN]
    pool["size"]["max"] = pool["size"]["max"] // 2
    pool["usage"]["average_size"] = pool["size"]["max"] // 2
    project = copy_project(
        tmp_path_factory.mktemp("base"), {"prod": _with_fleet(PROD_FILE.read_text(), fleet)}
    )
    run = _ok(invoke("cost", str(project), "-s", "prod", "--format", "json"))
    path = project / "base.json"
    path.write_text(run.stdout)
    return path


def test_compare_shows_what_the_change_adds_per_month(
    smaller_base: Path, prod_json: dict[str, Any], prod_fleet: dict[str, Any]
) -> None:
    base = json.loads(smaller_base.read_text())
    spec = prod_fleet["pools"][TRAIN]
    small_max = spec["size"]["max"] // 2
    base_train, head_train = _pools(base)[TRAIN], _pools(prod_json)[TRAIN]
    hand_base = _hand_monthly(spec, _region(prod_fleet, TRAIN), average_size=small_max // 2)
    assert base_train["monthly_estimate"] == pytest.approx(hand_base, abs=0.005)
    delta = round(head_train["monthly_estimate"] - base_train["monthly_estimate"], 2)
    assert delta > 0

    data = json.loads(
        _ok(invoke("cost", str(ROOT), "-s", "prod", "--compare", str(smaller_base), "-f", "json")).stdout
    )
    rows = {row["key"]: row for row in data["rows"]}
    train = rows[f"pool:{TRAIN}"]
    assert train["change"] == "changed"
    assert train["delta"] == pytest.approx(delta, abs=0.01)
    assert f"max {small_max} -> {spec['size']['max']}" in train["detail"]
    assert rows[f"volume:{TRAIN}"]["change"] == "changed"
    for name in prod_fleet["pools"]:
        if name != TRAIN:
            assert rows[f"pool:{name}"]["change"] == "unchanged"
    assert data["delta"] == pytest.approx(
        prod_json["totals"]["monthly_estimate"] - base["totals"]["monthly_estimate"], abs=0.01
    )

    text = _ok(invoke("cost", str(ROOT), "-s", "prod", "--compare", str(smaller_base))).stdout
    row = next(line for line in text.splitlines() if line.startswith(f"pool:{TRAIN} "))
    cells = re.split(r"\s{2,}", row)
    assert cells[:5] == [
        f"pool:{TRAIN}",
        "changed",
        _money(base_train["monthly_estimate"]),
        _money(head_train["monthly_estimate"]),
        f"+{_money(train['delta'])}",
    ]
    assert not any(
        line.startswith(f"pool:{name} ") for line in text.splitlines() for name in rows if name != TRAIN
    )

    markdown = _ok(
        invoke("cost", str(ROOT), "-s", "prod", "--compare", str(smaller_base), "--format", "markdown")
    ).stdout
    assert markdown.startswith(f"### Cost change of `prod`: +{_money(data['delta'])} USD/month\n")
    assert f"| pool:{TRAIN} | changed | {_money(base_train['monthly_estimate'])} |" in markdown
    assert "| --- | --- | ---: | ---: | ---: | --- |" in markdown.splitlines()


def test_the_workflow_invocations(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    workflow = (ROOT / ".github" / "workflows" / "guardrails.yml").read_text()
    # every stack of `--list-stacks`, in turn (tests/workflow checks the loop)
    assert 'gpufleet cost -s "$stack" --format json > ' in workflow
    assert 'gpufleet cost -s "$stack" --compare "$base" --format markdown > ' in workflow
    monkeypatch.chdir(ROOT)
    base = tmp_path / "cost-base.json"
    base.write_text(_ok(invoke("cost", "-s", "prod", "--format", "json")).stdout)
    markdown = _ok(invoke("cost", "-s", "prod", "--compare", str(base), "--format", "markdown")).stdout
    assert markdown.startswith("### Cost change of `prod`: +0.00 USD/month\n")
    assert "No line changes." in markdown


def test_compare_files_that_are_not_cost_json(tmp_path: Path) -> None:
    missing = tmp_path / "base.json"
    message = _bad(invoke("cost", str(ROOT), "-s", "prod", "--compare", str(missing)))
    assert message == (
        f"error: cannot read --compare {missing}: No such file or directory; write it on the base branch "
        "with `gpufleet cost -s STACK --format json > FILE`"
    )
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1,\n "pools": [}')
    assert f"error: --compare {broken}:2: invalid JSON (" in _bad(
        invoke("cost", str(ROOT), "-s", "prod", "--compare", str(broken))
    )
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert f"error: --compare {empty} is empty;" in _bad(
        invoke("cost", str(ROOT), "-s", "prod", "--compare", str(empty))
    )
    check_report = tmp_path / "check.json"
    check_report.write_text(json.dumps({"version": 1, "stacks": []}))
    assert f"error: --compare {check_report}: not a gpufleet cost JSON document (version 1)" in _bad(
        invoke("cost", str(ROOT), "-s", "prod", "--compare", str(check_report))
    )
    truncated = tmp_path / "truncated.json"
    truncated.write_text(json.dumps({"version": 1, "currency": "USD", "pools": [{"pool": "x"}]}))
    assert f"error: --compare {truncated}: not a gpufleet cost JSON document (missing " in _bad(
        invoke("cost", str(ROOT), "-s", "prod", "--compare", str(truncated))
    )


# -- advise buy-vs-rent -----------------------------------------------------------------------------


def test_buy_vs_rent_shows_the_numbers_and_a_verdict_per_pool(
    prod_json: dict[str, Any], prod_fleet: dict[str, Any]
) -> None:
    rows = json.loads(_ok(invoke("advise", "buy-vs-rent", str(ROOT), "-s", "prod", "-f", "json")).stdout)[
        "pools"
    ]
    assert [row["pool"] for row in rows] == [pool["pool"] for pool in prod_json["pools"]]
    for row in rows:
        # Renting is the pool's monthly estimate; the verdict follows the 2x rule.
        assert row["rent_monthly"] == pytest.approx(
            _pools(prod_json)[row["pool"]]["monthly_estimate"], abs=0.01
        )
        expected = "consider buying" if row["rent_monthly"] > 2 * row["own_monthly"] else "keep renting"
        assert row["verdict"] == expected

    train = next(row for row in rows if row["pool"] == TRAIN)
    spec = prod_fleet["pools"][TRAIN]
    usage = spec["usage"]
    hours = usage["hours_per_day"] * usage.get("days_per_month", 30)
    purchase = CATALOG.purchase_of(CATALOG.get("aws", spec["instance_types"][0]))
    assert purchase is not None
    assert train["instances"] == usage["average_size"]
    assert train["hours_per_month"] == pytest.approx(hours)
    assert train["utilisation_percent"] == pytest.approx(hours / HOURS_PER_MONTH * 100, abs=0.01)
    assert train["purchase"]["amount"] == purchase.price.amount
    # The whole cost of owning a server a month (the catalogue's ownership defaults), times the servers.
    per_server = train["ownership"]["per_server_monthly"]
    assert per_server["hardware"] == pytest.approx(purchase.price.amount / 36, abs=0.01)
    assert train["own_monthly"] == pytest.approx(usage["average_size"] * sum(per_server.values()), abs=0.05)

    text = _ok(invoke("advise", "buy-vs-rent", str(ROOT), "-s", "prod")).stdout
    assert text.splitlines()[0] == (
        "buy versus rent for stack prod (consider buying when renting costs > 2x owning)"
    )
    for row in rows:
        assert f"{row['pool']} ({row['instance_type']}): {row['verdict'].upper()}" in text
        assert f"= {row['rent_monthly']:,.2f} USD/month".replace(".00 ", " ") in text
    assert f"at {hours / HOURS_PER_MONTH * 100:.1f}% utilisation)" in text
    assert f"rent / own = {train['ratio']:.2f}" in text

    markdown = _ok(invoke("advise", "buy-vs-rent", str(ROOT), "-s", "prod", "--format", "markdown")).stdout
    assert markdown.startswith("### Buy versus rent: `prod`\n")
    assert f"| {TRAIN} | {train['instance_type']} |" in markdown


# -- bad input ---------------------------------------------------------------------------------------


def test_an_impossible_usage_profile_exits_2_with_its_field_path(
    tmp_path: Path, prod_fleet: dict[str, Any]
) -> None:
    fleet = json.loads(json.dumps(prod_fleet))
    fleet["pools"][TRAIN]["usage"]["hours_per_day"] = 30
    project = copy_project(tmp_path, {"prod": _with_fleet(PROD_FILE.read_text(), fleet)})
    for command in (["cost"], ["advise", "buy-vs-rent"]):
        message = _bad(invoke(*command, str(project), "-s", "prod"))
        assert (
            f"stacks/Pulumi.prod.yaml: {FLEET}.pools.{TRAIN}.usage.hours_per_day: must be <= 24, got 30"
            in message
        )


def test_a_usage_profile_longer_than_the_schedule_exits_2(tmp_path: Path) -> None:
    fleet = _fleet(DEV_FILE.read_text())
    (name, pool), *_ = ((n, p) for n, p in fleet["pools"].items() if p.get("off_hours"))
    assert pool["off_hours"]["scale_to_zero"] == "20:00-08:00"
    pool["usage"]["hours_per_day"] = 14
    project = copy_project(tmp_path, {"dev": _with_fleet(DEV_FILE.read_text(), fleet)})
    for command in (["cost"], ["advise", "buy-vs-rent"]):
        message = _bad(invoke(*command, str(project), "-s", "dev"))
        # The spec refuses it, before the program runs.
        assert message.endswith(
            f"stacks/Pulumi.dev.yaml: {FLEET}.pools.{name}.usage.hours_per_day: 14 h a day in use, but the "
            "off-hours schedule (scale_to_zero 20:00-08:00) leaves the pool running at most 12 h a day"
        )


def test_unknown_currency_format_and_stack() -> None:
    assert _bad(invoke("cost", str(ROOT), "-s", "prod", "--currency", "EUR")) == (
        "error: --currency 'EUR': the catalogue's rates table has no rate for it; known: CNY, USD"
    )
    assert _bad(invoke("advise", "buy-vs-rent", str(ROOT), "-s", "prod", "--format", "sarif")) == (
        "error: --format 'sarif' is not allowed here; allowed: text, json, markdown"
    )
    assert "requires config 'gpufleet:fleet'" in _bad(invoke("cost", str(ROOT), "-s", "qa"))


def test_help_has_examples() -> None:
    for command in (["cost"], ["advise", "buy-vs-rent"]):
        helped = _ok(invoke(*command, "--help"))
        assert "Examples:" in helped.stdout
        assert f"gpufleet {' '.join(command)} -s prod" in helped.stdout
    assert "buy-vs-rent" in _ok(invoke("advise", "--help")).stdout


# -- the terminal table ----------------------------------------------------------------------------


def test_terminal_table_shows_the_plain_reports_cells() -> None:
    report = price_pools(
        [
            PricedPool(
                name="train", cloud="aws", region="us-east-1", instance_types=("p4d.24xlarge",),
                min_size=0, max_size=4, spot_percent=50, on_demand_base=1,
                usage=UsageProfile((UsageLevel(2, 10),), 30), disk_gib=500,
            )
        ],
        small_catalog(),
        currency="USD",
        stack="dev",
    )  # fmt: skip
    wide = Console(file=io.StringIO(), width=200, force_terminal=True, record=True)
    cli.print_cost_text(report, wide)
    shown = wide.export_text()
    assert "price/h od / spot" in shown and "--------" not in shown
    (cells,) = pool_table(report).rows
    # 0.5 on demand above the base of 1: 1.5 x 30 + 0.5 x 9 = 49.5 an hour for 300 h.
    assert cells[-2] == "14,850.00"
    row = next(line for line in shown.splitlines() if line.startswith("train "))
    assert re.split(r"\s{2,}", row.strip()) == list(cells)
    assert "total: hourly 0.00 at min" in shown
    narrow = Console(file=io.StringIO(), width=100, force_terminal=True, record=True)
    cli.print_cost_text(report, narrow, wide=True)
    assert narrow.export_text() == render_text(report)


def test_check_holds_the_budget_against_the_usage_based_estimate(tmp_path: Path) -> None:
    """GF-COST-002 gets the same monthly estimate `check` prints in its cost block."""
    project = copy_project(tmp_path)
    stack_file = project / "stacks" / "Pulumi.dev.yaml"
    stack_file.write_text(stack_file.read_text().replace("budget: {monthly: 3000", "budget: {monthly: 100"))
    result = invoke("check", str(project), "-s", "dev", "--format", "json")
    assert result.exit_code == 1, result.stderr
    [stack] = json.loads(result.stdout)["stacks"]
    estimate = stack["cost"]["monthly_estimate"]
    [finding] = [v for v in stack["violations"] if v["rule_id"] == "GF-COST-002"]
    assert finding["enforcement"] == "mandatory"
    assert finding["message"] == (
        "AWS budget 'gpufleet-dev-budget-budget' limits AWS spend to 100 USD a month, below the stack's "
        f"monthly estimate (usage profile and schedules) of {estimate:.2f} USD; raise the limit or shrink "
        "the pools"
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"version": 1, "monthly_estimate": NaN}', "NaN"),
        (b'{"version": 1, "monthly_estimate": 1e400}', "1e400"),
        (b"[" * 5000 + b"]" * 5000, "deep"),
        (b'{"version": 1, "stack": "\xff"}', "not UTF-8"),
    ],
)
def test_compare_files_with_hostile_values_exit_2_naming_the_file(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    base = tmp_path / "base.json"
    base.write_bytes(content)
    message = _bad(invoke("cost", str(ROOT), "-s", "prod", "--compare", str(base)))
    assert message.startswith(f"error: --compare {base}"), message
    assert expected in message, message
    assert "\n" not in message.rstrip("\n")
