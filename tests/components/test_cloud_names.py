"""A cloud is a registered unit: outside a cloud's own modules, source code does not name it.

Own modules are those with a path part (folder or file stem) whose ``_``-separated pieces start with the
cloud's stem (``aws``, ``ali``, ``tencent``): ``policies/kms/aws.py``, ``gpufleet/mocks/alicloud.py``,
``components/sites/tencentcloud/``. Names in comments and docstrings are prose and do not count;
identifiers and string literals do. Neutral code reads a cloud's facts through ``components/clouds.py``
(``PROFILES``, ``cloud_parts``) instead, so a fourth cloud adds modules and one registry line.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from gpufleet.components.clouds import CLOUDS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("components", "policies", "gpufleet", "infra", "ci-access")
STEMS = {"aws": "aws", "alicloud": "ali", "tencentcloud": "tencent"}
NAMES = {
    "aws": re.compile(r"(?<![a-z])aws|Aws|AWS"),
    "alicloud": re.compile(r"alicloud|alibaba|aliyun", re.IGNORECASE),
    "tencentcloud": re.compile(r"tencent", re.IGNORECASE),
}
# The files that may name clouds: which clouds, and why.
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "components/clouds.py": (
        frozenset(NAMES),
        "the registry itself: each cloud's profile is declared here once",
    ),
    "components/baseline/exporter_script.py": (
        frozenset({"aws", "alicloud"}),
        "the exporter's program, shipped verbatim in a ConfigMap and run on-prem with no gpufleet installed: "
        "it cannot read the registry, so it names the clouds it publishes to",
    ),
    "components/baseline/exporter.py": (
        frozenset({"alicloud"}),
        "SignalExporterArgs.alicloud: the exporter's published API field for Alibaba Cloud's OIDC publishing",
    ),
    "components/pools/scaling.py": (
        frozenset({"aws"}),
        "the spec's alarm rules are written in CloudWatch's spelling (QUEUE_METRIC); each other cloud's "
        "alarm compiler maps them to its own metric",
    ),
}


def _own(relative: str, cloud: str) -> bool:
    stem = STEMS[cloud]
    return any(
        piece.lower().startswith(stem)
        for part in relative.split("/")
        for piece in part.split(".")[0].split("_")
    )


def _code(source: str) -> str:
    """The identifiers and literals of ``source``, without comments and docstrings."""
    kept: list[str] = []
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    previous = tokenize.NEWLINE
    for index, token in enumerate(tokens):
        if token.type in (tokenize.COMMENT, tokenize.NL):
            continue
        following = tokens[index + 1].type if index + 1 < len(tokens) else tokenize.ENDMARKER
        statement_start = previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        if (
            token.type == tokenize.STRING
            and statement_start
            and following in (tokenize.NEWLINE, tokenize.ENDMARKER)
        ):
            previous = token.type
            continue
        kept.append(token.string)
        previous = token.type
    return " ".join(kept)


def _sources() -> list[str]:
    found: list[str] = []
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/tests/" in f"/{relative}" or path.name.startswith("test_"):
                continue
            if any((ROOT / part).is_symlink() for part in path.relative_to(ROOT).parents):
                continue
            found.append(relative)
    return found


def _naming(cloud: str) -> list[str]:
    return [
        relative
        for relative in _sources()
        if not _own(relative, cloud)
        and cloud not in ALLOWED.get(relative, (frozenset(), ""))[0]
        and NAMES[cloud].search(_code((ROOT / relative).read_text(encoding="utf-8")))
    ]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_neutral_code_does_not_name_the_cloud(cloud: str) -> None:
    assert _naming(cloud) == []


def test_no_source_file_passes_600_lines() -> None:
    long = {r: n for r in _sources() if (n := (ROOT / r).read_text(encoding="utf-8").count("\n")) > 600}
    assert long == {}


def test_every_allowance_is_still_needed() -> None:
    stale = [
        f"{relative}: {cloud}"
        for relative, (clouds, _reason) in ALLOWED.items()
        for cloud in sorted(clouds)
        if not NAMES[cloud].search(_code((ROOT / relative).read_text(encoding="utf-8")))
    ]
    assert stale == []
