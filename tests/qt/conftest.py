"""Qt test setup: QStandardPaths test mode, app naming, a main-window factory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QStandardPaths
from PySide6.QtWidgets import QApplication

QStandardPaths.setTestModeEnabled(True)


@pytest.fixture(autouse=True)
def _delete_closed_widgets(qapp: QApplication) -> Iterator[None]:
    """Delete what the test (or pytest-qt) closed and ``deleteLater()``-ed.

    Outside a running event loop Qt never delivers those deferred deletes: each
    window would stay alive with its ~65 top-level menus and popups, served by
    every later ``processEvents``, so each test's setup grew slower than the
    last (6 s of CPU after a dozen windows). A main window closed but never
    ``deleteLater()``-ed (``run_gui`` after a screenshot) is kept alive by its
    signal connections until a garbage collection that may never come: it is
    deleted too (0.4 s more setup for every later test, each)."""
    yield
    from designer.qt.main_window import MainWindow

    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MainWindow) and not widget.isVisible():
            widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


@pytest.fixture(autouse=True)
def _configured_app(qapp: QApplication) -> Iterator[None]:
    """Name and style the app like the real one; start each test with empty settings."""
    from designer.qt.app import configure_app

    configure_app(qapp)
    QSettings().clear()
    yield
    QSettings().clear()


@pytest.fixture(autouse=True, scope="session")
def _release_clipboard_at_end() -> Iterator[None]:
    """Leave no Python-made QMimeData on the clipboard: PySide6 segfaults at exit."""
    yield
    from designer.qt.canvas.edits import release_clipboard

    release_clipboard()


@pytest.fixture(autouse=True)
def recovery_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Recovery copies go to a fresh folder per test; the session ends after it."""
    from designer.qt import autosave

    directory = tmp_path_factory.mktemp("recovery")
    autosave.use_directory(directory)
    yield directory
    autosave.use_directory(None)


@pytest.fixture
def main_window(qtbot: object) -> Iterator[Callable[..., object]]:
    """Factory: ``main_window()`` creates a shown MainWindow; all are closed after."""
    from designer.qt.main_window import MainWindow

    windows: list[MainWindow] = []

    def make(catalog: object = None) -> MainWindow:
        window = MainWindow(catalog)  # type: ignore[arg-type]
        window.resize(1400, 900)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        if not shiboken6.isValid(window):
            continue  # the test deleted it already
        window.document.mark_clean()  # never prompt while tearing down
        window.close()
        window.deleteLater()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The offscreen platform warns that it cannot propagate size hints; not a bug."""
    for item in items:
        if "tests/qt" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.qt_log_ignore("propagateSizeHints"))
