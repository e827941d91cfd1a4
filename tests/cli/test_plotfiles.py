"""Plot files as `cost --plot` and `simulate --plot` write them: the path checked before any work, and
each file whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.plotfiles import plot_path_problem, write_plot


def test_a_good_path_has_no_problem(tmp_path: Path) -> None:
    assert plot_path_problem(tmp_path / "cost.SVG") is None


def test_the_suffix_chooses_the_format(tmp_path: Path) -> None:
    assert plot_path_problem(tmp_path / "cost") == (
        f"--plot {tmp_path / 'cost'}: the file's suffix chooses the format, .png or .svg; got 'none'"
    )


def test_the_directory_must_exist(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "cost.png"
    assert plot_path_problem(path) == f"--plot {path}: the directory {path.parent} does not exist"


def test_written_whole_with_no_staging_file_left(tmp_path: Path) -> None:
    target = tmp_path / "cost.png"
    target.write_bytes(b"old")
    write_plot(target, b"new bytes")
    assert target.read_bytes() == b"new bytes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cost.png"]


def test_a_failed_rename_keeps_the_old_file_and_no_staging_file(tmp_path: Path) -> None:
    target = tmp_path / "cost.png"
    target.mkdir()  # a directory in the way: the rename fails
    with pytest.raises(OSError):
        write_plot(target, b"new bytes")
    assert target.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cost.png"]
