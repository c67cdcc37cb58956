"""Run the workload estimate off the GUI thread, debounced, dropping stale results.

The same mechanism as :mod:`designer.qt.analysis_runner`
(:class:`~designer.qt.jobs.Jobs`): every edit bumps a generation number, a job
gets a snapshot of the design, runs on a one-thread pool, and a result whose
generation is not the current one is dropped.

The estimate reads the design through :func:`designer.workload.read_design`
given the report and index the validator's worker (:class:`~designer.qt.
analysis_runner.AnalysisRunner`) already made of the current state: after a
design edit it waits for that report instead of analysing the design a second
time (without a worker to follow, it analyses the design itself). The facts
and the N-1 search, the slow part (seconds at 100K GPUs), do not read the
workload block, so the worker keeps the last design's facts and N-1 figures
and reuses them while only the workload changes: editing the MFU re-runs the
step model, not the analysis.
"""

from __future__ import annotations

import dataclasses
import enum
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, Signal

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
from designer.core.model import Design, LinkArrays
from designer.core.snapshot import snapshot, with_links
from designer.qt.jobs import Debounce, Jobs, Ticket
from designer.workload import DesignFacts, Estimate
from designer.workload.fabric import NMinusOne

DESIGN_DEBOUNCE_MS = 150
"""Wait after a design edit: the analysis starts first, and edits come in runs."""
RESET_DELAY_MS = 80
"""Wait after a new design is loaded (the window builds and paints it first)."""
_UNREAD_FIELDS = frozenset({"x", "y", "label"})


class _Owed(enum.IntEnum):
    """What one step asks of the estimate, least to most."""

    NOTHING = 0
    WORKLOAD = 1
    """the workload block alone: the design's facts stand"""
    DESIGN = 2
    """the design's facts changed: wait for the analysis of the new state"""
    RESET = 3
    """another design"""


"""Device fields the estimate never reads: moving or renaming keeps it."""


class _MemoFacts(DesignFacts):
    """Design facts whose N-1 search runs once (it does not read the workload)."""

    def n_minus_1(self, *, budget: int | None = None) -> NMinusOne:
        """The worst single switch failure, computed on first use."""
        memo: dict[int | None, NMinusOne] = self.__dict__.setdefault("_memo", {})
        if budget not in memo:
            memo[budget] = super().n_minus_1(budget=budget)
        return memo[budget]


class FactsCache:
    """The facts of the last design a job read (touched by jobs only, one at a
    time: the pool has one thread)."""

    def __init__(self) -> None:
        self.key: int | None = None
        self.facts: DesignFacts | None = None
        self.reads = 0
        """How many times a job read the design's facts (tests, the status line)."""
        self.own_analyses = 0
        """How many of those analysed the design themselves (no worker report)."""

    def get(
        self,
        key: int,
        design: Design,
        links: LinkArrays,
        catalog: Catalog | None,
        analysis: tuple[Any, Any] | None = None,
    ) -> DesignFacts:
        """The facts of design generation ``key`` (read when it is a new one),
        from ``analysis`` (the validator's report and index) when given."""
        if self.key != key or self.facts is None:
            from designer import workload

            full = with_links(design, links)
            report, index = analysis if analysis is not None else (None, None)
            facts = workload.read_design(full, catalog, index=index, report=report)
            if analysis is None:
                self.own_analyses += 1
            self.facts = _MemoFacts(
                **{f.name: getattr(facts, f.name) for f in dataclasses.fields(facts)}
            )
            self.key = key
            self.reads += 1
        return self.facts


def _estimate(
    design_key: int,
    design: Design,
    links: LinkArrays,
    cache: FactsCache,
    catalog: Catalog | None,
    analysis: tuple[Any, Any] | None,
    ticket: Ticket,
) -> Estimate:
    """Estimate one snapshot (worker thread)."""
    from designer import workload

    facts = cache.get(design_key, design, links, catalog, analysis)
    return workload.estimate(design, catalog, design_facts=facts)


