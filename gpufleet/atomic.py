"""Files written all or none, under staging names of their own (concurrent runs never collide)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path


def write_files_atomically(files: Mapping[Path, str]) -> None:
    """Write every file, all or none: each is staged under a name of its own in its directory, then
    renamed into place. Readers see the old file or the whole new one; concurrent runs writing the
    same files never share a staging file; a failure while staging leaves every previous file as it was."""
    staged: list[tuple[Path, Path]] = []
    try:
        for target, text in files.items():
            tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
            # O_EXCL: never write into a file someone else made; 0o666 less the umask, as open() does.
            handle = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            staged.append((tmp, target))
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
        for tmp, target in staged:
            tmp.replace(target)
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
