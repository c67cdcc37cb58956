"""The longest cables of the selected devices, computed off the GUI thread.

Lengths and media come from :class:`~designer.physical.views.PhysicalView`
(the numbers of the report: same routing, same cage sharing), built on a
snapshot of the design in a one-thread pool. The view is kept until an edit
may change a length, so a new selection alone is answered at once.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from designer.catalog.loader import Catalog
from designer.core.commands import Document
from designer.core.model import Design, LinkArrays
from designer.core.snapshot import snapshot
from designer.physical.views import CableRun, PhysicalView

LONGEST = 10
"""Cables drawn for a selection."""


class _Signals(QObject):
    finished = Signal(object)


class _Job(QRunnable):
    def __init__(
        self,
        generation: int,
        design: Design,
        links: LinkArrays,
        catalog: Catalog,
        signals: _Signals,
    ) -> None:
        super().__init__()
        self.generation = generation
        self.design = design
        self.links = links
        self.catalog = catalog
        self.signals = signals

    def run(self) -> None:
        """Build the view; never raise into the pool."""
        result: Any
        try:
            from designer.analysis.index import build_index

            index = build_index(self.design, self.catalog, links=self.links)
            result = PhysicalView(self.design, self.catalog, index)
        except Exception as exc:  # an unplaced or broken state: no cables
            result = exc
        self.signals.finished.emit((self.generation, result))


class CableRunner(QObject):
    """Answers "the longest cables of these devices" for the current design.

    ``ready(runs)`` carries the runs (longest first) for the latest request.
    """

    ready = Signal(list)

    def __init__(
        self, document: Document, catalog: Catalog, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self.generation = 0
        self.builds = 0
        """Views built (tests and the benchmark read it)."""
        self._view: PhysicalView | None = None
        self._wanted: list[str] = []
        self._running = False
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals()
        self._signals.finished.connect(self._on_finished)

    def invalidate(self) -> None:
        """Lengths may have changed: the next request builds the view again."""
        self.generation += 1
        self._view = None

    def request(self, devices: list[str]) -> None:
        """Ask for the longest cables of ``devices`` (empty: none)."""
        self._wanted = list(devices)
        if not devices:
            self.ready.emit([])
            return
        if self._view is not None:
            self.ready.emit(self._runs(self._view))
            return
        if not self._running:
            self._start()

    def _runs(self, view: PhysicalView) -> list[CableRun]:
        return view.longest_cables(self._wanted, LONGEST)

    def _start(self) -> None:
        if self.document.design.physical is None:
            self.ready.emit([])
            return
        design, links = snapshot(self.document.design)
        self._running = True
        self._pool.start(
            _Job(self.generation, design, links, self.catalog, self._signals)
        )

    def _on_finished(self, payload: tuple[int, object]) -> None:
        generation, result = payload
        self._running = False
        if generation != self.generation:
            if self._wanted:
                self._start()  # an edit came meanwhile: the state it read is gone
            return
        if not isinstance(result, PhysicalView):
            self.ready.emit([])
            return
        self.builds += 1
        self._view = result
        if self._wanted:
            self.ready.emit(self._runs(result))

    @property
    def busy(self) -> bool:
        """A view is being built."""
        return self._running

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Wait for a running build."""
        self.generation += 1
        self._pool.clear()
        self._pool.waitForDone(timeout_ms)


__all__ = ["LONGEST", "CableRunner"]
