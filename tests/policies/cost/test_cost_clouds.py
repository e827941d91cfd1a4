from __future__ import annotations

import types

import pytest

from gpufleet.policies.cost._clouds import ranked


def _module(name: str, fragments: list[tuple[int, str]]) -> types.ModuleType:
    module = types.ModuleType(name)
    module.FIELDS = fragments  # type: ignore[attr-defined]
    return module


def test_ranked_merges_the_clouds_fragments_in_rank_order() -> None:
    parts = {"aws": _module("m.aws", [(1, "a"), (3, "c")]), "alicloud": _module("m.ali", [(2, "b")])}
    assert ranked(parts, "FIELDS") == ["a", "b", "c"]  # type: ignore[arg-type]


def test_a_shared_rank_is_refused_naming_the_rank_and_the_modules() -> None:
    parts = {"aws": _module("m.aws", [(1, "a")]), "alicloud": _module("m.ali", [(1, "b")])}
    with pytest.raises(ValueError, match=r"FIELDS: .*rank 1 in m\.aws, m\.ali"):
        ranked(parts, "FIELDS")  # type: ignore[arg-type]
