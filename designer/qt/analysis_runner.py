"""Run the design analysis off the GUI thread, debounced, dropping stale results.

Pattern (reference/performance.md §4): every edit bumps a generation number; a
lone edit is analysed at once, edits in a burst restart a ~100 ms single-shot
timer. Each edit is also patched into an
:class:`~designer.analysis.incremental.IncrementalIndex` on the GUI thread (a few
ms: link edits give new arrays, settings and moves reuse the index), and that
immutable index goes to a one-thread pool (queued, unstarted jobs are dropped).
When the edit cannot be patched, the job gets a snapshot of the design and
rebuilds the index in the worker; the GUI adopts it if no edit came meanwhile.
A result whose generation is not the current one is dropped; an accepted one
certifies its bisection lower bound, which later edits carry (minus the
capacity they remove).
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from designer.analysis.incremental import IncrementalIndex, hint_for
from designer.analysis.index import DesignIndex
from designer.catalog.loader import Catalog
from designer.core.commands import Change, Document
from designer.core.model import LINK_COLUMNS, Design, LinkTable

BURST_DEBOUNCE_MS = 100
"""Debounce while edits arrive in a burst (typing, spin-box arrows)."""
RESET_DELAY_MS = 50
"""Wait after a new design is loaded before analysing it."""
BURST_GAP_S = 0.15
"""Edits closer together than this count as a burst."""


def snapshot(design: Design) -> Design:
    """A copy the worker can read while the GUI keeps editing.

    Commands replace devices, groups and settings rather than mutating them, so
    copying the containers (and the link columns) is enough and takes ~1 ms for
    a 100,000-GPU design.
    """
    columns: dict[str, Any] = {
        name: list(getattr(design.links, name)) for name in LINK_COLUMNS
    }
    links = LinkTable.model_construct(**columns)
    return Design.model_construct(
        schema_version=design.schema_version,
        settings=design.settings,
        groups=list(design.groups),
        devices=list(design.devices),
        links=links,
    )


class _JobSignals(QObject):
    """Carries a job's result back to the GUI thread (a QRunnable is no QObject)."""

    finished = Signal(object)


def light_snapshot(design: Design) -> Design:
    """The design without links, for analysing a prebuilt index (reads settings)."""
    return Design.model_construct(
        schema_version=design.schema_version,
        settings=design.settings,
        groups=list(design.groups),
        devices=list(design.devices),
        links=LinkTable(),
    )


class _AnalysisJob(QRunnable):
    """Analyse one index (or build it from a snapshot); emit
    ``(generation, report or exception, seconds, index built here or None)``."""

    def __init__(
        self,
        generation: int,
        design: Design,
        index: DesignIndex | None,
        hint: Any,
        catalog: Catalog | None,
        signals: _JobSignals,
    ) -> None:
        super().__init__()
        self.generation = generation
        self.design = design
        self.index = index
        self.hint = hint
        self.catalog = catalog
        self.signals = signals

    def run(self) -> None:
        """Analyse; never raise into the pool."""
        start = time.perf_counter()
        result: Any
        built: DesignIndex | None = None
        try:
            from designer.analysis import analyze_index, build_index

            index = self.index
            if index is None:
                index = built = build_index(self.design, self.catalog)
            result = analyze_index(
                index, self.design, known_lower=hint_for(self.hint, index)
            )
        except Exception as exc:  # shown in the panel, never a crash
            result, built = exc, None
        self.signals.finished.emit(
            (self.generation, result, time.perf_counter() - start, built)
        )


