"""Application start-up: the editor window, or an offscreen screenshot of it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

ORGANIZATION = "GPU Cluster Designer"
APPLICATION = "cluster-designer"
SCREENSHOT_SIZE = (1600, 1000)


def ensure_app(offscreen: bool = False) -> QApplication:
    """The QApplication (created, named and styled on first call)."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    if offscreen:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication(sys.argv[:1])
    configure_app(app)
    return app


def configure_app(app: QApplication) -> None:
    """Names (for QSettings and the desktop), Fusion style and the style sheet."""
    from designer.qt.resources import icon, style_sheet

    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    # Wayland compositors match windows to the installed menu entry
    # (packaging/cluster-designer.desktop: its icon and name) by this id; on X11
    # the application name is the WM_CLASS that StartupWMClass names.
    QGuiApplication.setDesktopFileName(APPLICATION)
    # Setting the style and sheet again re-polishes every widget (tens of
    # milliseconds with windows open): an app that has this sheet has both.
    sheet = style_sheet()
    if app.styleSheet() != sheet:
        app.setStyle("Fusion")
        app.setStyleSheet(sheet)
    app.setWindowIcon(icon("app"))


def wait_for_report(window: object, timeout_ms: int = 120_000) -> bool:
    """Spin the event loop until the window shows a fresh analysis (or it failed)."""
    from designer.qt.main_window import MainWindow

    assert isinstance(window, MainWindow)
    if window.latest_report is not None and not window.runner.busy:
        return True
    loop = QEventLoop()
    window.report_shown.connect(loop.quit)
    window.runner.failed.connect(loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    window.report_shown.disconnect(loop.quit)
    window.runner.failed.disconnect(loop.quit)
    return window.latest_report is not None


def save_screenshot(window: object, out: str | Path) -> bool:
    """Grab the window (after layout settles) into a PNG file."""
    from designer.qt.main_window import MainWindow

    assert isinstance(window, MainWindow)
    QApplication.processEvents()
    window.canvas.fit_all()
    QApplication.processEvents()
    return window.grab().save(str(out), "PNG")


def run_gui(
    path: str | None,
    screenshot: str | None,
    size: tuple[int, int] = SCREENSHOT_SIZE,
) -> int:
    """Open the editor (with FILE); with ``screenshot``, render a PNG and exit.

    ``size`` is the screenshot's window size. When none of the platform
    plugins Qt would try can load, the missing system packages are named and
    the exit code is 1 (:mod:`designer.qt.system_libs`). An interactive start
    first offers the recovery copies a crash left behind
    (:mod:`designer.qt.recovery_dialog`); a screenshot run neither offers them
    nor autosaves.
    """
    if QApplication.instance() is None:
        if screenshot is not None:
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from designer.qt.system_libs import platform_problem

        problem = platform_problem()
        if problem is not None:  # Qt would abort naming one library, or the wrong one
            print(f"cluster-designer: {problem}", file=sys.stderr)
            return 1
    app = ensure_app(offscreen=screenshot is not None)
    from designer.qt.main_window import MainWindow

    interactive = screenshot is None
    window = MainWindow(persist=interactive, autosave=interactive)
    window.headless = not interactive
    if screenshot is not None:
        window.resize(*size)
    opened = path is None or window.open_path(path)
    if not opened and screenshot is not None:
        window.close()
        return 2
    window.show()
    if screenshot is None:
        return _run_interactive(app, window)
    ok = wait_for_report(window)
    saved = save_screenshot(window, screenshot)
    window.document.mark_clean()
    window.close()
    if not saved:
        print(f"cluster-designer: cannot write {screenshot}", file=sys.stderr)
        return 1
    if not ok:
        why = window.validator_panel.state.text()
        print(f"cluster-designer: no analysis to show ({why})", file=sys.stderr)
        return 1
    return 0


def _run_interactive(app: QApplication, window: object) -> int:
    """The event loop, with the recovery offer once the window is on screen."""
    from designer.qt import autosave
    from designer.qt.main_window import MainWindow
    from designer.qt.recovery_dialog import offer_recovery

    assert isinstance(window, MainWindow)
    windows = [window]  # keeps restored windows alive

    def new_window() -> MainWindow:
        extra = MainWindow()
        extra.show()
        windows.append(extra)
        return extra

    app.aboutToQuit.connect(autosave.end_session)
    QTimer.singleShot(0, window, lambda: offer_recovery(window, new_window))
    return int(app.exec())
