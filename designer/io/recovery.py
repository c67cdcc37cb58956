"""Recovery copies of unsaved designs: naming, manifests, liveness, listing, reading.

The editor (``designer.qt.autosave``) keeps one recovery copy per open document
in a folder of its own (under the platform's application-data folder). The
layout, all of it owned by this module:

* ``<session>.lock``: one per running editor process, locked (``flock`` or
  ``msvcrt.locking``) for as long as the process lives; the operating system
  drops the lock when the process dies, even by ``kill -9``, so "is the writer
  still alive" is "is its lock held", with no pid that could be reused;
* ``<session>-<n>.design.json``: the copy, a design file as :func:`save_design`
  writes it (temp file, fsync, rename: a kill mid-write keeps the previous copy);
* ``<session>-<n>.manifest.json``: a small description written after it
  (:class:`Manifest`): design name, original path, times, what changed since
  the last save, the writer's pid.

Listing (:meth:`RecoveryStore.entries`) offers only copies whose session is dead,
never follows symbolic links, reads at most :data:`MANIFEST_MAX_BYTES` of a
manifest and loads each design with the ordinary loader, so a broken or hostile
file becomes an entry with its problem, never an exception. Files whose names
are not ours are never read nor removed.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from designer.catalog.schema import CatalogEntry
from designer.core.document import History
from designer.core.model import Design, LinkArrays
from designer.core.snapshot import with_links
from designer.io.errors import DesignFileError
from designer.io.load import load_design
from designer.io.save import save_design

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True


DESIGN_SUFFIX = ".design.json"
MANIFEST_SUFFIX = ".manifest.json"
LOCK_SUFFIX = ".lock"
MANIFEST_MAX_BYTES = 64 * 1024
"""Largest manifest read (a real one is well under 2 KB)."""
MAX_LABELS = 5
"""How many of the latest history labels a manifest keeps."""
MAX_ENTRIES = 32
"""Most copies one listing offers (newest first); the rest wait for the next."""

_SESSION = r"[0-9a-f]{12}"
_DOCUMENT = rf"(?P<session>{_SESSION})-(?P<number>[0-9]{{1,9}})"
_FILE = re.compile(rf"^{_DOCUMENT}(?P<kind>\.design\.json|\.manifest\.json)$")
_LOCK = re.compile(rf"^(?P<session>{_SESSION})\.lock$")
# Temp files of an interrupted write of one of our files (save_design's and
# ours both name them ``.<target name>.<random>.tmp``).
_TEMP = re.compile(rf"^\.{_DOCUMENT}\.(design|manifest)\.json\..+\.tmp$")
DOCUMENT_PATTERN = re.compile(rf"^{_SESSION}-[0-9]{{1,9}}$")
"""A document id: ``<session>-<n>``."""

_Label = Field(max_length=200)


class Manifest(BaseModel):
    """What a recovery copy holds, as the dialog shows it before loading anything."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    format: Literal["cluster-designer-recovery"] = "cluster-designer-recovery"
    version: Literal[1] = 1
    document: str = Field(pattern=DOCUMENT_PATTERN.pattern)
    design_name: str = Field(max_length=200)
    original_path: str | None = Field(default=None, min_length=1, max_length=4096)
    copied_at: float = Field(ge=0, le=1e11, allow_inf_nan=False)
    """When the copied state was taken (seconds since the epoch)."""
    saved_at: float | None = Field(default=None, ge=0, le=1e11, allow_inf_nan=False)
    """When the original file was last saved (None: never saved)."""
    steps: int = Field(ge=0, le=10**9)
    """Edits since the last save."""
    labels: tuple[str, ...] = Field(default=(), max_length=MAX_LABELS)
    """The latest of those edits, by their history labels, oldest first."""
    pid: int = Field(ge=0, le=2**32)

    def to_json(self) -> bytes:
        """The manifest as UTF-8 JSON text."""
        return (self.model_dump_json(indent=2) + "\n").encode("utf-8")


def changes_since_save(history: History) -> tuple[int, tuple[str, ...]]:
    """(steps, latest labels) between the saved state and the current one.

    Undoing past the saved state counts too (as "Undo <label>"); when the saved
    state is no longer in the history (never saved, or redo cleared past it),
    every done step counts.
    """
    done, clean = history.done, history.clean_index
    if clean is None or clean <= len(done):
        start = 0 if clean is None else clean
        labels = [c.label for c in done[start:]]
    else:
        undone = history.undone[len(history.undone) - (clean - len(done)) :]
        labels = [f"Undo {c.label}" for c in undone]
    return len(labels), tuple(label[:200] for label in labels[-MAX_LABELS:])


