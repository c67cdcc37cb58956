"""Run the design analysis off the GUI thread, debounced, dropping stale results.

Pattern (reference/performance.md §4): every edit bumps a generation number; a
lone edit is analysed at once, edits in a burst restart a ~100 ms single-shot
timer. A job gets a snapshot of the design: the device and group lists (their
items are replaced by commands, never changed) and the current state of the
link column store (read-only arrays, :class:`~designer.core.link_arrays.LinkArrays`),
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

import enum
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from designer.analysis.index import DesignIndex
from designer.analysis.ledger import BoundLedger
from designer.analysis.reuse import Reuse
from designer.catalog.loader import Catalog
from designer.core.document import Document, Stage
from designer.core.events import (
    DesignReplaced,
    DevicesAdded,
    DevicesChanged,
    DevicesRemoved,
    Event,
    GroupsChanged,
    LinksAdded,
    LinksChanged,
    LinksRemoved,
    Most,
    PhysicalChanged,
    Reads,
    SettingsChanged,
    WorkloadChanged,
    each,
)
from designer.core.model import Design, LinkArrays, LinkTable
from designer.core.snapshot import snapshot
from designer.qt.jobs import BURST_DEBOUNCE_MS, Debounce, Jobs, Ticket

REFINE_SECONDS = 10.0
"""How long the background refinement of bisection bounds may go on."""
RESET_DELAY_MS = 50
"""Wait after a new design is loaded before analysing it."""
_UNANALYSED_FIELDS = frozenset({"x", "y", "label"})
"""Device fields the analysis never reads: moving or renaming keeps the report."""


class _Owed(enum.IntEnum):
    """What one step asks of the analysis, least to most."""

    NOTHING = 0
    """the workload block alone: the analysis never reads it"""
    REPLAY = 1
    """moves and relabels: the index did not change, nor does the report"""
    ANALYSE = 2
    RESET = 3
    """another design: analysed after the window has painted it"""


@dataclass(frozen=True)
class _Analysed:
    """What a job hands back: the first report, its index, and the iterator of
    the remaining stages (refined bisection bounds) when there may be more."""

    report: Any
    index: DesignIndex
    stages: Iterator[Any] | None


def _analyse(
    design: Design,
    links: LinkArrays,
    ledger: BoundLedger,
    reuse: Reuse | None,
    catalog: Catalog | None,
    from_scratch: bool,
    ticket: Ticket,
) -> _Analysed:
    """Analyse one snapshot (worker thread) to its first report."""
    from designer.analysis import build_index
    from designer.analysis.engine import analyze_stages

    if from_scratch:  # as strings, coded again (see the runner)
        strings = LinkTable.from_arrays(links).to_columns()
        links = LinkTable.from_columns(strings).arrays
    if reuse is not None:
        index = reuse.build_index(design, catalog, links)
    else:
        index = build_index(design, catalog, links=links)
    stages = analyze_stages(
        index,
        design,
        reuse=reuse,
        ledger=ledger,
        known_lower=ledger.lower_bound(index),
        deadline=time.perf_counter() + REFINE_SECONDS,
        should_stop=ticket.stale,
    )
    report = next(stages)
    ledger.record(float(report.bisection.lower_gbps), index)
    return _Analysed(report, index, None if report.bisection.exact else stages)


def _refine(analysed: _Analysed, ledger: BoundLedger, ticket: Ticket) -> None:
    """The remaining stages of one analysis: emit each refined report while
    the state is still current (worker thread of the refinement)."""
    assert analysed.stages is not None
    start = time.perf_counter()
    for report in analysed.stages:
        ledger.record(float(report.bisection.lower_gbps), analysed.index)
        if ticket.stale():
            return
        ticket.emit((report, time.perf_counter() - start, analysed.index))


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
        self.last_seconds: float | None = None
        self.busy = False
        self.from_scratch = False
        """Analyse each edit as an editor without the column store would: the
        links re-read as strings and coded again, no carried bound (the
        benchmark's naive baseline)."""
        self._ledger = BoundLedger()
        self._reuse = Reuse()
        self._last_report: object | None = None
        self._report_generation = -1
        self.latest_index: DesignIndex | None = None
        """The analysis index of the last report shown (the estimate reads it)."""
        self._jobs = Jobs(self)
        self._refine = Jobs(self, generation=self._jobs.counter)
        """The refinement: a thread of its own, stale with the analysis."""
        self.refined = 0
        """Refined reports shown (tests and the benchmark read it)."""
        self.refining = False
        """The bisection bounds shown are being refined in the background."""
        self._debounce = Debounce(self, self._start_job)
        self._owed = Most(_Owed.NOTHING)
        self.reads = self._reads_table()
        document.subscribe(self._on_changes, Stage.ANALYSIS)

    @property
    def generation(self) -> int:
        """The state of the document last edited (bumped by every edit)."""
        return self._jobs.generation

    def current_index(self) -> DesignIndex | None:
        """The index of the report shown when that report is of the document
        as it is now (None: an edit is being analysed, or the last failed)."""
        if self.busy or self._report_generation != self.generation:
            return None
        return self.latest_index

    def set_document(self, document: Document) -> None:
        """Follow another document and analyse it at once."""
        self._document.unsubscribe(self._on_changes)
        self._document = document
        self._ledger = BoundLedger()  # a running job keeps the old one
        self._reuse = Reuse()
        document.subscribe(self._on_changes, Stage.ANALYSIS)
        self.run_now()

    def _reads_table(self) -> Reads:
        """What each kind of event asks of the analysis (the most of a step wins)."""
        owe = self._owed.at_least

        def devices_changed(event: Event) -> None:
            assert isinstance(event, DevicesChanged)
            unread = event.fields <= _UNANALYSED_FIELDS
            self._owed.raise_to(_Owed.REPLAY if unread else _Owed.ANALYSE)

        return Reads(
            "AnalysisRunner",
            {
                **each(
                    (
                        DevicesAdded,
                        DevicesRemoved,
                        LinksAdded,
                        LinksRemoved,
                        LinksChanged,
                        GroupsChanged,
                        SettingsChanged,
                        PhysicalChanged,
                    ),
                    owe(_Owed.ANALYSE),
                ),
                DevicesChanged: devices_changed,
                WorkloadChanged: owe(_Owed.NOTHING),
                DesignReplaced: owe(_Owed.RESET),
            },
        )

    def _on_changes(self, events: list[Event]) -> None:
        owed = self._owed.take(self.reads, events)
        if owed is _Owed.NOTHING:
            return  # nothing changed (the saved state re-marked), or the workload
        if owed is _Owed.REPLAY and (
            self._report_generation == self.generation and self._last_report is not None
        ):
            # Moves and relabels: the index (and settings) did not change, so
            # neither does the report; show the last one again, no job.
            generation = self._jobs.bump()
            self._report_generation = generation
            report = self._last_report
            QTimer.singleShot(0, self, lambda: self._replay(generation, report))
            return
        if owed is _Owed.RESET:
            # A new design: let the window build and paint it first, so the
            # worker does not compete with that for the GIL.
            self._jobs.bump()
            self.busy = True
            self._debounce.later(RESET_DELAY_MS)
            return
        self.schedule()

    def schedule(self) -> None:
        """Bump the generation; analyse a lone edit at once, debounce a burst."""
        self._jobs.bump()
        self.busy = True
        self._debounce.edit()

    def run_now(self) -> None:
        """Bump the generation and queue the analysis without waiting."""
        self._jobs.bump()
        self.busy = True
        self._debounce.stop()
        self._start_job()

    def _start_job(self) -> None:
        design, links = snapshot(self._document.design)
        self._refine.clear()  # a queued refinement of an older state
        from_scratch = self.from_scratch
        ledger = BoundLedger() if from_scratch else self._ledger
        work = partial(
            _analyse,
            design,
            links,
            ledger,
            None if from_scratch else self._reuse,
            self._catalog,
            from_scratch,
        )
        generation = self.generation
        self.started.emit()
        self._jobs.submit(
            work,
            lambda done, seconds: self._on_analysed(generation, done, seconds, ledger),
            self._on_failed,
        )

    def _on_analysed(
        self, generation: int, done: _Analysed, seconds: float, ledger: BoundLedger
    ) -> None:
        self.last_seconds = seconds
        refine = done.stages is not None and not self.from_scratch
        self._set_refining(refine)
        if refine:
            self._refine.submit(
                partial(_refine, done, ledger),
                lambda _none, _s: self._set_refining(False),
                lambda _exc: self._set_refining(False),  # the last report stays
                on_progress=self._on_refined,
            )
        self._show(generation, done.report, done.index)

    def _on_refined(self, payload: tuple[Any, float, Any]) -> None:
        report, _seconds, index = payload
        self.refined += 1
        self._show(self.generation, report, index)

    def _on_failed(self, exc: BaseException) -> None:
        self._set_refining(False)
        self.busy = False
        self.failed.emit(f"{type(exc).__name__}: {exc}")

    def _show(self, generation: int, report: object, index: DesignIndex) -> None:
        self.busy = False
        self._last_report, self._report_generation = report, generation
        self.latest_index = index
        self.report_ready.emit(report)

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
        self._debounce.stop()
        self._jobs.shutdown(timeout_ms)  # a running refinement stops at its next stage
        self._refine.shutdown(timeout_ms)
        self._document.unsubscribe(self._on_changes)


__all__ = ["BURST_DEBOUNCE_MS", "REFINE_SECONDS", "AnalysisRunner", "snapshot"]
