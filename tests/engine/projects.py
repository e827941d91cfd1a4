"""Write small throwaway Pulumi projects for engine and CLI tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PHOTO_ARCHIVE = FIXTURES / "photo_archive"
SINGLE_FILE = FIXTURES / "single_file"


def write_project(
    root: Path,
    program: str,
    *,
    stacks: dict[str, str] | None = None,
    name: str = "scratch",
    pulumi_yaml: str | None = None,
) -> Path:
    """A project whose program is `__main__.py` in `root`; `stacks` maps stack name -> stack file text."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "Pulumi.yaml").write_text(pulumi_yaml or f"name: {name}\nruntime: python\n")
    (root / "__main__.py").write_text(textwrap.dedent(program))
    for stack, text in (stacks if stacks is not None else {"dev": "config: {}\n"}).items():
        (root / f"Pulumi.{stack}.yaml").write_text(textwrap.dedent(text))
    return root
