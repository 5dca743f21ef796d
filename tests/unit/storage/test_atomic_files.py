"""Files written whole or not at all (``common/atomic_files.py``)."""

from __future__ import annotations

import os
import stat

import pytest

from relreason_dagster.common.atomic_files import atomic_open, write_text


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "models.yaml"
    target.write_text("old: whole\n")
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write("new: par")
        raise RuntimeError("the disk filled here")
    assert target.read_text() == "old: whole\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models.yaml"]


def test_a_full_write_replaces_the_file_and_keeps_its_permission_bits(tmp_path):
    target = tmp_path / "profile.yaml"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


def test_a_new_file_gets_the_usual_bits_not_the_temporary_files_0600(tmp_path):
    target = tmp_path / "report.html"
    write_text(target, "<html></html>")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~mask
