"""Autosave and recovery in the window: copies follow unsaved changes; a crash
leaves them; the next start offers them and restores them exactly."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from designer.core.commands import SetSettings
from designer.core.device_commands import move_devices
from designer.io import load_design
from designer.io.recovery import RecoveryStore
from designer.qt import autosave
from designer.qt.autosave import Delays, delays_from_env
from designer.qt.recovery_dialog import (
    CHANGES,
    DESIGN,
    ORIGINAL,
    RecoveryDialog,
    offer_recovery,
)
from tests.qt.helpers import add_dgx

FAST = Delays(idle_s=0.05, max_s=0.2)


def _fast(window: Any) -> Any:
    window.autosave.delays = FAST
    return window


def _copies(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.design.json"))


def _wait_written(qtbot: Any, window: Any) -> Path:
    """Wait until the window's changes are in its copy; return the copy."""
    saver = window.autosave

    def landed() -> bool:
        path = saver.copy_path
        return bool(path and not saver.pending and not saver.writing and path.exists())

    qtbot.waitUntil(landed, timeout=20_000)
    saver.flush()
    return Path(saver.copy_path)


def _edit(window: Any, n: int = 3, name: str = "Hall B", prefix: str = "dgx") -> None:
    add_dgx(window, n, prefix)
    settings = window.document.design.settings.model_copy(update={"name": name})
    window.document.execute(SetSettings(settings, "Rename design"))


def _crash() -> None:
    """What the death of the process does to its claim: the lock goes, copies stay."""
    autosave.end_session()


def _answer(
    choice: str, *, tick: tuple[int, ...] = (), untick: tuple[int, ...] = ()
) -> list[RecoveryDialog]:
    """Tick or untick rows, then click ``choice`` in the recovery dialog once shown."""
    seen: list[RecoveryDialog] = []

    def click() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, RecoveryDialog):
            QTimer.singleShot(10, click)
            return
        seen.append(dialog)
        for i in tick:
            dialog.set_checked(dialog.entries[i], True)
        for i in untick:
            dialog.set_checked(dialog.entries[i], False)
        getattr(dialog, f"{choice}_button").click()

    QTimer.singleShot(0, click)
    return seen


