"""kill -9 the real editor with an unsaved edit; the next start recovers it.

Runs ``cluster-designer gui`` in a child process (offscreen, with its own
application-data and settings folders) through ``autosave_driver.py``; the
autosave delay comes from ``CLUSTER_DESIGNER_AUTOSAVE_DELAY`` so the test takes
seconds, not the real 10 s.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from designer.core.document import Document
from designer.io import load_design, loads_design
from designer.qt.autosave import DELAY_ENV
from designer.qt.recovery_dialog import CHANGES, DESIGN, ORIGINAL
from tests.qt.autosave_driver import EDITED_NAME, make_edit

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("autosave_driver.py")
SAMPLE = ROOT / "samples" / "development.json"
WAIT_S = 90.0  # bound on every wait (a loaded machine starts Qt slowly)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env |= {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_RUNTIME_DIR": str(home / "runtime"),
        "QT_QPA_PLATFORM": "offscreen",
        DELAY_ENV: "0.2,1",
    }
    (home / "runtime").mkdir(mode=0o700, parents=True)
    return env


def _wait_for(check: Any, what: str, child: subprocess.Popen[str]) -> Any:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        if child.poll() is not None:
            _, err = child.communicate()
            pytest.fail(f"the editor exited ({child.returncode}) before {what}: {err}")
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    """Children started by the test; none outlives it."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for child in started:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=30)


def _start(args: list[str], env: dict[str, str], out: list[Any]) -> Any:
    child = subprocess.Popen(
        [sys.executable, str(DRIVER), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out.append(child)
    return child


@pytest.mark.slow
def test_kill_9_loses_no_more_than_the_autosave_delay(
    tmp_path: Path, processes: list[subprocess.Popen[str]]
) -> None:
    env = _env(tmp_path / "home")
    recovery = tmp_path / "home/data/GPU Cluster Designer/cluster-designer/recovery"
    edited = tmp_path / "edited.json"
    editor = _start(["edit", str(edited), str(SAMPLE)], env, processes)
    _wait_for(edited.exists, "the edit", editor)
    assert json.loads(edited.read_text())["modified"]

    def copy_with_edit() -> Path | None:
        for manifest in recovery.glob("*.manifest.json"):
            data = json.loads(manifest.read_text())
            if data["design_name"] == EDITED_NAME and data["steps"] == 2:
                return manifest
        return None

    manifest = _wait_for(copy_with_edit, "the recovery copy", editor)
    data = json.loads(manifest.read_text())
    assert data["pid"] == editor.pid
    assert data["original_path"] == str(SAMPLE)
    assert data["labels"] == ["Move device", "Rename design"]

    editor.send_signal(signal.SIGKILL)
    editor.communicate(timeout=30)
    assert editor.returncode == -signal.SIGKILL
    assert list(recovery.glob("*.design.json"))  # the crash left the copy

    # The expected design, made here without Qt: the sample with the same edit.
    document = Document(load_design(SAMPLE))
    make_edit(document)
    expected = document.design.model_dump()

    report = tmp_path / "recovered.json"
    again = _start(["recover", str(report)], env, processes)
    _wait_for(report.exists, "the recovery", again)
    assert again.wait(timeout=WAIT_S) == 0, again.communicate()[1]
    result = json.loads(report.read_text())
    [row] = result["rows"]
    assert row[DESIGN] == EDITED_NAME and row[ORIGINAL] == str(SAMPLE)
    assert row[CHANGES] == "2 changes: Move device, Rename design"
    assert loads_design(result["design"]).model_dump() == expected
    assert result["modified"] and result["clean_index"] is None
    assert result["origin"] == f"Recovered {EDITED_NAME}"
    assert result["path"] == str(SAMPLE)
    # The recovered window was then closed without saving (its changes discarded):
    # a clean exit leaves nothing to recover and no lock behind.
    assert sorted(p.name for p in recovery.iterdir()) == []
