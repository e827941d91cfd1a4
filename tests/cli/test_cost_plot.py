"""`gpufleet cost --plot`: the month's cost drawn as simulate draws a replay, from the report's own
figures, and bad plot paths refused before anything is priced."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.cli.cost_plot import DAYS, _lines, alert_day
from tests.cli.helpers import DEV_STACK, copy_project, invoke


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("plot") / "p", {"dev": DEV_STACK})


def test_png_and_svg_are_written_and_the_same_report_writes_the_same_bytes(
    project: Path, tmp_path: Path
) -> None:
    png, svg = tmp_path / "cost.png", tmp_path / "cost.svg"
    run = invoke("cost", str(project), "-s", "dev", "--plot", str(png), "--plot", str(svg))
    assert run.exit_code == 0, run.stderr
    assert f"wrote {png}" in run.stderr and f"wrote {svg}" in run.stderr
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    text = svg.read_text()
    for label in ("stack dev: the month", "pool experiments", "budget 3000 USD", "alert at 80%", "envelope"):
        assert label in text, label
    # the text report still goes to stdout
    assert "experiments" in run.stdout
    again = tmp_path / "again.svg"
    assert invoke("cost", str(project), "-s", "dev", "--plot", str(again)).exit_code == 0
    assert again.read_bytes() == svg.read_bytes()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("cost.pdf", "the file's suffix chooses the format, .png or .svg; got '.pdf'"),
        ("missing/cost.png", "does not exist"),
    ],
)
def test_a_bad_plot_path_is_exit_2_and_nothing_is_written(
    project: Path, tmp_path: Path, name: str, message: str
) -> None:
    target = tmp_path / name
    run = invoke("cost", str(project), "-s", "dev", "--plot", str(target))
    assert run.exit_code == 2
    flat = " ".join(run.stderr.split())
    assert f"--plot {target}" in flat and message in flat
    assert not target.exists()


def test_the_alert_day_is_where_an_even_month_crosses_the_threshold() -> None:
    assert alert_day(3000.0, 2400.0) == round(DAYS * 0.8, 1) == 24.3
    assert alert_day(1000.0, 2400.0) is None  # never reaches it
    assert alert_day(0.0, 0.0) is None


class _Line:
    def __init__(self, kind: str, estimate: float, envelope: float) -> None:
        self.kind, self.name = kind, "n"
        self.monthly_estimate, self.monthly_envelope = estimate, envelope


class _Pool:
    pool, monthly_estimate, monthly_envelope = "train", 100.0, 400.0


class _Report:
    pools = (_Pool(),)
    other = (_Line("vpn", 30.0, 30.0), _Line("endpoint", 7.0, 7.0), _Line("vpn", 30.0, 30.0))


def test_other_lines_are_summed_by_kind() -> None:
    assert _lines(_Report()) == [  # type: ignore[arg-type]
        ("pool train", 100.0, 400.0),
        ("vpn (2)", 60.0, 60.0),
        ("endpoint (1)", 7.0, 7.0),
    ]
