"""Small helpers shared by the window tests."""

from __future__ import annotations

from typing import Any

from designer.core.device_commands import AddDevices
from designer.core.model import Device


def settle(qtbot: Any, window: Any, timeout: int = 60_000) -> Any:
    """Wait until the window shows the analysis of the current design."""
    qtbot.waitUntil(
        lambda: window.latest_report is not None and not window.runner.busy,
        timeout=timeout,
    )
    return window.latest_report


def add_dgx(window: Any, n: int, prefix: str = "dgx") -> list[str]:
    """Add ``n`` DGX H100 nodes in one command; return their ids."""
    devices = [
        Device(
            id=f"{prefix}-{i}",
            catalog_id="dgx-h100",
            label=f"DGX {i}",
            x=160.0 * i,
            y=400.0,
        )
        for i in range(n)
    ]
    window.document.execute(AddDevices(devices))
    return [d.id for d in devices]


def window_png(
    window: Any,
    path: Any,
    size: tuple[int, int] = (1280, 800),
    zoom: Any = None,
) -> Any:
    """Render the window at ``size`` (optionally zoomed to a scene QRectF) to PNG.

    Returns the grabbed QImage; look at the file to see what a user sees.
    """
    from PySide6.QtWidgets import QApplication

    window.resize(*size)
    QApplication.processEvents()
    if zoom is None:
        window.canvas.fit_all()
    else:
        window.canvas.zoom_to_rect(zoom)
    QApplication.processEvents()
    image = window.grab().toImage()
    image.save(str(path), "PNG")
    return image
