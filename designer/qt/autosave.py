"""Autosave: a recovery copy of every document with unsaved changes.

While a document differs from its saved state, a copy is written
:data:`IDLE_DELAY_S` after the last edit, and at least every
:data:`MAX_DELAY_S` while edits keep coming, so a crash or a ``kill -9`` loses
at most that much work. The copy goes to the ``recovery`` folder under
``QStandardPaths.AppDataLocation`` (layout and listing:
:mod:`designer.io.recovery`), never over the user's own file. Saving, undoing
back to the saved state, New, Open or closing the window (after the user chose
to save or discard) removes it; a crash leaves it for the next start.

The GUI thread only takes a snapshot (device and group lists copied, the link
column state shared: well under a millisecond at 100,000 GPUs, see
``bench/bench_autosave.py``); serialising and writing run on a one-thread
executor per document, so the writes and removals of one document happen one at
a time and in the order they were asked for (a :class:`~designer.qt.jobs.Jobs`
whose jobs are never stale and never dropped).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from designer.core.document import Document, Stage
from designer.core.events import Event
from designer.core.model import Design, LinkArrays
from designer.core.snapshot import snapshot
from designer.io.recovery import (
    Manifest,
    RecoveryEntry,
    RecoveryStore,
    Session,
    changes_since_save,
)
from designer.qt.jobs import Jobs, Ticket

IDLE_DELAY_S = 10.0
"""Seconds after the last edit before the copy is written."""
MAX_DELAY_S = 30.0
"""Longest a change waits while edits keep coming (so at most this much is lost)."""
DELAY_ENV = "CLUSTER_DESIGNER_AUTOSAVE_DELAY"
"""For tests: ``IDLE`` or ``IDLE,MAX`` seconds instead of the constants above."""
RECOVERY_FOLDER = "recovery"


@dataclass(frozen=True)
class Delays:
    """When copies are written: ``idle_s`` after the last edit, ``max_s`` at most."""

    idle_s: float = IDLE_DELAY_S
    max_s: float = MAX_DELAY_S


def delays_from_env(environ: dict[str, str] | None = None) -> Delays:
    """The delays, from :data:`DELAY_ENV` when it is set and valid."""
    text = (os.environ if environ is None else environ).get(DELAY_ENV, "").strip()
    if not text:
        return Delays()
    try:
        parts = [float(p) for p in text.split(",")]
        if not 1 <= len(parts) <= 2 or not all(0 <= p <= 3600 for p in parts):
            raise ValueError
    except ValueError:
        print(
            f"cluster-designer: ignoring {DELAY_ENV}={text!r}; expected IDLE or "
            "IDLE,MAX seconds (0-3600)",
            file=sys.stderr,
        )
        return Delays()
    idle = parts[0]
    return Delays(idle, max(idle, parts[1] if len(parts) == 2 else MAX_DELAY_S))


class _Process:
    """The recovery folder and this process's session (opened at the first write)."""

    directory: Path | None = None  # set by tests; else the platform's folder
    session: Session | None = None


def recovery_dir() -> Path:
    """The folder that holds recovery copies."""
    if _Process.directory is not None:
        return _Process.directory
    base = QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.AppDataLocation
    )
    if not base:  # never fall back to the working directory
        raise OSError("this system has no application-data folder")
    return Path(base) / RECOVERY_FOLDER


def use_directory(directory: Path | None) -> None:
    """Keep recovery copies in ``directory`` (None: the platform's folder)."""
    end_session()
    _Process.directory = directory


def store() -> RecoveryStore:
    """The recovery folder of this process."""
    return RecoveryStore(recovery_dir())


def process_session() -> Session:
    """This process's session (claimed on first use)."""
    if _Process.session is None or _Process.session.closed:
        _Process.session = store().open_session()
    return _Process.session


def end_session() -> None:
    """Release this process's session (at a clean exit, after the windows closed)."""
    if _Process.session is not None:
        _Process.session.close()
        _Process.session = None


def _write_job(
    target: RecoveryStore,
    document: str,
    design: Design,
    links: LinkArrays,
    manifest: Manifest,
    ticket: Ticket,
) -> None:
    target.write(document, design, links, manifest)


def _remove_job(target: RecoveryStore, document: str, ticket: Ticket) -> None:
    with contextlib.suppress(OSError):  # the next listing shows what is left
        target.remove(document)


def _epoch(value: float | None) -> float | None:
    return value if value is not None and 0 <= value <= 1e11 else None


