"""The simulate section of docs/commands.md (moved there from the README) says what the tool prints,
figure for figure."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import ROOT, copy_project, invoke
from tests.simulate.test_cli import PNG_MAGIC

README = (ROOT / "docs" / "commands.md").read_text()
PROD = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()


def test_the_forgotten_weekend_figures() -> None:
    args = ["--trace", "scenario:forgotten-weekend"]
    prod = invoke("simulate", "train-a100", str(ROOT), "-s", "prod", *args).stdout
    for line in prod.splitlines()[7:11]:
        assert line in README, line
    dev = json.loads(invoke("simulate", "experiments", str(ROOT), "-s", "dev", *args, "-f", "json").stdout)
    assert f"off-hours stop it on Friday at 20:00, costs {dev['result']['cost']:.2f} USD" in " ".join(
        README.split()
    )


def test_the_compare_figures_and_the_plot(tmp_path: Path) -> None:
    old = "gpu_util_in: 30, in_for: 30m, cooldown: 300s}\n        usage: {hours_per_day: 10"
    assert PROD.count(old) == 1  # train-a100's rules
    project = copy_project(tmp_path / "p", {"prod": PROD.replace(old, old.replace("in: 30,", "in: 40,"))})
    run = invoke(
        "simulate", "train-a100", str(project), "-s", "prod", "--trace", "scenario:diurnal-training",
        "--compare", str(ROOT / "stacks" / "Pulumi.prod.yaml"), "-f", "json",
    )  # fmt: skip
    data = json.loads(run.stdout)
    assert data["changes"] == ["scaling.gpu_util_in: 30 -> 40"]
    saved = data["base_result"]["cost"] - data["head_result"]["cost"]
    assert f"the head saves {saved:,.0f} USD a week at the same queue wait" in " ".join(README.split())
    assert data["base_result"]["queue_wait_minutes"] == data["head_result"]["queue_wait_minutes"]
    assert "![demand, capacity and cumulative cost" in README and "(img/simulate.png)" in README
    assert (ROOT / "docs" / "img" / "simulate.png").read_bytes().startswith(PNG_MAGIC)
