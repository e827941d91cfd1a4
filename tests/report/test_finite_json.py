"""`gpufleet.finite.dumps`: what every JSON writer of the CLI goes through."""

from __future__ import annotations

import json
import math

from gpufleet import finite
from gpufleet.evaluate import StackResult
from gpufleet.report import render_json, render_sarif


def test_non_finite_numbers_become_null_with_a_note() -> None:
    text = finite.dumps({"a": [1.5, math.nan], "b": {"c": -math.inf}, "notes": ["kept"]})
    assert json.loads(text) == {
        "a": [1.5, None],
        "b": {"c": None},
        "notes": [
            "kept",
            "$.a[1], $.b.c: not a finite number (NaN or beyond a double, e.g. from a size of 10**307); "
            "written as null",
        ],
    }


def test_a_clean_document_is_unchanged() -> None:
    document = {"a": [1, 2.5, "x", None, True]}
    assert finite.dumps(document) == json.dumps(document, indent=2) + "\n"


def test_the_check_reports_are_strict_json() -> None:
    result = StackResult(stack="dev", project="p", resources=1, cost={"monthly_estimate": math.inf})
    document = json.loads(render_json([result]), parse_constant=lambda c: None)
    assert document["stacks"][0]["cost"] == {"monthly_estimate": None}
    assert document["notes"] == [
        "$.stacks[0].cost.monthly_estimate: not a finite number (NaN or beyond a double, e.g. from a size of "
        "10**307); written as null"
    ]
    assert "Infinity" not in render_sarif([result])