class AnalysisRunner(QObject):
    """Debounced background analysis of one document.

    Signals: ``started()`` when a job is queued, ``report_ready(report)`` for the
    current generation, ``failed(message)`` when the analysis raised.
    """

    started = Signal()
    report_ready = Signal(object)
    failed = Signal(str)

    def __init__(
        self, document: Document, catalog: Catalog | None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._document = document
        self._catalog = catalog
        self.generation = 0
        self.last_seconds: float | None = None
        self.busy = False
        self._last_edit = float("-inf")
        self._incremental = IncrementalIndex(catalog)
        self._last_report: object | None = None
        self._report_generation = -1
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _JobSignals()
        self._signals.finished.connect(self._on_job_finished)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start_job)
        document.subscribe(self._on_changes)

    def set_document(self, document: Document) -> None:
        """Follow another document and analyse it at once."""
        self._document.unsubscribe(self._on_changes)
        self._document = document
        self._incremental.invalidate()
        document.subscribe(self._on_changes)
        self.run_now()

    def _on_changes(self, changes: list[Change]) -> None:
        before = self._incremental.index
        try:
            self._incremental.update(self._document.design, changes)
        except Exception:  # never let bookkeeping break an edit: rebuild instead
            self._incremental.invalidate()
        if (
            before is not None
            and self._incremental.index is before
            and all(c.kind == "devices_changed" for c in changes)
            and self._report_generation == self.generation
            and self._last_report is not None
        ):
            # Moves and relabels: the index (and settings) did not change, so
            # neither does the report; show the last one again, no job.
            self.generation += 1
            self._report_generation = self.generation
            report, generation = self._last_report, self.generation
            QTimer.singleShot(0, lambda: self._replay(generation, report))
            return
        if any(c.kind == "reset" for c in changes):
            # A new design: let the window build and paint it first, so the
            # worker does not compete with that for the GIL.
            self.generation += 1
            self.busy = True
            self._timer.start(RESET_DELAY_MS)
            return
        self.schedule()

    def forget_index(self) -> None:
        """Drop the patched index and the carried bounds: the next edit is
        analysed from scratch (the benchmark's naive baseline does this)."""
        self._incremental.invalidate()

    def schedule(self) -> None:
        """Bump the generation; analyse a lone edit at once, debounce a burst."""
        now = time.perf_counter()
        burst = now - self._last_edit < BURST_GAP_S
        self._last_edit = now
        self.generation += 1
        self.busy = True
        if burst:
            self._timer.start(BURST_DEBOUNCE_MS)
        else:
            self._timer.stop()
            self._start_job()

    def run_now(self) -> None:
        """Bump the generation and queue the analysis without waiting."""
        self.generation += 1
        self.busy = True
        self._timer.stop()
        self._start_job()

    def _start_job(self) -> None:
        self._pool.clear()  # queued, unstarted jobs are stale now
        design = self._document.design
        index = self._incremental.index
        job = _AnalysisJob(
            self.generation,
            light_snapshot(design) if index is not None else snapshot(design),
            index,
            self._incremental.lower_hint(),
            self._catalog,
            self._signals,
        )
        self.started.emit()
        self._pool.start(job)

    def _on_job_finished(
        self, payload: tuple[int, object, float, DesignIndex | None]
    ) -> None:
        generation, result, seconds, built = payload
        self.last_seconds = seconds
        if generation != self.generation:
            return  # an edit came in meanwhile; a newer job is (or will be) queued
        self.busy = False
        if isinstance(result, BaseException):
            self.failed.emit(f"{type(result).__name__}: {result}")
            return
        # No edit since the job started: its index shows the current design.
        if built is not None:
            self._incremental.adopt(built)
        index = self._incremental.index
        bis = getattr(result, "bisection", None)
        if index is not None and bis is not None:
            self._incremental.certify(float(bis.lower_gbps), index)
        self._last_report, self._report_generation = result, generation
        self.report_ready.emit(result)

    def _replay(self, generation: int, report: object) -> None:
        if generation == self.generation:
            self.busy = False
            self.report_ready.emit(report)

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Stop the timer, drop queued jobs and wait for the running one."""
        self._timer.stop()
        self._pool.clear()
        self._pool.waitForDone(timeout_ms)
        self._document.unsubscribe(self._on_changes)
