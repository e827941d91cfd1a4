"""The JSON report: the DESIGN.md contract, one object per stack."""

from __future__ import annotations

from collections.abc import Sequence

from gpufleet import finite
from gpufleet.evaluate import StackResult
from gpufleet.report.model import REPORT_VERSION


def render_json(results: Sequence[StackResult]) -> str:
    document = {"version": REPORT_VERSION, "stacks": [result.to_json() for result in results]}
    return finite.dumps(document, default=str)