def _fsync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file beside it, fsync, rename)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(path.parent)


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


class Session:
    """One editor process's claim on the recovery folder (see the module notes).

    Its lock file is held until :meth:`close` or the death of the process.
    """

    def __init__(self, store: RecoveryStore, session_id: str, fd: int) -> None:
        self.store = store
        self.id = session_id
        self._fd: int | None = fd
        self._documents = 0

    @property
    def closed(self) -> bool:
        """True once the lock is released."""
        return self._fd is None

    def new_document_id(self) -> str:
        """A fresh document id in this session (``<session>-<n>``)."""
        self._documents += 1
        return f"{self.id}-{self._documents}"

    def close(self) -> None:
        """Release the claim (a clean exit); copies stay where they are."""
        if self._fd is None:
            return
        os.close(self._fd)  # first: Windows cannot remove an open file
        self._fd = None
        with contextlib.suppress(OSError):
            _unlink(self.store.directory / f"{self.id}{LOCK_SUFFIX}")


@dataclass
class RecoveryEntry:
    """One recovery copy found on disk, loaded or with the reasons it cannot be."""

    document: str
    session: str
    design_path: Path | None
    manifest_path: Path | None
    modified: float
    manifest: Manifest | None = None
    design: Design | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def recoverable(self) -> bool:
        """True when the design loaded."""
        return self.design is not None

    @property
    def name(self) -> str:
        """The design's name (from the manifest, else the design, else the id)."""
        if self.manifest is not None:
            return self.manifest.design_name
        if self.design is not None:
            return self.design.settings.name
        return self.document


