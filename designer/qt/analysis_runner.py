"""Run the design analysis off the GUI thread, debounced, dropping stale results.

Pattern (reference/performance.md §4): every edit bumps a generation number; a
lone edit is analysed at once, edits in a burst restart a ~100 ms single-shot
timer. A job gets a snapshot of the design: the device and group lists (their
items are replaced by commands, never changed) and the current state of the
link column store (read-only arrays, :class:`~designer.core.links.LinkArrays`),
so taking it costs next to nothing on the GUI thread. The worker derives the
analysis index from it and analyses it on a one-thread pool (queued, unstarted
jobs are dropped); a result whose generation is not the current one is dropped.

The carried bisection bound (:class:`~designer.analysis.ledger.BoundLedger`)
and what the last analysis can lend the next (:class:`~designer.analysis.reuse.
Reuse`: device columns, the fabric's levels, figures of an unchanged index) live
with the worker: only jobs read and write them, one at a time, and nothing a job
computes is written back into state the GUI thread owns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from designer.analysis.ledger import BoundLedger
from designer.analysis.reuse import Reuse
from designer.catalog.loader import Catalog
from designer.core.commands import Document, Stage
from designer.core.events import (
    DevicesChanged,
    Event,
    WorkloadChanged,
    only,
    replaced,
)
from designer.core.model import Design, LinkArrays, LinkTable
from designer.core.snapshot import snapshot

REFINE_SECONDS = 10.0
"""How long the background refinement of bisection bounds may go on."""
BURST_DEBOUNCE_MS = 100
"""Debounce while edits arrive in a burst (typing, spin-box arrows)."""
RESET_DELAY_MS = 50
"""Wait after a new design is loaded before analysing it."""
BURST_GAP_S = 0.15
"""Edits closer together than this count as a burst."""
_UNANALYSED_FIELDS = frozenset({"x", "y", "label"})
"""Device fields the analysis never reads: moving or renaming keeps the report."""


class _JobSignals(QObject):
    """Carries a job's result back to the GUI thread (a QRunnable is no QObject)."""

    finished = Signal(object)


class _AnalysisJob(QRunnable):
    """Analyse one snapshot; emit ``(generation, report or exception, seconds,
    refined)``; when the bisection is only bounded, hand the rest of the stages
    to ``refine`` (another pool), so a long refinement never delays the next
    edit's first report."""

    def __init__(
        self,
        generation: int,
        design: Design,
        links: LinkArrays,
        ledger: BoundLedger,
        reuse: Reuse | None,
        catalog: Catalog | None,
        signals: _JobSignals,
        stale: Callable[[], bool],
        refine: Callable[[QRunnable], None] | None,
    ) -> None:
        super().__init__()
        self.generation = generation
        self.design = design
        self.links = links
        self.ledger = ledger
        self.reuse = reuse
        self.catalog = catalog
        self.signals = signals
        self.stale = stale
        self.refine = refine
        self.from_scratch = False

    def run(self) -> None:
        """Analyse; never raise into the pool."""
        start = time.perf_counter()
        result: Any
        stages: Iterator[Any] | None = None
        index = None
        try:
            from designer.analysis import build_index
            from designer.analysis.engine import analyze_stages

            links = self.links
            if self.from_scratch:  # as strings, coded again (see the runner)
                strings = LinkTable.from_arrays(links).to_columns()
                links = LinkTable.from_columns(strings).arrays
            if self.reuse is not None:
                index = self.reuse.build_index(self.design, self.catalog, links)
            else:
                index = build_index(self.design, self.catalog, links=links)
            stages = analyze_stages(
                index,
                self.design,
                reuse=self.reuse,
                known_lower=self.ledger.lower_bound(index),
                deadline=time.perf_counter() + REFINE_SECONDS,
                should_stop=self.stale,
            )
            result = next(stages)
            self.ledger.record(float(result.bisection.lower_gbps), index)
        except Exception as exc:  # shown in the panel, never a crash
            result, stages = exc, None
        self.signals.finished.emit(
            (self.generation, result, time.perf_counter() - start, False, index)
        )
        if (
            stages is not None
            and index is not None
            and self.refine is not None
            and not result.bisection.exact
            and not self.stale()
        ):
            self.refine(_RefineJob(self, stages, index))


