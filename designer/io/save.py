"""Write design files atomically, in a layout that diffs well.

One device or group per line, one line per link column; a crash mid-save never
leaves a half-written file in place of the previous one: the text goes to a
temp file ``.NAME.XXXXXXXX.tmp`` beside the target (locked while it is
written), is flushed and fsynced, then renamed over the target.

A save that is killed leaves its temp file behind. The next save or open in
that folder removes such leftovers (:func:`remove_stale_temps`), but only a
file that is certainly one of ours and certainly dead: its name has our temp
pattern, it is a regular file of the current user, it is empty or starts the
way our writer starts a design, it was last written more than
:data:`STALE_AFTER` seconds ago, and no live writer holds its lock.

:func:`save_design` touches no global state, so a worker thread may run it on
a :func:`snapshot` taken on the thread that edits the design (autosave).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from designer.core.model import Design, reference_problems
from designer.core.snapshot import copy
from designer.io.errors import DesignFileError, Problem, UnsavableDesign

try:  # POSIX advisory locks; elsewhere an open file cannot be removed anyway
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

TEMP_SUFFIX = ".tmp"
TEMP_PATTERN = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
"""Names of our temp files: ``tempfile.mkstemp`` with prefix ``.NAME.``."""

STALE_AFTER = 60.0
"""Seconds since its last write after which an unlocked temp file of ours is a
leftover (a 512 MB save writes in a few seconds)."""

_HEADER = b'{\n  "schema_version": '
"""How every file our writer produces starts (see :func:`iter_chunks`)."""


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def iter_chunks(design: Design) -> Iterator[str]:
    """The design's JSON text in pieces (the serializer ``save_design`` streams)."""
    data = design.model_dump(mode="json")
    yield "{\n"
    yield f'  "schema_version": {_compact(data["schema_version"])},\n'
    settings = json.dumps(data["settings"], ensure_ascii=False, indent=2)
    yield '  "settings": ' + settings.replace("\n", "\n  ") + ",\n"
    yield '  "workload": ' + json.dumps(data["workload"], ensure_ascii=False) + ",\n"
    yield from _physical(data["physical"])
    for key in ("groups", "devices"):
        items = data[key]
        if not items:
            yield f'  "{key}": [],\n'
            continue
        yield f'  "{key}": [\n'
        last = len(items) - 1
        for i, item in enumerate(items):
            yield "    " + _compact(item) + (",\n" if i < last else "\n")
        yield "  ],\n"
    yield '  "links": {\n'
    columns = list(data["links"].items())
    for i, (name, column) in enumerate(columns):
        sep = ",\n" if i < len(columns) - 1 else "\n"
        yield f'    "{name}": ' + json.dumps(column, ensure_ascii=False) + sep
    yield "  }\n}\n"


def _physical(block: dict[str, Any] | None) -> Iterator[str]:
    """The physical block: facility on one line, one line per list item."""
    if block is None:
        yield '  "physical": null,\n'
        return
    yield '  "physical": {\n'
    yield '    "facility": ' + _compact(block["facility"]) + ",\n"
    keys = ("rack_types", "halls", "rows", "racks")
    for n, key in enumerate(keys):
        items = block[key]
        end = ",\n" if n < len(keys) - 1 else "\n"
        if not items:
            yield f'    "{key}": []{end}'
            continue
        yield f'    "{key}": [\n'
        last = len(items) - 1
        for i, item in enumerate(items):
            yield "      " + _compact(item) + (",\n" if i < last else "\n")
        yield "    ]" + end
    yield "  },\n"


def dumps_design(design: Design) -> str:
    """The design as JSON text, exactly as :func:`save_design` writes it."""
    return "".join(iter_chunks(design))


def _read_umask() -> int:
    # Setting the umask to read it is process-wide: do it once, at import
    # (on the main thread), so a save from a worker thread never changes it.
    umask = os.umask(0)
    os.umask(umask)
    return umask


_UMASK = _read_umask()


def _new_file_mode() -> int:
    return 0o666 & ~_UMASK


def snapshot(design: Design) -> Design:
    """A copy of ``design`` that later edits do not change, cheap enough for the
    editing thread: commands replace devices, groups and settings rather than
    mutate them, so copying the lists is enough, and the link table's arrays are
    never written (a copy of the table shares them)."""
    return copy(design)


def _lock(handle: IO[str]) -> None:
    if fcntl is not None:
        with contextlib.suppress(OSError):
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def check_savable(
    design: Design, source: str, catalog: Mapping[str, Any] | None = None
) -> None:
    """Refuse (:class:`UnsavableDesign`) a design whose file the loader would
    refuse: the loader's own reference check (ids, groups, racks, placements,
    link ends) and its catalog check (catalog ids, port groups). Field values
    are kept valid by the commands themselves."""
    broken = reference_problems(design)
    if broken:
        raise UnsavableDesign(source, [Problem("", text) for text in broken[:20]])
    from designer.catalog.loader import default_catalog  # a heavy import
    from designer.io.references import check_catalog

    try:
        check_catalog(design, source, default_catalog() if catalog is None else catalog)
    except DesignFileError as exc:
        raise UnsavableDesign(source, exc.problems, exc.more) from None


def save_design(
    design: Design,
    path: str | os.PathLike[str],
    *,
    catalog: Mapping[str, Any] | None = None,
) -> None:
    """Write ``design`` to ``path`` atomically (temp file, fsync, ``os.replace``);
    then remove leftover temp files of interrupted saves in that folder.

    A design the loader would refuse is not written: :func:`check_savable`
    raises :class:`UnsavableDesign` first (``catalog``: the one to check
    against, the default catalog when None)."""
    check_savable(design, os.fspath(path), catalog)
    target = Path(path)
    if target.is_symlink():  # write through the link, do not replace it
        target = target.resolve()
    directory = target.parent
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = _new_file_mode()
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=directory
    )
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            _lock(handle)  # released when the file is closed (or the writer dies)
            for chunk in iter_chunks(design):
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_directory(directory)
    remove_stale_temps(directory)


def _is_stale_temp(path: Path, now: float) -> bool:
    """Whether ``path`` is a leftover temp file of ours (see the module notes)."""
    if not TEMP_PATTERN.match(path.name):
        return False
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < STALE_AFTER:
        return False
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        head = os.read(fd, len(_HEADER))
        if not _HEADER.startswith(head):
            return False  # not written by this program
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # a live writer holds it
        return True
    finally:
        os.close(fd)


def remove_stale_temps(directory: str | os.PathLike[str]) -> list[Path]:
    """Remove leftover temp files of interrupted saves in ``directory``; return
    what was removed. Never raises: a folder that cannot be listed is left."""
    removed: list[Path] = []
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        path = Path(entry.path)
        if entry.name.endswith(TEMP_SUFFIX) and _is_stale_temp(path, now):
            try:
                path.unlink()
            except OSError:
                continue
            removed.append(path)
    return removed


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX; a no-op where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