class RecoveryStore:
    """The recovery folder: sessions, copies and their manifests."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def design_path(self, document: str) -> Path:
        """Where the copy of ``document`` lives."""
        return self.directory / f"{_checked(document)}{DESIGN_SUFFIX}"

    def manifest_path(self, document: str) -> Path:
        """Where the manifest of ``document`` lives."""
        return self.directory / f"{_checked(document)}{MANIFEST_SUFFIX}"

    def open_session(self) -> Session:
        """Create the folder if needed and claim a new, locked session."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        for _ in range(8):
            session_id = secrets.token_hex(6)
            path = self.directory / f"{session_id}{LOCK_SUFFIX}"
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            # A listing in another process may remove a lock file it finds
            # unlocked: make sure the file we locked is still the one named.
            if _try_lock(fd) and _same_file(fd, path):
                os.write(fd, f"{os.getpid()}\n".encode())
                return Session(self, session_id, fd)
            os.close(fd)
        raise OSError(f"{self.directory}: cannot claim a recovery session")

    def session_alive(self, session_id: str) -> bool:
        """True while the process of ``session_id`` holds its lock."""
        path = self.directory / f"{session_id}{LOCK_SUFFIX}"
        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return False
        except OSError:
            return True  # cannot tell: better not offer a copy that may be in use
        try:
            return not _try_lock(fd)
        finally:
            os.close(fd)  # also releases the lock just taken

    def write(
        self,
        document: str,
        design: Design,
        links: LinkArrays | None,
        manifest: Manifest,
    ) -> Path:
        """Write the copy, then its manifest (both atomically); return the copy.

        ``design`` may be a snapshot whose links are ``links`` (the column state
        shared with the editor), rebuilt here, off the editing thread.
        """
        if links is not None:
            design = with_links(design, links)
        path = self.design_path(document)
        save_design(design, path)
        write_atomic(self.manifest_path(document), manifest.to_json())
        return path

    def remove(self, document: str) -> None:
        """Remove the copy of ``document`` and its manifest (missing is fine)."""
        _unlink(self.design_path(document))
        _unlink(self.manifest_path(document))

    def adopt(self, entry: RecoveryEntry, document: str, manifest: Manifest) -> None:
        """Move a found copy to ``document`` (the live document restored from it)."""
        if entry.design_path is not None:
            os.replace(entry.design_path, self.design_path(document))
            write_atomic(self.manifest_path(document), manifest.to_json())
        if entry.manifest_path is not None:
            _unlink(entry.manifest_path)

    def discard(self, entry: RecoveryEntry) -> None:
        """Delete a found copy (the user declined it, or it is broken)."""
        for path in (entry.design_path, entry.manifest_path):
            if path is not None:
                _unlink(path)

    def entries(
        self,
        catalog: Mapping[str, CatalogEntry] | None = None,
        *,
        limit: int = MAX_ENTRIES,
    ) -> list[RecoveryEntry]:
        """Copies left by processes that are gone, newest first, each loaded (or
        with its problems); removes their dead lock and temp files."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        alive: dict[str, bool] = {}

        def is_alive(session_id: str) -> bool:
            if session_id not in alive:
                alive[session_id] = self.session_alive(session_id)
            return alive[session_id]

        found: dict[str, RecoveryEntry] = {}
        for name in names:
            match = _FILE.match(name)
            if match is None:
                continue
            session_id = match["session"]
            if is_alive(session_id):
                continue
            document = f"{session_id}-{match['number']}"
            path = self.directory / name
            try:
                modified = path.lstat().st_mtime
            except OSError:
                continue
            entry = found.setdefault(
                document, RecoveryEntry(document, session_id, None, None, modified)
            )
            entry.modified = max(entry.modified, modified)
            if match["kind"] == DESIGN_SUFFIX:
                entry.design_path = path
            else:
                entry.manifest_path = path
        self._remove_leftovers(names, is_alive)
        chosen = sorted(found.values(), key=lambda e: e.modified, reverse=True)
        for entry in chosen[:limit]:
            self._read(entry, catalog)
        return chosen[:limit]

    def _remove_leftovers(
        self, names: Sequence[str], is_alive: Callable[[str], bool]
    ) -> None:
        """Lock files of dead sessions and temp files of their interrupted writes."""
        for name in names:
            lock = _LOCK.match(name)
            temp = _TEMP.match(name)
            if lock is not None and not is_alive(lock["session"]):
                self._remove_dead_lock(self.directory / name)
            elif temp is not None and not is_alive(temp["session"]):
                with contextlib.suppress(OSError):
                    if stat.S_ISREG((self.directory / name).lstat().st_mode):
                        (self.directory / name).unlink()

    def _remove_dead_lock(self, path: Path) -> None:
        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return
        try:
            if _try_lock(fd):  # held by us while it goes: nobody can be using it
                with contextlib.suppress(OSError):  # Windows: removed next time
                    _unlink(path)
        finally:
            os.close(fd)

    def _read(
        self, entry: RecoveryEntry, catalog: Mapping[str, CatalogEntry] | None
    ) -> None:
        if entry.manifest_path is None:
            entry.problems.append("no description was written with this copy")
        else:
            try:
                data = _read_small(entry.manifest_path, MANIFEST_MAX_BYTES)
                manifest = Manifest.model_validate_json(data)
                if manifest.document != entry.document:
                    raise ValueError(f"names document {manifest.document!r}")
                entry.manifest = manifest
            except (OSError, ValueError) as exc:
                entry.problems.append(
                    f"{entry.manifest_path.name}: the description cannot be read "
                    f"({_short(exc)})"
                )
        if entry.design_path is None:
            entry.problems.append("the copy itself is missing; nothing to recover")
            return
        try:
            if not stat.S_ISREG(entry.design_path.lstat().st_mode):
                raise OSError("not a regular file")
        except OSError as exc:
            entry.problems.append(f"{entry.design_path.name}: {_short(exc)}")
            return
        try:
            entry.design = load_design(entry.design_path, catalog=catalog)
        except DesignFileError as exc:
            entry.problems.append(str(exc))


def _checked(document: str) -> str:
    if not DOCUMENT_PATTERN.match(document):
        raise ValueError(f"not a recovery document id: {document!r}")
    return document


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except OSError:
        return False


def _read_small(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file, never through a symbolic link."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ValueError(f"larger than {limit // 1024} KB")
    return data


def _short(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        place = ".".join(str(p) for p in first["loc"])
        return f"{place}: {first['msg']}" if place else str(first["msg"])
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def local_time(when: float) -> str:
    """``when`` (seconds since the epoch) as local time, ``2026-05-09 14:03:12``."""
    if not math.isfinite(when):
        return "unknown"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))
