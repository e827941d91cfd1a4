"""Plot files, as `gpufleet cost --plot` and `gpufleet simulate --plot` write them: the formats a file's
suffix chooses, the check of each path before any work, and each file written whole or not at all."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

FORMATS = (".png", ".svg")


def plot_path_problem(path: Path) -> str | None:
    """What is wrong with `--plot PATH` (a suffix that names no format, a directory that does not
    exist), or None."""
    if path.suffix.lower() not in FORMATS:
        return (
            f"--plot {path}: the file's suffix chooses the format, {' or '.join(FORMATS)}; got "
            f"{path.suffix or 'none'!r}"
        )
    if not path.parent.is_dir():
        return f"--plot {path}: the directory {path.parent} does not exist"
    return None


def write_plot(target: Path, data: bytes) -> None:
    """The file whole or not at all: staged beside its target under a name of its own (O_EXCL, 0o666
    less the umask), then renamed; the staging file never outlives a failure. OSError as raised."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    try:
        handle = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
