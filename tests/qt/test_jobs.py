"""The one background-job mechanism: results come back on the GUI thread,
stale ones are dropped, errors are reported, never raised into the pool."""

from __future__ import annotations

import threading
from typing import Any

from pytestqt.qtbot import QtBot

from designer.qt.jobs import Debounce, Generation, Jobs, Ticket


def test_result_comes_back_on_the_gui_thread(qtbot: QtBot) -> None:
    jobs = Jobs()
    worker: list[threading.Thread] = []
    got: list[tuple[Any, threading.Thread]] = []

    def work(ticket: Ticket) -> int:
        worker.append(threading.current_thread())
        return 6 * 7

    jobs.submit(work, lambda v, s: got.append((v, threading.current_thread())))
    qtbot.waitUntil(lambda: bool(got), timeout=5_000)
    assert got == [(42, threading.main_thread())]
    assert worker and worker[0] is not threading.main_thread()
    assert jobs.delivered == 1 and jobs.dropped == 0
    jobs.shutdown()


def test_a_stale_result_is_dropped(qtbot: QtBot) -> None:
    jobs = Jobs()
    gate = threading.Event()
    got: list[str] = []
    stale: list[int] = []

    def slow(ticket: Ticket) -> str:
        gate.wait(5)
        return "old state"

    jobs.submit(slow, lambda v, s: got.append(v), on_stale=lambda: stale.append(1))
    jobs.bump()  # an edit while the job runs
    jobs.submit(lambda t: "new state", lambda v, s: got.append(v), replace=False)
    gate.set()
    qtbot.waitUntil(lambda: got == ["new state"] and stale == [1], timeout=5_000)
    assert jobs.dropped == 1 and jobs.delivered == 1


def test_a_stale_job_can_see_it_and_stop(qtbot: QtBot) -> None:
    jobs = Jobs()
    started, gate = threading.Event(), threading.Event()
    seen: list[bool] = []

    def work(ticket: Ticket) -> None:
        started.set()
        gate.wait(5)
        seen.append(ticket.stale())

    jobs.submit(work)
    assert started.wait(5)
    jobs.bump()
    gate.set()
    assert jobs.wait(5_000)
    assert seen == [True]


def test_an_error_is_reported_not_raised(qtbot: QtBot) -> None:
    jobs = Jobs()
    errors: list[BaseException] = []

    def broken(ticket: Ticket) -> None:
        raise ValueError("no catalog entry 'x'")

    jobs.submit(
        broken, lambda v, s: errors.append(AssertionError("result")), errors.append
    )
    qtbot.waitUntil(lambda: bool(errors), timeout=5_000)
    assert isinstance(errors[0], ValueError) and "'x'" in str(errors[0])
    # without an error handler of its own the job's error goes to ``failed``
    with qtbot.waitSignal(jobs.failed, timeout=5_000) as failed:
        jobs.submit(broken)
    assert failed.args == ["ValueError: no catalog entry 'x'"]
    # and the worker is still there for the next job
    got: list[int] = []
    jobs.submit(lambda t: 1, lambda v, s: got.append(v))
    qtbot.waitUntil(lambda: got == [1], timeout=5_000)


def test_a_stale_error_is_dropped_too(qtbot: QtBot) -> None:
    jobs = Jobs()
    gate = threading.Event()
    errors: list[BaseException] = []

    def broken(ticket: Ticket) -> None:
        gate.wait(5)
        raise ValueError("old")

    jobs.submit(broken, None, errors.append)
    jobs.bump()
    done: list[int] = []
    jobs.submit(lambda t: 2, lambda v, s: done.append(v), replace=False)
    gate.set()
    qtbot.waitUntil(lambda: done == [2], timeout=5_000)
    assert errors == [] and jobs.dropped == 1


def test_queued_jobs_are_replaced_by_a_newer_one(qtbot: QtBot) -> None:
    jobs = Jobs()
    started, gate = threading.Event(), threading.Event()
    ran: list[str] = []

    def job(name: str) -> Any:
        def run(ticket: Ticket) -> str:
            if name == "running":
                started.set()
                gate.wait(5)
            ran.append(name)
            return name

        return run

    got: list[str] = []
    jobs.submit(job("running"), lambda v, s: got.append(v))
    assert started.wait(5)
    for name in ("queued 1", "queued 2"):
        jobs.bump()
        jobs.submit(job(name), lambda v, s: got.append(v))
    gate.set()
    qtbot.waitUntil(lambda: got == ["queued 2"], timeout=5_000)
    assert ran == ["running", "queued 2"]  # "queued 1" never started


def test_never_stale_jobs_run_in_order_and_all_report(qtbot: QtBot) -> None:
    jobs = Jobs()
    got: list[int] = []
    for i in range(5):
        jobs.bump()
        jobs.submit(
            lambda t, i=i: i,
            lambda v, s: got.append(v),
            stale_after_bump=False,
            replace=False,
        )
    assert jobs.wait(5_000)
    qtbot.waitUntil(lambda: len(got) == 5, timeout=5_000)
    assert got == [0, 1, 2, 3, 4]


def test_progress_of_the_current_state_only(qtbot: QtBot) -> None:
    shared = Generation()
    first, second = Jobs(generation=shared), Jobs(generation=shared)
    gate = threading.Event()
    progress: list[int] = []
    done: list[str] = []

    def steps(ticket: Ticket) -> str:
        ticket.emit(1)
        gate.wait(5)
        ticket.emit(2)  # after the bump: dropped
        return "end"

    second.submit(steps, lambda v, s: done.append(v), on_progress=progress.append)
    qtbot.waitUntil(lambda: progress == [1], timeout=5_000)
    first.bump()  # the other Jobs of the same generation moved on
    gate.set()
    assert second.wait(5_000)
    qtbot.wait(50)
    assert progress == [1] and done == [] and second.dropped == 1


def test_debounce_fires_a_lone_edit_at_once_and_a_burst_later(qtbot: QtBot) -> None:
    from PySide6.QtCore import QObject

    owner = QObject()
    fired: list[int] = []
    debounce = Debounce(owner, lambda: fired.append(1))
    assert debounce.edit() is False and fired == [1]
    assert debounce.edit() is True and fired == [1]  # a burst: waits
    qtbot.waitUntil(lambda: fired == [1, 1], timeout=2_000)