class _RefineJob(QRunnable):
    """The remaining stages of one analysis (better bisection bounds)."""

    def __init__(self, job: _AnalysisJob, stages: Iterator[Any], index: Any) -> None:
        super().__init__()
        self.job = job
        self.stages = stages
        self.index = index

    def run(self) -> None:
        """Emit each refined report of the analysis while it is still current."""
        job = self.job
        start = time.perf_counter()
        try:
            for report in self.stages:
                job.ledger.record(float(report.bisection.lower_gbps), self.index)
                if job.stale():
                    return
                job.signals.finished.emit(
                    (
                        job.generation,
                        report,
                        time.perf_counter() - start,
                        True,
                        self.index,
                    )
                )
        except Exception:  # a refinement that fails leaves the last report shown
            pass
        # the end of the refinement (None: no report)
        job.signals.finished.emit((job.generation, None, 0.0, True, None))


class AnalysisRunner(QObject):
    """Debounced background analysis of one document.

    Signals: ``started()`` when a job is queued, ``report_ready(report)`` for the
    current generation, ``failed(message)`` when the analysis raised.
    """

    started = Signal()
    report_ready = Signal(object)
    failed = Signal(str)
    refining_changed = Signal(bool)

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
        self.from_scratch = False
        """Analyse each edit as an editor without the column store would: the
        links re-read as strings and coded again, no carried bound (the
        benchmark's naive baseline)."""
        self._ledger = BoundLedger()
        self._reuse = Reuse()
        self._last_report: object | None = None
        self._report_generation = -1
        self.latest_index: object | None = None
        """The analysis index of the last report shown (the estimate reads it)."""
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._refine_pool = QThreadPool(self)
        self._refine_pool.setMaxThreadCount(1)
        self.refined = 0
        """Refined reports shown (tests and the benchmark read it)."""
        self.refining = False
        """The bisection bounds shown are being refined in the background."""
        self._signals = _JobSignals()
        self._signals.finished.connect(self._on_job_finished)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start_job)
        document.subscribe(self._on_changes, Stage.ANALYSIS)

    def set_document(self, document: Document) -> None:
        """Follow another document and analyse it at once."""
        self._document.unsubscribe(self._on_changes)
        self._document = document
        self._ledger = BoundLedger()  # a running job keeps the old one
        self._reuse = Reuse()
        document.subscribe(self._on_changes, Stage.ANALYSIS)
        self.run_now()

    def _on_changes(self, events: list[Event]) -> None:
        if not events:
            return  # nothing changed (the saved state was re-marked)
        if only(events, WorkloadChanged):
            return  # the analysis never reads the workload block
        if (
            only(events, DevicesChanged)
            and all(e.fields <= _UNANALYSED_FIELDS for e in events)  # type: ignore[attr-defined]
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
        if replaced(events):
            # A new design: let the window build and paint it first, so the
            # worker does not compete with that for the GIL.
            self.generation += 1
            self.busy = True
            self._timer.start(RESET_DELAY_MS)
            return
        self.schedule()

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
        design, links = snapshot(self._document.design)
        generation = self.generation
        self._refine_pool.clear()  # a queued refinement of an older state
        job = _AnalysisJob(
            generation,
            design,
            links,
            BoundLedger() if self.from_scratch else self._ledger,
            None if self.from_scratch else self._reuse,
            self._catalog,
            self._signals,
            stale=lambda: self.generation != generation,
            refine=None if self.from_scratch else self._refine_pool.start,
        )
        job.from_scratch = self.from_scratch
        self.started.emit()
        self._pool.start(job)

    def _on_job_finished(
        self, payload: tuple[int, object, float, bool, object]
    ) -> None:
        generation, result, seconds, refined, index = payload
        if generation != self.generation:
            return  # an edit came in meanwhile; a newer job is (or will be) queued
        if refined and result is None:
            self._set_refining(False)
            return
        if refined:
            self.refined += 1
        else:
            self.last_seconds = seconds
            bis = getattr(result, "bisection", None)
            self._set_refining(
                bis is not None and not bis.exact and not self.from_scratch
            )
        self.busy = False
        if isinstance(result, BaseException):
            self.failed.emit(f"{type(result).__name__}: {result}")
            return
        self._last_report, self._report_generation = result, generation
        self.latest_index = index
        self.report_ready.emit(result)

    def _set_refining(self, on: bool) -> None:
        if on != self.refining:
            self.refining = on
            self.refining_changed.emit(on)

    def _replay(self, generation: int, report: object) -> None:
        if generation == self.generation:
            self.busy = False
            self.report_ready.emit(report)

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Stop the timer, drop queued jobs and wait for the running one."""
        self._timer.stop()
        self.generation += 1  # a running refinement stops at its next stage
        self._pool.clear()
        self._refine_pool.clear()
        self._pool.waitForDone(timeout_ms)
        self._refine_pool.waitForDone(timeout_ms)
        self._document.unsubscribe(self._on_changes)
