"""One way to run work off the GUI thread: snapshot in, result out, stale
results dropped, errors reported.

A :class:`Jobs` is one worker thread (a one-thread ``QThreadPool``) owned by a
follower on the GUI thread. The follower takes a snapshot of what the work reads
(:func:`designer.core.snapshot.snapshot`: the device and group lists and the
read-only link arrays, well under a millisecond) and hands the worker a
function of it; the function's result, or the exception it raised, comes back
on the GUI thread by a queued signal. Every job carries the generation it was
submitted in: the follower bumps the generation when its input changes, and a
result (or error, or progress report) of an older generation is dropped, never
shown. Queued, unstarted jobs of an older generation are dropped too
(:meth:`Jobs.submit` with ``replace=True``, the default).

An exception never escapes into the pool: it goes to the job's ``on_error``,
else to the :attr:`Jobs.failed` signal as ``"TypeName: message"``.

Used by the analysis worker (:mod:`designer.qt.analysis_runner`, with a second
:class:`Jobs` for the refinement that follows the first's generation), the
workload estimate (:mod:`designer.qt.workload.runner`), the cable lengths of
the floor plan (:mod:`designer.qt.physical.cables`) and autosave
(:mod:`designer.qt.autosave`, whose writes are never stale and run in order).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

T = TypeVar("T")

BURST_DEBOUNCE_MS = 100
"""Debounce while edits arrive in a burst (typing, spin-box arrows)."""
BURST_GAP_S = 0.15
"""Edits closer together than this count as a burst."""


class Generation:
    """A counter of input states; several :class:`Jobs` may share one."""

    def __init__(self) -> None:
        self.value = 0

    def bump(self) -> int:
        """A new state: everything submitted before is stale."""
        self.value += 1
        return self.value


class Ticket:
    """What a running job knows of itself (read on the worker thread)."""

    def __init__(self, jobs: Jobs, generation: int | None) -> None:
        self._jobs = jobs
        self._counter = jobs.counter
        self.generation = generation
        """The state the job was submitted for (None: never stale)."""
        self.handlers: _Handlers | None = None

    def stale(self) -> bool:
        """A newer state came in: the job may stop, its result will be dropped."""
        return self.generation is not None and self._counter.value != self.generation

    def emit(self, value: object) -> None:
        """Send a partial result to the job's ``on_progress`` (GUI thread)."""
        self._jobs._signals.delivered.emit((self, _PROGRESS, value, 0.0))


_RESULT, _ERROR, _PROGRESS = 0, 1, 2


class _Signals(QObject):
    """Carries a job's outcome back to the GUI thread (a QRunnable is no QObject)."""

    delivered = Signal(object)


class _Runnable(QRunnable):
    def __init__(
        self,
        jobs: Jobs,
        ticket: Ticket,
        work: Callable[[Ticket], Any],
        handlers: _Handlers,
    ) -> None:
        super().__init__()
        self.jobs = jobs
        self.ticket = ticket
        self.work = work
        ticket.handlers = handlers

    def run(self) -> None:
        """Run the work; its result or exception goes back, never into the pool."""
        start = time.perf_counter()
        try:
            value, kind = self.work(self.ticket), _RESULT
        except Exception as exc:
            value, kind = exc, _ERROR
        self.jobs._signals.delivered.emit(
            (self.ticket, kind, value, time.perf_counter() - start)
        )


@dataclass(frozen=True)
class _Handlers:
    on_result: Callable[[Any, float], None] | None
    on_error: Callable[[BaseException], None] | None
    on_progress: Callable[[Any], None] | None
    on_stale: Callable[[], None] | None