class Autosaver(QObject):
    """Keeps the recovery copy of one document up to date (see module doc).

    Signals: ``written(seconds)`` after a copy landed, ``failed(message)`` when
    one could not be written (the next edit tries again).
    """

    written = Signal(float)
    failed = Signal(str)

    def __init__(
        self,
        document: Document,
        parent: QObject | None = None,
        *,
        delays: Delays | None = None,
        enabled: bool = True,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.delays = delays if delays is not None else delays_from_env()
        self.enabled = enabled
        self.path: Path | None = None
        """The user's file of this document (None: never saved)."""
        self.saved_at: float | None = None
        """When that file was last saved (seconds since the epoch)."""
        self.carried: tuple[int, tuple[str, ...]] = (0, ())
        """Changes made before a crash, for a document recovered from a copy."""
        self.document_id: str | None = None
        self.last_seconds: float | None = None
        self._history = document.history
        self._store: RecoveryStore | None = None
        self._pending = False  # unsaved changes not copied yet
        self._on_disk = False  # a copy exists or is queued
        self._writing = False
        self._again = False  # a write was due while one was running
        self._closed = False
        self._jobs = Jobs(self)
        self._idle = self._timer()
        self._max = self._timer()
        document.subscribe(self._on_changes, Stage.WINDOW)

    def _timer(self) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(self.write_now)
        return timer

    @property
    def pending(self) -> bool:
        """True while there are unsaved changes not yet in the copy."""
        return self._pending

    @property
    def writing(self) -> bool:
        """True while a copy is being written."""
        return self._writing

    @property
    def copy_path(self) -> Path | None:
        """Where this document's copy is (or will be) written."""
        if self.document_id is None or self._store is None:
            return None
        return self._store.design_path(self.document_id)

    # --- following the document ----------------------------------------------

    def _on_changes(self, events: list[Event]) -> None:
        if self.document.history is not self._history:  # New, Open: another design
            self._history = self.document.history
            self.forget()
        self.sync()

    def sync(self) -> None:
        """Re-read the document's state: schedule a copy, or remove it when clean."""
        if not self.enabled:
            return
        if self.document.history.is_clean:
            self.discard()
            return
        self._pending = True
        self._idle.start(round(self.delays.idle_s * 1000))
        if not self._max.isActive():
            self._max.start(round(self.delays.max_s * 1000))

    def discard(self) -> None:
        """Remove the copy (saved, or the user chose to discard the changes)."""
        self._idle.stop()
        self._max.stop()
        self._pending = self._again = False
        if self._on_disk and self._store is not None and self.document_id:
            self._run(partial(_remove_job, self._store, self.document_id))
        self._on_disk = False

    def forget(self) -> None:
        """Remove the copy and start afresh under a new id (another design)."""
        self.discard()
        self.document_id = None
        self.carried = (0, ())

    # --- writing -------------------------------------------------------------

    def write_now(self) -> None:
        """Snapshot the document and write its copy in the background."""
        self._idle.stop()
        self._max.stop()
        if not self.enabled or not self._pending:
            return
        if self.document.history.is_clean:
            self.discard()
            return
        if self._writing:
            self._again = True
            return
        try:
            target, document_id = self._claim()
        except OSError as exc:
            self.failed.emit(f"Autosave: cannot write a recovery copy: {exc}")
            return
        if self.path is not None and _same_path(
            self.path, target.design_path(document_id)
        ):
            return  # never over the user's own file
        design, links = snapshot(self.document.design)
        manifest = self._manifest(document_id, time.time())
        self._pending = self._again = False
        self._writing = self._on_disk = True
        self._run(
            partial(_write_job, target, document_id, design, links, manifest),
            lambda _none, seconds: self._on_finished(None, seconds),
            lambda exc: self._on_finished(f"{type(exc).__name__}: {exc}", None),
        )

    def _run(
        self,
        work: Callable[[Ticket], None],
        on_result: Callable[[None, float], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Queue one write or removal: in order, never dropped, never stale."""
        self._jobs.submit(
            work, on_result, on_error, stale_after_bump=False, replace=False
        )

    def _claim(self) -> tuple[RecoveryStore, str]:
        session = process_session()
        if self._store is None or self._store.directory != session.store.directory:
            self.document_id = None
        self._store = session.store
        if self.document_id is None:
            self.document_id = session.new_document_id()
        return self._store, self.document_id

    def _manifest(self, document_id: str, copied_at: float) -> Manifest:
        steps, labels = changes_since_save(self.document.history)
        carried_steps, carried_labels = self.carried
        path = os.path.abspath(self.path) if self.path is not None else None
        return Manifest(
            document=document_id,
            design_name=self.document.design.settings.name[:200],
            original_path=path if path and len(path) <= 4096 else None,
            copied_at=copied_at,
            saved_at=_epoch(self.saved_at),
            steps=carried_steps + steps,
            labels=(carried_labels + labels)[-5:],
            pid=os.getpid(),
        )

    def _on_finished(self, error: str | None, seconds: float | None) -> None:
        """A write landed (``error`` None) or failed (a full disk must not take
        the editor down)."""
        self._writing = False
        if seconds is not None:
            self.last_seconds = seconds
        if error is not None:
            self.failed.emit(f"Autosave failed: {error}")
            if self.enabled and not self.document.history.is_clean:
                self._pending = True  # try again after the longest delay
                self._max.start(round(self.delays.max_s * 1000))
        elif seconds is not None:
            self.written.emit(seconds)
        if self._again and self._pending:
            self.write_now()

    # --- recovery and shutdown -----------------------------------------------

    def adopt(self, entry: RecoveryEntry) -> None:
        """Take over a found copy as this document's (it was just restored)."""
        found = entry.manifest
        self.carried = (found.steps, found.labels) if found is not None else (0, ())
        copied_at = found.copied_at if found is not None else entry.modified
        try:
            target, document_id = self._claim()
            manifest = self._manifest(document_id, copied_at)
            target.adopt(entry, document_id, manifest)
        except OSError as exc:
            self.failed.emit(f"Autosave: cannot keep the recovered copy: {exc}")
            self._pending = True
            self.write_now()
            return
        self._on_disk = True
        self._pending = False

    def flush(self) -> None:
        """Wait until every queued write and removal is done."""
        if not self._closed:
            self._jobs.wait()

    def shutdown(self) -> None:
        """Stop: remove the copy (the window closes cleanly) and wait for the writer."""
        if self._closed:
            return
        self._closed = True
        self.discard()
        self.enabled = False
        self._jobs.wait()
        self.document.unsubscribe(self._on_changes)


def _same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
