"""Files: title, unsaved prompts, atomic save, bad files, recent files, drops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from tests.qt.helpers import add_dgx, settle

Button = QMessageBox.StandardButton


@pytest.fixture
def answers(monkeypatch: Any) -> list[Any]:
    """Queue answers for the unsaved-changes question; record every question."""
    queue: list[Any] = []

    def question(*args: Any, **kwargs: Any) -> Any:
        queue.append(("asked", args[2]))
        return next(a for a in queue if not isinstance(a, tuple))

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    return queue


@pytest.fixture
def errors(monkeypatch: Any) -> list[str]:
    """Record error dialogs instead of showing them."""
    seen: list[str] = []
    monkeypatch.setattr(
        QMessageBox,
        "critical",
        staticmethod(lambda parent, title, text, *a: seen.append(text)),
    )
    return seen


@pytest.mark.slow
def test_title_shows_name_and_unsaved_marker(main_window: Any, tmp_path: Path) -> None:
    window = main_window()
    assert not window.isWindowModified()
    assert window.windowTitle().startswith("Untitled design[*]")
    add_dgx(window, 1)
    assert window.isWindowModified()
    assert window.save_to(tmp_path / "pod.json")
    assert not window.isWindowModified()
    assert window.windowTitle().startswith("pod.json[*]")
    window.actions_.undo.trigger()
    assert window.isWindowModified()
    window.actions_.redo.trigger()
    assert not window.isWindowModified()  # back at the saved state


@pytest.mark.slow
def test_save_and_reopen_round_trips(main_window: Any, tmp_path: Path) -> None:
    window = main_window()
    add_dgx(window, 3)
    before = window.document.design.model_dump()
    path = tmp_path / "three.json"
    assert window.save_to(path)
    assert not list(tmp_path.glob("*.tmp*"))  # atomic: no temp file left behind
    window.new_design()
    assert window.document.design.devices == []
    assert window.open_path(path)
    assert window.document.design.model_dump() == before
    assert window.path == path


@pytest.mark.slow
def test_bad_file_shows_a_clear_error_and_keeps_the_design(
    main_window: Any, tmp_path: Path, errors: list[str]
) -> None:
    window = main_window()
    add_dgx(window, 2)
    before = window.document.design.model_dump()
    bad = tmp_path / "broken.json"
    bad.write_text('{"schema_version": 1, "devices": [{"id": 5}]}', encoding="utf-8")
    assert not window.open_path(bad)
    assert window.document.design.model_dump() == before
    assert window.isWindowModified()  # the unsaved edits are still there
    assert len(errors) == 1
    assert "broken.json" in errors[0]
    assert "devices" in errors[0]  # names the place
    assert "unchanged" in errors[0]


@pytest.mark.slow
def test_not_json_at_all_is_refused(
    main_window: Any, tmp_path: Path, errors: list[str]
) -> None:
    window = main_window()
    bad = tmp_path / "notes.json"
    bad.write_text("this is not json", encoding="utf-8")
    assert not window.open_path(bad)
    assert "notes.json" in errors[0]
    assert window.path is None


@pytest.mark.slow
def test_closing_with_unsaved_changes_asks(
    main_window: Any, answers: list[Any]
) -> None:
    window = main_window()
    add_dgx(window, 1)
    answers.append(Button.Cancel)
    assert not window.close()
    assert window.isVisible()
    assert (
        "asked",
        "“Untitled design” has unsaved changes. Save them first?",
    ) in answers
    answers.clear()
    answers.append(Button.Discard)
    assert window.close()


@pytest.mark.slow
def test_new_with_unsaved_changes_cancel_keeps_the_design(
    main_window: Any, answers: list[Any]
) -> None:
    window = main_window()
    add_dgx(window, 2)
    answers.append(Button.Cancel)
    window.new_design()
    assert len(window.document.design.devices) == 2
    answers[:] = [Button.Discard]
    window.new_design()
    assert window.document.design.devices == []
    assert not window.isWindowModified()


@pytest.mark.slow
def test_save_answer_saves_before_opening(
    main_window: Any, answers: list[Any], tmp_path: Path
) -> None:
    window = main_window()
    other = tmp_path / "other.json"
    assert window.save_to(other)
    target = tmp_path / "mine.json"
    assert window.save_to(target)
    add_dgx(window, 2)
    answers.append(Button.Save)
    window.files.open_recent(str(other))
    saved = json.loads(target.read_text(encoding="utf-8"))
    assert len(saved["devices"]) == 2
    assert window.path == other


@pytest.mark.slow
def test_recent_files_newest_first_and_persisted(
    main_window: Any, tmp_path: Path
) -> None:
    window = main_window()
    for name in ("a.json", "b.json", "a.json"):
        assert window.save_to(tmp_path / name)
    expected = [str((tmp_path / n).resolve()) for n in ("a.json", "b.json")]
    assert window.files.recent_files() == expected
    second = main_window()
    assert second.files.recent_files() == expected
    second.actions_.recent_menu.aboutToShow.emit()
    texts = [a.text() for a in second.actions_.recent_menu.actions()]
    assert texts[:2] == ["&1 a.json", "&2 b.json"]


@pytest.mark.slow
def test_window_layout_persists(qtbot: Any, main_window: Any) -> None:
    window = main_window()
    window.charts_dock.hide()
    window.actions_.grid_snap.setChecked(False)
    assert not window.canvas.grid_snap
    window.close()
    again = main_window()
    assert not again.charts_dock.isVisible()
    assert not again.actions_.grid_snap.isChecked()
    assert not again.canvas.grid_snap


@pytest.mark.slow
def test_dropping_a_json_file_opens_it(main_window: Any, tmp_path: Path) -> None:
    source = main_window()
    add_dgx(source, 2)
    path = tmp_path / "dropped.json"
    assert source.save_to(path)
    window = main_window()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(50, 50),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    assert window.path == path
    assert len(window.document.design.devices) == 2


@pytest.mark.slow
def test_metrics_follow_an_opened_file(
    qtbot: Any, main_window: Any, tmp_path: Path
) -> None:
    source = main_window()
    add_dgx(source, 5)
    path = tmp_path / "five.json"
    assert source.save_to(path)
    window = main_window()
    settle(qtbot, window)
    assert window.open_path(path)
    assert settle(qtbot, window).gpus == 40


@pytest.mark.slow
def test_dropping_a_json_file_on_the_canvas_opens_it(
    qapp: Any, main_window: Any, tmp_path: Path
) -> None:
    from PySide6.QtGui import QDragEnterEvent

    source = main_window()
    add_dgx(source, 3)
    path = tmp_path / "on-canvas.json"
    assert source.save_to(path)
    window = main_window()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    viewport = window.canvas.viewport()
    centre = viewport.rect().center()
    enter = QDragEnterEvent(
        centre,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    qapp.sendEvent(viewport, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        QPointF(centre),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    qapp.sendEvent(viewport, drop)
    assert window.path == path
    assert len(window.document.design.devices) == 3


def _orphan_racks_window(main_window: Any) -> Any:
    """A window whose design has racks naming a group that is gone (a state the
    commands no longer make; a script or an older build could)."""
    from designer.core.commands import ReplaceDesign
    from designer.io import load_design as load

    window = main_window()
    sample = Path(__file__).resolve().parents[2] / "samples"
    d = load(sample / "minimum-viable-enterprise.json")
    d.devices[:] = [x.model_copy(update={"group": None}) for x in d.devices]
    d.groups[:] = [g for g in d.groups if g.id != "su01"]
    window.document.execute(ReplaceDesign(d, "Broken by a script"))
    return window


@pytest.mark.slow
def test_save_refuses_a_design_that_would_not_reopen_and_keeps_it(
    main_window: Any, tmp_path: Path, errors: list[str]
) -> None:
    window = _orphan_racks_window(main_window)
    before = window.document.design.model_dump()
    path = tmp_path / "pod.json"
    path.write_text("previous", encoding="utf-8")
    assert not window.save_to(path)
    assert path.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["pod.json"]
    (text,) = errors
    assert "not saved, because the file would not open again" in text
    assert "physical.racks[0].group: unknown group 'su01'" in text
    assert window.document.design.model_dump() == before
    assert window.isWindowModified()  # still unsaved: nothing is lost


@pytest.mark.slow
def test_autosave_refuses_it_too_and_says_why(
    main_window: Any, qtbot: Any, errors: list[str]
) -> None:
    window = _orphan_racks_window(main_window)
    saver = window.autosave
    with qtbot.waitSignal(saver.failed, timeout=20_000) as failed:
        saver.write_now()
    assert "Autosave failed" in failed.args[0]
    assert "unknown group 'su01'" in failed.args[0]
    assert saver.copy_path is None or not saver.copy_path.exists()