@pytest.mark.slow
def test_an_unsaved_edit_is_copied_with_its_manifest(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    window = _fast(main_window())
    _edit(window)
    copy = _wait_written(qtbot, window)
    assert copy.parent == recovery_dir
    restored = load_design(copy, catalog=window.catalog)
    assert restored.model_dump() == window.document.design.model_dump()
    manifest = json.loads(
        copy.with_name(copy.name[:-12] + ".manifest.json").read_text()
    )
    assert manifest["design_name"] == "Hall B"
    assert manifest["original_path"] is None and manifest["saved_at"] is None
    assert manifest["steps"] == 2
    assert manifest["labels"] == ["Add 3 devices", "Rename design"]
    assert manifest["pid"] == os.getpid()
    assert not list(recovery_dir.glob(".*.tmp"))  # written atomically


@pytest.mark.slow
def test_nothing_is_written_for_a_clean_document(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    window = _fast(main_window())
    add_dgx(window, 1)
    window.actions_.undo.trigger()  # back at the (empty) saved state
    qtbot.wait(400)  # both delays passed
    window.autosave.flush()
    assert _copies(recovery_dir) == []


@pytest.mark.slow
def test_continuous_editing_is_copied_before_it_stops(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    window = main_window()
    window.autosave.delays = Delays(idle_s=30.0, max_s=0.3)  # idle never fires
    add_dgx(window, 2)
    written: list[float] = []
    window.autosave.written.connect(written.append)
    for step in range(200):
        if written:
            break
        window.document.execute(move_devices({"dgx-0": (10.0 * step, 400.0)}))
        qtbot.wait(20)
    assert written, "no copy while edits kept coming"
    window.autosave.flush()
    copy = load_design(_copies(recovery_dir)[0], catalog=window.catalog)
    assert copy.devices[0].x > 0  # holds moves made while editing went on


@pytest.mark.slow
def test_saving_removes_the_copy_and_the_next_edit_writes_one_again(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path, tmp_path: Path
) -> None:
    window = _fast(main_window())
    _edit(window)
    _wait_written(qtbot, window)
    assert window.save_to(tmp_path / "hall.json")
    window.autosave.flush()
    assert _copies(recovery_dir) == []
    add_dgx(window, 1, prefix="late")
    copy = _wait_written(qtbot, window)
    manifest = json.loads(
        copy.with_name(copy.name[:-12] + ".manifest.json").read_text()
    )
    assert manifest["original_path"] == str((tmp_path / "hall.json").resolve())
    assert manifest["saved_at"] is not None and manifest["steps"] == 1
    window.actions_.undo.trigger()  # back at the saved state: nothing to recover
    window.autosave.flush()
    assert _copies(recovery_dir) == []


@pytest.mark.slow
def test_new_and_close_remove_the_copy_after_discarding(
    qtbot: Any,
    main_window: Callable[..., Any],
    recovery_dir: Path,
    monkeypatch: Any,
) -> None:
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(
        QMessageBox,
        "question",
        staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard),
    )
    window = _fast(main_window())
    _edit(window)
    _wait_written(qtbot, window)
    window.new_design()
    window.autosave.flush()
    assert _copies(recovery_dir) == []
    _edit(window, 1, "Second")
    _wait_written(qtbot, window)
    assert window.close()
    assert _copies(recovery_dir) == []


@pytest.mark.slow
def test_two_windows_get_two_copies(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    first, second = _fast(main_window()), _fast(main_window())
    _edit(first, 1, "One")
    _edit(second, 2, "Two")
    a, b = _wait_written(qtbot, first), _wait_written(qtbot, second)
    assert a != b
    assert {p.name for p in _copies(recovery_dir)} == {a.name, b.name}
    assert load_design(a, catalog=first.catalog).settings.name == "One"
    assert load_design(b, catalog=second.catalog).settings.name == "Two"


@pytest.mark.slow
def test_a_running_editors_copies_are_not_offered(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    window = _fast(main_window())
    _edit(window)
    _wait_written(qtbot, window)
    other = main_window()
    assert offer_recovery(other, main_window) == []  # no dialog: nothing offered
    assert len(_copies(recovery_dir)) == 1


@pytest.mark.slow
def test_recovery_after_a_crash_restores_the_exact_design_unsaved(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    crashed = _fast(main_window())
    _edit(crashed, 4, "Before the crash")
    _wait_written(qtbot, crashed)
    expected = crashed.document.design.model_dump()
    _crash()
    window = main_window()
    seen = _answer("recover")
    restored = offer_recovery(window, main_window)
    assert restored == [window]  # an empty window takes the first copy
    dialog = seen[0]
    row = dialog.items[0]
    assert row.text(DESIGN) == "Before the crash"
    assert row.text(ORIGINAL) == "never saved"
    assert row.text(CHANGES) == "2 changes (never saved): Add 4 devices, Rename design"
    assert window.document.design.model_dump() == expected  # order included
    assert window.isWindowModified()
    assert window.document.history.clean_index is None
    assert window.history_panel.list.item(0).text() == "Recovered Before the crash"
    # The copy now belongs to the restored document (and stays until saved).
    window.autosave.flush()
    [copy] = _copies(recovery_dir)
    assert copy == window.autosave.copy_path
    assert load_design(copy, catalog=window.catalog).model_dump() == expected


@pytest.mark.slow
def test_recovery_of_a_saved_file_keeps_its_path_and_history_count(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path, tmp_path: Path
) -> None:
    crashed = _fast(main_window())
    add_dgx(crashed, 2)
    assert crashed.save_to(tmp_path / "rows.json")
    _edit(crashed, 1, "Rows", prefix="more")
    _wait_written(qtbot, crashed)
    expected = crashed.document.design.model_dump()
    _crash()
    window = main_window()
    _answer("recover")
    offer_recovery(window, main_window)
    assert window.path == (tmp_path / "rows.json").resolve()
    assert window.document.design.model_dump() == expected
    # Further edits add to the steps made before the crash.
    _fast(window)
    add_dgx(window, 1, prefix="after")
    copy = _wait_written(qtbot, window)
    manifest = json.loads(
        copy.with_name(copy.name[:-12] + ".manifest.json").read_text()
    )
    assert manifest["steps"] == 3
    assert manifest["labels"][-1] == "Add DGX 0"


@pytest.mark.slow
def test_declining_discards_the_copy(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    crashed = _fast(main_window())
    _edit(crashed)
    _wait_written(qtbot, crashed)
    _crash()
    window = main_window()
    _answer("discard")
    assert offer_recovery(window, main_window) == []
    assert _copies(recovery_dir) == [] and not list(
        recovery_dir.glob("*.manifest.json")
    )
    assert window.document.design.devices == []
    assert not window.isWindowModified()


@pytest.mark.slow
def test_later_keeps_the_copy_for_the_next_start(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    crashed = _fast(main_window())
    _edit(crashed)
    _wait_written(qtbot, crashed)
    _crash()
    _answer("later")
    assert offer_recovery(main_window(), main_window) == []
    assert len(_copies(recovery_dir)) == 1
    assert len(RecoveryStore(recovery_dir).entries()) == 1


@pytest.mark.slow
def test_several_copies_open_in_their_own_windows(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    one, two = _fast(main_window()), _fast(main_window())
    _edit(one, 1, "One")
    _edit(two, 2, "Two")
    _wait_written(qtbot, one)
    _wait_written(qtbot, two)
    _crash()
    window = main_window()
    add_dgx(window, 1)  # not empty: every copy gets a new window
    _answer("recover")
    restored = offer_recovery(window, main_window)
    assert len(restored) == 2 and window not in restored
    names = sorted(w.document.design.settings.name for w in restored)
    assert names == ["One", "Two"]
    assert all(w.isWindowModified() for w in restored)


@pytest.mark.slow
def test_a_broken_copy_is_listed_with_its_error_and_can_be_deleted(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    dead = "0123456789ab-1"
    (recovery_dir / f"{dead}.design.json").write_text('{"schema_version": 1, "devi')
    (recovery_dir / f"{dead}.manifest.json").write_text("[1, 2")
    (recovery_dir / "notes.txt").write_text("not ours")
    window = main_window()
    seen = _answer("later")
    offer_recovery(window, main_window)
    dialog = seen[0]
    assert dialog.items[0].checkState(0) == Qt.CheckState.Unchecked
    assert not dialog.recover_button.isEnabled()
    problem = dialog.items[0].child(0).text(0)
    assert "Cannot be recovered" in problem
    assert f"{dead}.design.json" in problem and "line 1" in problem
    assert "description cannot be read" in problem
    # Ticked and discarded, it goes; files that are not ours stay.
    _answer("discard", tick=(0,))
    assert offer_recovery(window, main_window) == []
    assert sorted(p.name for p in recovery_dir.iterdir()) == ["notes.txt"]


@pytest.mark.slow
def test_unticked_copies_stay_when_the_others_are_recovered(
    qtbot: Any, main_window: Callable[..., Any], recovery_dir: Path
) -> None:
    one, two = _fast(main_window()), _fast(main_window())
    _edit(one, 1, "One")
    _wait_written(qtbot, one)
    _edit(two, 2, "Two")
    _wait_written(qtbot, two)
    _crash()
    seen = _answer("recover", untick=(1,))
    restored = offer_recovery(main_window(), main_window)
    kept = seen[0].entries[1]
    assert [w.document.design.settings.name for w in restored] == [
        seen[0].entries[0].name
    ]
    assert [e.document for e in RecoveryStore(recovery_dir).entries()] == [
        kept.document
    ]


@pytest.mark.slow
def test_delays_come_from_the_environment_for_tests() -> None:
    assert delays_from_env({}) == Delays()
    assert delays_from_env({autosave.DELAY_ENV: "0.5"}) == Delays(0.5, 30.0)
    assert delays_from_env({autosave.DELAY_ENV: "0.5,2"}) == Delays(0.5, 2.0)
    assert delays_from_env({autosave.DELAY_ENV: "3,1"}) == Delays(3.0, 3.0)


@pytest.mark.slow
@pytest.mark.parametrize("text", ["fast", "-1", "1,2,3", "nan", "1e9"])
def test_bad_delay_settings_are_ignored_with_a_message(text: str, capsys: Any) -> None:
    assert delays_from_env({autosave.DELAY_ENV: text}) == Delays()
    assert autosave.DELAY_ENV in capsys.readouterr().err


@pytest.mark.slow
def test_the_default_delays_keep_the_promise() -> None:
    # At most 30 s after the last edit, at least every 2 minutes while editing.
    assert autosave.IDLE_DELAY_S <= 30.0 and autosave.MAX_DELAY_S <= 120.0


@pytest.mark.slow
def test_a_screenshot_run_neither_offers_recovery_nor_autosaves(
    qapp: Any, recovery_dir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    from designer.qt.app import run_gui

    shown: list[object] = []
    monkeypatch.setattr(RecoveryDialog, "exec", lambda self: shown.append(self))
    dead = recovery_dir / "0123456789ab-1.design.json"
    dead.write_text("{}")
    sample = Path(__file__).resolve().parents[2] / "samples" / "development.json"
    assert run_gui(str(sample), str(tmp_path / "shot.png")) == 0
    assert shown == []
    assert sorted(p.name for p in recovery_dir.iterdir()) == [dead.name]
