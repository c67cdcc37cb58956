"""The longest cables of the selected devices, computed off the GUI thread.

Lengths and media come from :class:`~designer.physical.views.PhysicalView`
(the numbers of the report: same routing, same cage sharing), built on a
snapshot of the design in a one-thread pool. The view is kept until an edit
may change a length, so a new selection alone is answered at once.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Signal

from designer.catalog.loader import Catalog
from designer.core.commands import Document
from designer.core.model import Design, LinkArrays
from designer.core.snapshot import snapshot
from designer.physical.views import CableRun, PhysicalView
from designer.qt.jobs import Jobs, Ticket

LONGEST = 10
"""Cables drawn for a selection."""


def _build(
    design: Design, links: LinkArrays, catalog: Catalog, ticket: Ticket
) -> PhysicalView:
    """Build the view of one snapshot (worker thread)."""
    from designer.analysis.index import build_index

    index = build_index(design, catalog, links=links)
    return PhysicalView(design, catalog, index)


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
        self.builds = 0
        """Views built (tests and the benchmark read it)."""
        self._view: PhysicalView | None = None
        self._wanted: list[str] = []
        self._running = False
        self._jobs = Jobs(self)

    @property
    def generation(self) -> int:
        """Bumped by every edit that may change a length."""
        return self._jobs.generation

    def invalidate(self) -> None:
        """Lengths may have changed: the next request builds the view again."""
        self._jobs.bump()
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
        self._jobs.submit(
            partial(_build, design, links, self.catalog),
            self._on_built,
            self._on_error,
            on_stale=self._on_stale,
        )

    def _on_stale(self) -> None:
        self._running = False
        if self._wanted:
            self._start()  # an edit came meanwhile: the state it read is gone

    def _on_error(self, exc: BaseException) -> None:
        self._running = False  # an unplaced or broken state: no cables
        self.ready.emit([])

    def _on_built(self, view: PhysicalView, seconds: float) -> None:
        self._running = False
        self.builds += 1
        self._view = view
        if self._wanted:
            self.ready.emit(self._runs(view))

    @property
    def busy(self) -> bool:
        """A view is being built."""
        return self._running

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Wait for a running build."""
        self._jobs.shutdown(timeout_ms)


__all__ = ["LONGEST", "CableRunner"]
