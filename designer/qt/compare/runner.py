"""Estimate the compare dialog's scenarios off the GUI thread.

The same pattern as :mod:`designer.qt.workload.runner`: a one-thread pool, a
generation number bumped by every change of the scenarios or the workload, and
results of an old generation dropped. Each scenario is one job (load the file,
or rebuild the open design's snapshot and apply a variant, then
:func:`designer.workload.compare.column`), so the table fills column by column
and the window stays responsive; a column already computed for the same
workload is kept when another scenario is added or removed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from designer.catalog.loader import Catalog
from designer.core.model import Design, LinkArrays
from designer.core.snapshot import with_links
from designer.core.workload import Workload
from designer.workload.compare import Column


@dataclass(frozen=True)
class Scenario:
    """One column of the comparison and how to make its design."""

    id: int
    label: str
    """The column's ``file``: a path, the open design's name, or a variant's."""
    path: str | None = None
    """A design file to load (None: the open design's snapshot)."""
    variant: str | None = None
    """A variant key applied to the snapshot (designer.workload.variants)."""
    design: Design | None = None
    links: LinkArrays | None = None


@dataclass(frozen=True)
class Outcome:
    """What one job made: a column, or why not; and what a variant changed."""

    column: Column | None
    error: str | None
    changed: str | None
    seconds: float
    offered: dict[str, str | None] | None = None
    """The open design's variants: key -> None when it applies, else why not."""


class _Signals(QObject):
    finished = Signal(object)


class _Job(QRunnable):
    def __init__(
        self,
        generation: int,
        scenario: Scenario,
        workload: Workload | None,
        catalog: Catalog | None,
        signals: _Signals,
    ) -> None:
        super().__init__()
        self.generation = generation
        self.scenario = scenario
        self.workload = workload
        self.catalog = catalog
        self.signals = signals

    def run(self) -> None:
        """Make the scenario's design and its column; never raise into the pool."""
        start = time.perf_counter()
        column: Column | None = None
        error = changed = None
        offered: dict[str, str | None] | None = None
        try:
            column, changed, offered = _column(
                self.scenario, self.workload, self.catalog
            )
        except Exception as exc:  # shown in the column, never a crash
            error = str(exc) or type(exc).__name__
        seconds = time.perf_counter() - start
        outcome = Outcome(column, error, changed, seconds, offered)
        self.signals.finished.emit((self.generation, self.scenario.id, outcome))


def _column(
    s: Scenario, workload: Workload | None, catalog: Catalog | None
) -> tuple[Column, str | None, dict[str, str | None] | None]:
    """The scenario's column, what its variant changed, and for the open
    design itself which variants apply."""
    from designer.io import load_design
    from designer.workload.compare import column
    from designer.workload.variants import apply_variant, offered

    if s.path is not None:
        design = load_design(s.path)
    else:
        assert s.design is not None and s.links is not None
        design = with_links(s.design, s.links)
    if workload is not None:
        # one workload for every design: it replaces each design's own block
        design = design.model_copy(update={"workload": None})
    changed = None
    applies = None
    if s.variant is not None:
        design, changed = apply_variant(design, s.variant, catalog)
    elif s.path is None:
        applies = {v.key: why for v, why in offered(design, catalog)}
    col = column(s.label, design, catalog, overrides=workload, origin="editor")
    return col, changed, applies


class CompareRunner(QObject):
    """Runs the scenarios' jobs; ``outcome(id, Outcome)`` for each of the
    current generation, ``idle()`` when none is left."""

    outcome = Signal(int, object)
    idle = Signal()

    def __init__(self, catalog: Catalog | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._catalog = catalog
        self.generation = 0
        self.pending: set[int] = set()
        self._workload: Workload | None = None
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals()
        self._signals.finished.connect(self._on_finished)

    @property
    def busy(self) -> bool:
        """Jobs of the current generation are queued or running."""
        return bool(self.pending)

    def run(self, scenarios: list[Scenario], workload: Workload | None) -> None:
        """Drop what is queued and estimate ``scenarios`` with ``workload``
        instead of their own workload blocks (None: each with its own)."""
        self.generation += 1
        self._pool.clear()
        self.pending = set()
        self._workload = workload
        self.add(scenarios)
        if not scenarios:
            self.idle.emit()

    def add(self, scenarios: list[Scenario]) -> None:
        """Estimate more scenarios with the current workload (the others go on)."""
        for s in scenarios:
            self.pending.add(s.id)
            job = _Job(self.generation, s, self._workload, self._catalog, self._signals)
            self._pool.start(job)

    def forget(self, scenario: int) -> None:
        """Drop the result of a scenario that was removed."""
        self.pending.discard(scenario)
        if not self.pending:
            self.idle.emit()

    def cancel(self) -> None:
        """Forget the queued jobs (the running one finishes and is dropped)."""
        self.generation += 1
        self._pool.clear()
        self.pending = set()

    def _on_finished(self, payload: tuple[int, int, Outcome]) -> None:
        generation, scenario, outcome = payload
        if generation != self.generation or scenario not in self.pending:
            return
        self.pending.discard(scenario)
        self.outcome.emit(scenario, outcome)
        if not self.pending:
            self.idle.emit()

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Drop the queued jobs and wait for the running one."""
        self.cancel()
        self._pool.waitForDone(timeout_ms)
