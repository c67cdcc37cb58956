"""Read design files: every failure is a :class:`DesignFileError`, never a traceback.

The fast path hands the text straight to pydantic (strict JSON mode,
:mod:`designer.io.validator`). Only when that fails does the slow path
(:mod:`designer.io.diagnose`) parse it with :mod:`json` to find out, and say,
where the file is broken and what was expected there.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from designer.catalog.loader import default_catalog
from designer.catalog.schema import CatalogEntry
from designer.core.model import SCHEMA_VERSION, Design
from designer.core.pin_checks import pin_problems
from designer.core.pins import pin_pending
from designer.io.diagnose import (
    MAX_DEPTH,
    decode,
    diagnose,
    fail,
    json_invalid,
    raise_validation,
    references_failed,
    refuse,
)
from designer.io.errors import DesignFileError, Problem
from designer.io.references import MAX_PROBLEMS, check_catalog
from designer.io.save import remove_stale_temps
from designer.io.scan import EXPECT_DESIGN, Outline, Refused, scan
from designer.io.validator import validate_design

__all__ = ["MAX_BYTES", "load_design", "loads_design"]


MAX_BYTES = 512 * 1024 * 1024
"""Largest design file accepted (512 MiB); a 100,000-GPU design is ~30 MB."""


def load_design(
    path: str | os.PathLike[str],
    *,
    catalog: Mapping[str, CatalogEntry] | None = None,
    max_bytes: int = MAX_BYTES,
) -> Design:
    """Read a design file; raise :class:`DesignFileError` if it cannot be used.

    Leftover temp files of interrupted saves in its folder are removed (see
    :func:`designer.io.save.remove_stale_temps`)."""
    source = os.fspath(path)
    data = _read_bytes(Path(source), source, max_bytes)
    remove_stale_temps(Path(source).parent)  # leftovers of interrupted saves
    return loads_design(data, source, catalog=catalog, max_bytes=max_bytes)


def loads_design(
    text: str | bytes,
    source: str = "<string>",
    *,
    catalog: Mapping[str, CatalogEntry] | None = None,
    max_bytes: int = MAX_BYTES,
) -> Design:
    """Parse a design from JSON text; ``source`` names it in error messages."""
    if isinstance(text, str):
        if len(text) > max_bytes:
            fail(source, "", _too_big(len(text), max_bytes))
        data = text.encode("utf-8", "surrogatepass")
    else:
        data = bytes(text)
    if len(data) > max_bytes:
        fail(source, "", _too_big(len(data), max_bytes))
    _check_binary(data, source)
    data = data.removeprefix(_BOM)
    if not data or data.isspace():
        fail(source, "", f"the file is empty; {EXPECT_DESIGN}")
    try:
        outline = scan(data)
    except Refused as exc:
        refuse(data, source, exc)
    design, version = _parse(data, outline, source)
    cat = default_catalog() if catalog is None else catalog
    check_catalog(design, source, cat, version)
    _check_pins(design, source, cat)
    # ports not chosen yet (a file of schema_version 4 or older, a design
    # saved before its links were pinned): chosen once, now, by the rule
    if design.links.pins_pending():
        from designer.io.export.cables import pin_kinds

        pin_pending(design, cat, kinds=pin_kinds(design, cat))
    return design


def _check_pins(
    design: Design, source: str, catalog: Mapping[str, CatalogEntry]
) -> None:
    """Pins that name no port of their group, or a port another link holds."""
    found = pin_problems(design, catalog, limit=MAX_PROBLEMS + 1)
    if not found:
        return
    positions = design.links.positions(p.link_id for p in found if p.link_id)
    problems = []
    for p in found[:MAX_PROBLEMS]:
        i = positions.get(p.link_id or "", 0)
        end = "a" if design.links.a[i] == p.device else "b"
        problems.append(Problem(f"links.{end}_pins[{i}]", p.message))
    raise DesignFileError(source, problems, max(0, len(found) - MAX_PROBLEMS))


_BOM = b"\xef\xbb\xbf"
_VERSION_VALUE = re.compile(
    rb"[ \t\r\n]*" + str(SCHEMA_VERSION).encode() + rb"[ \t\r\n]*[,}]"
)


def _parse(data: bytes, outline: Outline, source: str) -> tuple[Design, int]:
    """The design and the file's schema version: pydantic on the bytes when the
    scan saw a complete current-version file, else the step-by-step diagnosis."""
    first: ValidationError | None = None
    current = (
        outline.complete
        and outline.version_colon >= 0
        and _VERSION_VALUE.match(data, outline.version_colon + 1) is not None
    )
    if current:
        try:
            return validate_design(data, source), SCHEMA_VERSION
        except ValidationError as exc:
            # JSON of the right version (the model reads NaN and Infinity,
            # which JSON has not: those go the long way and are named), nothing
            # too deep: the model's answer is the answer, without building the
            # whole file as Python lists and dicts to ask again.
            direct = (
                outline.max_depth <= MAX_DEPTH
                and not json_invalid(exc)
                and not references_failed(exc)
                and _CONSTANT.search(data) is None
            )
            if direct:
                raise_validation(exc, {}, source, SCHEMA_VERSION)
            first = exc
    return diagnose(decode(data, source), source, first)


_CONSTANT = re.compile(rb"NaN|Infinity")


def _check_binary(data: bytes, source: str) -> None:
    nul = data.find(b"\x00", 0, 1 << 16)
    if nul >= 0:
        fail(
            source,
            f"byte {nul}",
            "binary data (a NUL byte); expected a JSON design file (UTF-8 text)",
        )


def _too_big(size: int, limit: int) -> str:
    mb = 1024 * 1024
    return (
        f"the file is {size / mb:,.1f} MB, larger than the {limit / mb:,.0f} MB "
        f"limit for design files; expected a smaller design file"
    )


def _read_bytes(path: Path, source: str, max_bytes: int) -> bytes:
    """The file's bytes, with OS failures turned into clear messages."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            fail(source, "", "is a directory; expected a design file (.json)")
        if not stat.S_ISREG(info.st_mode):
            fail(source, "", "is not a regular file; expected a design file (.json)")
        if info.st_size > max_bytes:
            fail(source, "", _too_big(info.st_size, max_bytes))
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        fail(source, "", "no such file; expected the path of a design file (.json)")
    except IsADirectoryError:
        fail(source, "", "is a directory; expected a design file (.json)")
    except PermissionError:
        fail(source, "", "permission denied; expected a file you may read")
    except OSError as exc:
        fail(source, "", f"cannot be read ({exc.strerror or exc}); {EXPECT_DESIGN}")
    if len(data) > max_bytes:
        fail(source, "", _too_big(len(data), max_bytes))
    return data
