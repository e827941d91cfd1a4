"""The fleet's name for a stack, shared by the program and `gpufleet new`."""

from __future__ import annotations

import pytest

from gpufleet.components.naming import fleet_name


@pytest.mark.parametrize(
    ("stack", "expected"),
    [
        ("dev", "gpufleet-dev"),
        ("Lab_1", "gpufleet-lab-1"),
        ("team.prod", "gpufleet-team-prod"),
        ("a__b--c", "gpufleet-a-b--c"),
        ("x.", "gpufleet-x"),
    ],
)
def test_fleet_name_uses_only_lower_case_letters_digits_and_hyphens(stack: str, expected: str) -> None:
    assert fleet_name(stack) == expected