class EstimateRunner(QObject):
    """Debounced background estimate of one document's workload.

    Signals: ``started()`` when a job is queued, ``estimate_ready(estimate)`` for
    the current generation, ``failed(message)`` when the estimate raised,
    ``cleared()`` when the design has no workload block (nothing to estimate).
    """

    started = Signal()
    estimate_ready = Signal(object)
    failed = Signal(str)
    cleared = Signal()

    def __init__(
        self,
        document: Document,
        catalog: Catalog | None,
        parent: QObject | None = None,
        analysis: Any = None,
    ) -> None:
        super().__init__(parent)
        self._analysis = analysis
        """The validator's AnalysisRunner whose reports the estimate reads."""
        self._waiting = False
        """A design edit is waiting for the validator's report of its state."""
        self._report: tuple[Any, Any] | None = None
        self._report_key = -1
        self._document = document
        self._catalog = catalog
        self.design_key = 0
        """Bumped by every edit the estimate's design facts depend on."""
        self.busy = False
        self.last_seconds: float | None = None
        self.latest: Estimate | None = None
        self.latest_generation = -1
        self._cache = FactsCache()
        self._jobs = Jobs(self)
        self._debounce = Debounce(self, self._start_job)
        self._owed = Most(_Owed.NOTHING)
        self._cleared = False
        """``cleared`` was the last thing said (no block, nothing since)."""
        self.reads = self._reads_table()
        document.subscribe(self._on_changes, Stage.ANALYSIS)
        if analysis is not None:
            analysis.report_ready.connect(self._on_report)
            analysis.failed.connect(self._on_analysis_failed)

    def _start(self) -> None:
        self._cleared = False
        self.started.emit()

    @property
    def generation(self) -> int:
        """The state of the document and workload last edited."""
        return self._jobs.generation

    @property
    def own_analyses(self) -> int:
        """How many times a job analysed the design itself (no worker report)."""
        return self._cache.own_analyses

    def _wait_for_report(self) -> bool:
        """After a design edit: wait for the validator's report of the new
        state (True), unless there is no validator to follow."""
        if self._analysis is None:
            return False
        self._waiting = True
        self._report = None
        if self._document.design.workload is None:
            return False
        self._jobs.bump()
        self.busy = True
        self._debounce.stop()
        self._start()
        return True

    def _on_report(self, report: Any) -> None:
        """The validator analysed the current state: estimate from its report."""
        if not self._waiting or self._analysis is None:
            return
        if getattr(self._analysis, "busy", False):
            return  # an older state's report
        self._waiting = False
        self._report = (report, self._analysis.latest_index)
        self._report_key = self.design_key
        if self._document.design.workload is None:
            return
        self._start_job()

    def _on_analysis_failed(self, message: str) -> None:
        """No report for this state: the estimate analyses it itself."""
        if self._waiting:
            self._waiting = False
            self._report = None
            self.schedule(0)

    @property
    def document(self) -> Document:
        """The document followed."""
        return self._document

    @property
    def facts_reads(self) -> int:
        """How many times a job analysed the design for the estimate."""
        return self._cache.reads

    def current(self) -> Estimate | None:
        """The estimate of the design as it is now (None: stale or none)."""
        if self.latest_generation == self.generation and not self.busy:
            return self.latest
        return None

    def _reads_table(self) -> Reads:
        """What each kind of event asks of the estimate (the most of a step wins)."""

        owe = self._owed.at_least

        def devices_changed(event: Event) -> None:
            assert isinstance(event, DevicesChanged)
            if not event.fields <= _UNREAD_FIELDS:  # moves, relabels: not read
                self._owed.raise_to(_Owed.DESIGN)

        return Reads(
            "EstimateRunner",
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
                    owe(_Owed.DESIGN),
                ),
                DevicesChanged: devices_changed,
                WorkloadChanged: owe(_Owed.WORKLOAD),
                DesignReplaced: owe(_Owed.RESET),
            },
        )

    def _on_changes(self, events: list[Event]) -> None:
        owed = self._owed.take(self.reads, events)
        if owed is _Owed.NOTHING:
            return
        if owed is not _Owed.WORKLOAD:  # the design's facts changed
            self.design_key += 1
            if not self._wait_for_report():
                self.schedule(
                    RESET_DELAY_MS if owed is _Owed.RESET else DESIGN_DEBOUNCE_MS
                )
            return
        if self._waiting:
            self._jobs.bump()  # the report's job will read this workload too
            return
        self.schedule()

    def schedule(self, delay_ms: int | None = None) -> None:
        """Bump the generation; estimate a lone workload edit at once, wait
        ``delay_ms`` (or the burst debounce) otherwise."""
        self._jobs.bump()
        if self._document.design.workload is None:
            self._debounce.stop()
            self._jobs.clear()
            self.busy = False
            self.latest, self.latest_generation = None, self.generation
            if not self._cleared:  # said once, not again on every design edit
                self._cleared = True
                self.cleared.emit()
            return
        self.busy = True
        if self._debounce.edit(delay_ms):
            self._start()

    def run_now(self) -> None:
        """Estimate the design as it is: from the validator's report of this
        state when it has one (or is making it), else at once."""
        self._debounce.forget_last()
        self.design_key += 1
        analysis = self._analysis
        stale = analysis is not None and (
            analysis.busy
            or getattr(analysis, "_report_generation", -1) != analysis.generation
        )
        if stale and self._wait_for_report():
            return
        if analysis is not None and analysis.latest_index is not None:
            self._report = (analysis._last_report, analysis.latest_index)
            self._report_key = self.design_key
        self.schedule(0)

    def _start_job(self) -> None:
        design, links = snapshot(self._document.design)
        generation = self.generation
        work = partial(
            _estimate,
            self.design_key,
            design,
            links,
            self._cache,
            self._catalog,
            self._report if self._report_key == self.design_key else None,
        )
        self._start()
        self._jobs.submit(
            work,
            lambda result, seconds: self._on_estimated(generation, result, seconds),
            lambda exc: self._on_failed(generation, exc),
        )

    def _on_estimated(self, generation: int, result: Estimate, seconds: float) -> None:
        self.last_seconds = seconds
        self.busy = False
        self.latest, self.latest_generation = result, generation
        self.estimate_ready.emit(result)

    def _on_failed(self, generation: int, exc: BaseException) -> None:
        self.busy = False
        self.latest, self.latest_generation = None, generation
        self.failed.emit(str(exc) or type(exc).__name__)

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Stop the timer, drop queued jobs and wait for the running one."""
        self._debounce.stop()
        self._jobs.shutdown(timeout_ms)
        self._document.unsubscribe(self._on_changes)
