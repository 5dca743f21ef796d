"""`relreason models add` on a full disk or a read-only models.yaml: the file stays whole, one line.

Before: a full disk during `models add --study all` left models.yaml cut off mid-entry (the file was
rewritten in place once per added model) and every later command failed on it; a read-only models.yaml
printed a 27-line PermissionError traceback.  Here the re-audit's own commands run in-process on a real
small filesystem: a 64 KB tmpfs (root only; elsewhere a size-limited write, RLIMIT_FSIZE, stands in),
and a tmpfs remounted read-only (root) or a file and folder without write permission (other users).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from relreason_dagster.cli import main
from relreason_dagster.llm.registry import load_registry
from relreason_dagster.llm.study_models import study_models

OLD = "models:\n  - name: mine\n    litellm_model: openai/gpt-4o-mini  # a comment the file keeps\n"


def _mount_tmpfs(where: Path, size: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    """A 64 KB tmpfs, as in the re-audit."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    _mount_tmpfs(mount, "64k")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path) -> None:
    """Take every free block of ``folder``'s filesystem."""
    try:
        with open(folder / "filler", "wb", buffering=0) as handle:
            while True:
                handle.write(b"\0" * 1024)
    except OSError:
        pass


def _use(models: Path, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("RELREASON_MODELS", str(models))
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("DAGSTER_HOME", raising=False)


def _whole(models: Path, capsys) -> str:
    """Assert `relreason models list` reads ``models`` and return its text."""
    capsys.readouterr()
    assert main(["models", "list"]) == 0, capsys.readouterr().err
    assert "mine" in capsys.readouterr().out
    return models.read_text()


def test_a_full_tmpfs_during_models_add_study_all_leaves_models_yaml_whole(
    small_disk, monkeypatch, capsys, tmp_path
):
    models = small_disk / "models.yaml"
    models.write_text(OLD)
    _use(models, monkeypatch, tmp_path)
    _fill(small_disk)
    code = main(["models", "add", "--study", "all"])
    err = capsys.readouterr().err
    assert _whole(models, capsys) == OLD  # the old file, not a part of the new one
    assert code != 0
    assert len(err.strip().splitlines()) == 1 and "models.yaml" in err and "free space" in err, err
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "models.yaml"]  # no temporary left
    (small_disk / "filler").unlink()
    assert main(["models", "add", "--study", "all"]) == 0  # space again: every entry, in one piece
    assert set(load_registry(models)) == {"mine", *(m.name for m in study_models("all"))}
    assert _whole(models, capsys).startswith(OLD)


def _limit_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), no signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def test_a_size_limited_write_during_models_add_study_all_leaves_models_yaml_whole(
    monkeypatch, capsys, tmp_path
):
    """The same without root: files may not grow past 4 KB (the whole list is bigger), as if the disk
    had filled there."""
    models = tmp_path / "models.yaml"
    models.write_text(OLD)
    _use(models, monkeypatch, tmp_path)
    old_handler = signal.getsignal(signal.SIGXFSZ)
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    try:
        _limit_file_size(4096)
        code = main(["models", "add", "--study", "all"])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)
    err = capsys.readouterr().err
    assert code != 0
    assert len(err.strip().splitlines()) == 1 and "models.yaml" in err, err
    assert _whole(models, capsys) == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models.yaml"]


def test_models_add_study_all_writes_models_yaml_once(monkeypatch, capsys, tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(OLD)
    _use(models, monkeypatch, tmp_path)
    from relreason_dagster.common import atomic_files

    writes: list[str] = []
    real = atomic_files.atomic_open

    def counted(path, *args, **kwargs):
        writes.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(atomic_files, "atomic_open", counted)
    assert main(["models", "add", "--study", "all"]) == 0
    assert writes == ["models.yaml"]
    assert len(study_models("all")) > 1


@pytest.fixture
def read_only_models(tmp_path) -> Iterator[Path]:
    """models.yaml that cannot be written: on a tmpfs remounted read-only (root, whom permissions do
    not stop), else a file and folder without write permission."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() == 0:
        _mount_tmpfs(folder, "1m")
        (folder / "models.yaml").write_text(OLD)
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        try:
            yield folder / "models.yaml"
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=False)
    else:
        (folder / "models.yaml").write_text(OLD)
        os.chmod(folder / "models.yaml", 0o444)
        os.chmod(folder, 0o555)
        try:
            yield folder / "models.yaml"
        finally:
            os.chmod(folder, 0o755)


@pytest.mark.parametrize(
    "argv",
    [["models", "add", "--study", "all"], ["models", "add", "extra", "openai/gpt-4o"]],
    ids=["study-all", "one-model"],
)
def test_a_read_only_models_yaml_is_one_line_naming_the_file_and_the_fix(
    read_only_models, argv, monkeypatch, capsys, tmp_path
):
    _use(read_only_models, monkeypatch, tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "models.yaml" in err and "cannot write" in err and "RELREASON_MODELS" in err, err
    assert "Traceback" not in err
    assert read_only_models.read_text() == OLD


@pytest.mark.parametrize("where", ["missing/models.yaml", "a_file/models.yaml", "a_folder"])
def test_a_models_yaml_path_that_cannot_be_a_file_is_one_line(where, monkeypatch, capsys, tmp_path):
    (tmp_path / "a_file").write_text("not a folder\n")
    (tmp_path / "a_folder").mkdir()
    _use(tmp_path / where, monkeypatch, tmp_path)
    assert main(["models", "add", "extra", "openai/gpt-4o"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and where in err, err