class Jobs(QObject):
    """A worker thread whose results come back on the GUI thread (see module doc).

    ``failed(message)``: a job raised and had no ``on_error`` of its own.
    """

    failed = Signal(str)

    def __init__(
        self, parent: QObject | None = None, *, generation: Generation | None = None
    ) -> None:
        super().__init__(parent)
        self.counter = generation if generation is not None else Generation()
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals()
        self._signals.delivered.connect(self._deliver)
        self.delivered = 0
        """Results and errors handed to the GUI thread (stale ones not counted)."""
        self.dropped = 0
        """Results and errors dropped as stale."""

    @property
    def generation(self) -> int:
        """The current state."""
        return self.counter.value

    def bump(self) -> int:
        """A new state: what was submitted before is stale."""
        return self.counter.bump()

    def submit(
        self,
        work: Callable[[Ticket], T],
        on_result: Callable[[T, float], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        *,
        on_progress: Callable[[Any], None] | None = None,
        on_stale: Callable[[], None] | None = None,
        stale_after_bump: bool = True,
        replace: bool = True,
    ) -> Ticket:
        """Run ``work(ticket)`` on the worker thread.

        Its return value goes to ``on_result(value, seconds)``, an exception to
        ``on_error`` (else :attr:`failed`), a ``ticket.emit(x)`` to
        ``on_progress(x)``; all on the GUI thread and only while the job's
        generation is the current one (``stale_after_bump=False``: always).
        A stale outcome calls ``on_stale()`` instead. ``replace``: drop the
        queued, unstarted jobs first (nothing comes back of them).
        """
        if replace:
            self.clear()
        ticket = Ticket(self, self.generation if stale_after_bump else None)
        handlers = _Handlers(on_result, on_error, on_progress, on_stale)
        self._pool.start(_Runnable(self, ticket, work, handlers))
        return ticket

    def clear(self) -> None:
        """Drop the queued jobs that have not started (nothing comes back of them)."""
        self._pool.clear()

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Wait until every submitted job has run (their outcomes are queued)."""
        return self._pool.waitForDone(timeout_ms)

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Make everything submitted stale, drop the queued and wait for the running."""
        self.bump()
        self._pool.clear()
        self._pool.waitForDone(timeout_ms)

    def _deliver(self, payload: tuple[Ticket, int, object, float]) -> None:
        ticket, kind, value, seconds = payload
        handlers = ticket.handlers
        assert handlers is not None
        if ticket.stale():
            if kind != _PROGRESS:
                self.dropped += 1
                if handlers.on_stale is not None:
                    handlers.on_stale()
            return
        if kind == _PROGRESS:
            if handlers.on_progress is not None:
                handlers.on_progress(value)
            return
        self.delivered += 1
        if kind == _ERROR:
            assert isinstance(value, BaseException)
            if handlers.on_error is not None:
                handlers.on_error(value)
            else:
                self.failed.emit(f"{type(value).__name__}: {value}")
        elif handlers.on_result is not None:
            handlers.on_result(value, seconds)


class Debounce:
    """A lone edit runs at once; edits in a burst restart a single-shot timer."""

    def __init__(self, parent: QObject, fire: Callable[[], None]) -> None:
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(fire)
        self._fire = fire
        self._last = float("-inf")

    def edit(self, delay_ms: int | None = None) -> bool:
        """An edit: fire now, or after ``delay_ms`` (or the burst debounce
        when this edit follows the last within :data:`BURST_GAP_S`); True:
        it waits."""
        now = time.perf_counter()
        burst = now - self._last < BURST_GAP_S
        self._last = now
        if delay_ms is None and burst:
            delay_ms = BURST_DEBOUNCE_MS
        if delay_ms:
            self._timer.start(delay_ms)
            return True
        self._timer.stop()
        self._fire()
        return False

    def later(self, delay_ms: int) -> None:
        """Fire after ``delay_ms`` (a new design: let the window paint first)."""
        self._timer.start(delay_ms)

    def forget_last(self) -> None:
        """The next edit is a lone one."""
        self._last = float("-inf")

    def stop(self) -> None:
        """Do not fire."""
        self._timer.stop()


__all__ = [
    "BURST_DEBOUNCE_MS",
    "BURST_GAP_S",
    "Debounce",
    "Generation",
    "Jobs",
    "Ticket",
]
