"""docs/worker.md names every variable the entrypoint reads and every adapter it describes."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "worker.md").read_text()


def test_every_variable_read_is_documented() -> None:
    source = (ROOT / "gpufleet" / "worker" / "__main__.py").read_text()
    read = set(re.findall(r'"(GPUFLEET_[A-Z_]+)"', source))
    assert read, "the entrypoint reads GPUFLEET_* variables"
    assert sorted(name for name in read if f"`{name}`" not in DOC) == []


def test_the_job_environment_is_documented() -> None:
    source = (ROOT / "gpufleet" / "worker" / "core.py").read_text()
    given = set(re.findall(r'"(GPUFLEET_[A-Z_]+)":', source))
    assert given == {
        "GPUFLEET_JOB_ID",
        "GPUFLEET_CHECKPOINT_DIR",
        "GPUFLEET_CHECKPOINT_PREFIX",
        "GPUFLEET_CHECKPOINT_URI",
    }
    assert all(f"`{name}`" in DOC for name in given)


def test_the_base_image_is_pinned_by_digest() -> None:
    assert re.search(r"^FROM python:[0-9.]+-slim@sha256:<digest>$", DOC, re.MULTILINE)
