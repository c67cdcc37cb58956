"""The longest cables of the selected devices, computed off the GUI thread.

Lengths and media come from :class:`~designer.physical.views.PhysicalView`
(the numbers of the report: same routing, same cage sharing), built on a
snapshot of the design in a one-thread pool, over the index the validator's
worker made of that very state (:meth:`~designer.qt.analysis_runner.
AnalysisRunner.current_index`): after an edit the runner waits for that
analysis instead of reading the design a second time. The view is kept until an edit
may change a length, so a new selection alone is answered at once.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from designer.analysis.index import DesignIndex
from designer.catalog.loader import Catalog
from designer.core.document import Document
from designer.core.model import Design, LinkArrays
from designer.core.snapshot import snapshot
from designer.physical.views import CableRun, PhysicalView
from designer.qt.jobs import Jobs, Ticket

if TYPE_CHECKING:
    from designer.qt.analysis_runner import AnalysisRunner

LONGEST = 10
"""Cables drawn for a selection."""


def _build(
    design: Design,
    links: LinkArrays,
    catalog: Catalog,
    index: DesignIndex | None,
    ticket: Ticket,
) -> PhysicalView:
    """Build the view of one snapshot (worker thread), on the validator's
    index of that state when there is one."""
    if index is None:
        from designer.analysis.index import build_index

        index = build_index(design, catalog, links=links)
    return PhysicalView(design, catalog, index)


class CableRunner(QObject):
    """Answers "the longest cables of these devices" for the current design.

    ``ready(runs)`` carries the runs (longest first) for the latest request.
    """

    ready = Signal(list)

    def __init__(
        self,
        document: Document,
        catalog: Catalog,
        parent: QObject | None = None,
        *,
        analysis: AnalysisRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self._analysis = analysis
        """The validator's worker (None: the runner indexes the design itself)."""
        self._waiting = False
        """A request waits for the validator's analysis of the current state."""
        self.own_indexes = 0
        """Views built on an index of their own (no analysis of the state)."""
        if analysis is not None:
            analysis.report_ready.connect(self._on_report)
            analysis.failed.connect(self._on_analysis_failed)
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
        if not self._running and not self._waiting:
            self._start()

    def _runs(self, view: PhysicalView) -> list[CableRun]:
        return view.longest_cables(self._wanted, LONGEST)

    def _start(self, own_index: bool = False) -> None:
        if self.document.design.physical is None:
            self.ready.emit([])
            return
        analysis = self._analysis
        index = None if analysis is None else analysis.current_index()
        if analysis is not None and index is None and analysis.busy and not own_index:
            self._waiting = True  # the analysis of this state is on its way
            return
        self._waiting = False
        self.own_indexes += index is None
        design, links = snapshot(self.document.design)
        self._running = True
        self._jobs.submit(
            partial(_build, design, links, self.catalog, index),
            self._on_built,
            self._on_error,
            on_stale=self._on_stale,
        )

    def _on_report(self, report: object) -> None:
        if self._waiting and not self._running and self._wanted:
            self._start()

    def _on_analysis_failed(self, message: str) -> None:
        if self._waiting and not self._running and self._wanted:
            self._start(own_index=True)  # no analysis of this state: index it here

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
