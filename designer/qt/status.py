"""Messages in the window's status bar: one line, elided to the room left.

A refusal can be long ("dgx-h100-2: port group 'compute' has 8 ports ..., 68
too many"); QStatusBar paints a temporary message clipped at the permanent
widgets, which cut it mid-word. :func:`show_message` shows it on one line,
elided with "…" to the width left beside the permanent widgets, and puts the
whole text in the status bar's tooltip (hover to read it); the canvas's own
message shows refusals in full as well.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStatusBar, QWidget

MESSAGE_MS = 8000
"""How long a message stays."""
_MARGIN = 32
"""Pixels kept free for the size grip and the widgets' spacing."""


def one_line(text: str) -> str:
    """Line breaks and runs of spaces as single spaces."""
    return " ".join(text.split())


def elided(text: str, metrics: QFontMetrics, room: int) -> str:
    """``text`` cut to ``room`` pixels with a trailing "…" (whole when it fits)."""
    if metrics.horizontalAdvance(text) <= room:
        return text
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(room, 40))


def message_room(bar: QStatusBar, permanent: Iterable[QWidget]) -> int:
    """Pixels the temporary message has left of the visible permanent widgets
    (where the bar has laid them out; by their size hints before that)."""
    shown = [w for w in permanent if w.isVisible() and w.width() > 0]
    if shown:
        left = min(w.geometry().left() for w in shown)
        taken = sum(w.sizeHint().width() for w in shown) + _MARGIN
        return min(left - _MARGIN // 2, bar.width() - taken)
    return bar.width() - _MARGIN


def show_message(
    bar: QStatusBar, text: str, permanent: Iterable[QWidget], timeout: int = MESSAGE_MS
) -> str:
    """Show ``text`` on one line, elided to fit; the whole text is the tooltip.
    Returns what is shown."""
    full = one_line(text)
    shown = elided(full, bar.fontMetrics(), message_room(bar, permanent))
    bar.showMessage(shown, timeout)
    bar.setToolTip(full if shown != full else "")
    return shown
