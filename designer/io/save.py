"""Write design files atomically, in a layout that diffs well.

One device or group per line, one line per link column; a crash mid-save never
leaves a half-written file in place of the previous one.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from designer.core.model import Design


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


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def save_design(design: Design, path: str | os.PathLike[str]) -> None:
    """Write ``design`` to ``path`` atomically (temp file, fsync, ``os.replace``)."""
    target = Path(path)
    if target.is_symlink():  # write through the link, do not replace it
        target = target.resolve()
    directory = target.parent
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = _new_file_mode()
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
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
