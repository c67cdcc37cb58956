"""Leftover temp files of interrupted saves, and saving a snapshot from a thread."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import designer.io.save as save_module
from designer.core.device_commands import move_devices
from designer.core.document import Document
from designer.core.model import Design
from designer.io import (
    dumps_design,
    load_design,
    remove_stale_temps,
    save_design,
    snapshot,
)
from designer.io.save import STALE_AFTER

HEADER = '{\n  "schema_version": 1,\n  "settings": {\n    "name": "half'


def leftover(folder: Path, name: str, text: str = HEADER, age: float = 3600) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_next_save_removes_an_old_leftover(tmp_path: Path, design: Design) -> None:
    old = leftover(tmp_path, ".d.json.a1b2c3d4.tmp")
    empty = leftover(tmp_path, ".other.json.zz_9zz9z.tmp", text="")
    save_design(design, tmp_path / "d.json")
    assert not old.exists() and not empty.exists()
    assert names(tmp_path) == ["d.json"]


def test_next_open_removes_an_old_leftover(
    tmp_path: Path, design: Design, catalog: Any
) -> None:
    save_design(design, tmp_path / "d.json")
    old = leftover(tmp_path, ".d.json.k3k3k3k3.tmp")
    assert load_design(tmp_path / "d.json", catalog=catalog) == design
    assert not old.exists()


@pytest.mark.parametrize(
    ("name", "text", "age"),
    [
        (".d.json.a1b2c3d4.tmp", HEADER, STALE_AFTER / 2),  # a save may be running
        (".d.json.a1b2c3d4.tmp", "not a design", 3600),  # not written by us
        (".d.json.A1B2C3D4.tmp", HEADER, 3600),  # not our random part
        (".d.json.tmp", HEADER, 3600),
        ("d.json.a1b2c3d4.tmp", HEADER, 3600),  # no leading dot
        (".d.json.a1b2c3d4.tmp.bak", HEADER, 3600),
    ],
)
def test_other_files_are_left_alone(
    tmp_path: Path, design: Design, name: str, text: str, age: float
) -> None:
    kept = leftover(tmp_path, name, text, age)
    save_design(design, tmp_path / "d.json")
    assert kept.exists()


def test_a_temp_file_locked_by_a_live_writer_is_kept(tmp_path: Path) -> None:
    busy = leftover(tmp_path, ".d.json.l0ck3d00.tmp")
    with busy.open("rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        assert remove_stale_temps(tmp_path) == []
    assert remove_stale_temps(tmp_path) == [busy]


def test_symlinks_and_folders_are_left_alone(tmp_path: Path) -> None:
    target = leftover(tmp_path, "target.txt")
    link = tmp_path / ".d.json.s1mlink0.tmp"
    link.symlink_to(target)
    (tmp_path / ".e.json.f0lder00.tmp").mkdir()
    assert remove_stale_temps(tmp_path) == []
    assert link.is_symlink() and target.exists()


def test_an_unreadable_folder_is_not_an_error(tmp_path: Path) -> None:
    assert remove_stale_temps(tmp_path / "missing") == []


SAVER = textwrap.dedent(
    """
    import sys
    from designer.generate import fat_tree
    from designer.io import save_design
    design = fat_tree("dgx-h100", 512, "qm9700")
    print("ready", flush=True)
    while True:
        save_design(design, sys.argv[1])
    """
)


@pytest.mark.slow
def test_kill_during_save_keeps_the_file_and_the_next_save_cleans_up(
    tmp_path: Path, design: Design
) -> None:
    """SIGKILL a process that saves in a loop; the target always loads, and the
    temp file it left is removed by the next save once it is stale."""
    target = tmp_path / "big.json"
    caught = None
    for _ in range(20):
        with subprocess.Popen(
            [sys.executable, "-c", SAVER, str(target)],
            stdout=subprocess.PIPE,
            cwd=Path(__file__).parents[2],
        ) as child:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == b"ready"
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                temps = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
                if temps and target.exists():
                    child.send_signal(signal.SIGKILL)
                    break
                time.sleep(0.001)
            else:
                child.kill()
        left = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        if left:
            caught = left
            break
    assert caught, "never killed a save in the middle"
    Design.model_validate_json(target.read_bytes())  # never half written
    for path in caught:
        then = time.time() - 2 * STALE_AFTER
        os.utime(path, (then, then))
    save_design(design, tmp_path / "small.json")
    assert names(tmp_path) == ["big.json", "small.json"]


def test_snapshot_is_unchanged_by_later_edits(design: Design) -> None:
    doc = Document(design)
    snap = snapshot(doc.design)
    text = dumps_design(snap)
    doc.execute(move_devices({"dgx-1": (5.0, 5.0)}))
    doc.design.links.pop(0)
    assert dumps_design(snap) == text
    assert snap == Design.model_validate_json(text)


def test_saving_a_snapshot_in_a_thread_while_editing(
    tmp_path: Path, design: Design, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_umask(mask: int) -> int:
        raise AssertionError("os.umask is process-wide: not from a save")

    monkeypatch.setattr(save_module.os, "umask", no_umask)
    doc = Document(design)
    snap = snapshot(doc.design)
    expected = dumps_design(snap)
    worker = threading.Thread(target=save_design, args=(snap, tmp_path / "auto.json"))
    worker.start()
    for i in range(200):
        doc.execute(move_devices({"dgx-2": (float(i), 0.0)}))
    worker.join()
    assert (tmp_path / "auto.json").read_text(encoding="utf-8") == expected
