"""Read design files: every failure is a :class:`DesignFileError`, never a traceback.

The fast path hands the text straight to pydantic (strict JSON mode). Only when
that fails does the slow path parse it with :mod:`json` to find out, and say,
where the file is broken and what was expected there.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import SchemaValidator

from designer.catalog.loader import default_catalog
from designer.catalog.schema import CatalogEntry
from designer.core.model import LINK_COLUMNS, SCHEMA_VERSION, Design
from designer.core.model import reference_problems as model_reference_problems
from designer.core.pin_checks import pin_problems
from designer.core.pins import pin_pending
from designer.io.errors import DesignFileError, MigrationError, Problem
from designer.io.messages import translate
from designer.io.migrate import (
    COLUMN_LINKS_SINCE,
    OLDEST_VERSION,
    json_type,
    migrate,
)
from designer.io.references import MAX_PROBLEMS, check_catalog, reference_problems
from designer.io.save import remove_stale_temps
from designer.io.scan import EXPECT_DESIGN, Outline, Refused, line_col, scan

MAX_BYTES = 512 * 1024 * 1024
"""Largest design file accepted (512 MiB); a 100,000-GPU design is ~30 MB."""

MAX_DEPTH = 64
"""Deepest nesting of arrays/objects accepted (a design needs 4)."""

_EXPECT_DESIGN = EXPECT_DESIGN


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
            _fail(source, "", _too_big(len(text), max_bytes))
        data = text.encode("utf-8", "surrogatepass")
    else:
        data = bytes(text)
    if len(data) > max_bytes:
        _fail(source, "", _too_big(len(data), max_bytes))
    _check_binary(data, source)
    data = data.removeprefix(_BOM)
    if not data or data.isspace():
        _fail(source, "", f"the file is empty; {_EXPECT_DESIGN}")
    try:
        outline = scan(data)
    except Refused as exc:
        _refuse(data, source, exc)
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
            return _validate(data, source), SCHEMA_VERSION
        except ValidationError as exc:
            # JSON of the right version (the model reads NaN and Infinity,
            # which JSON has not: those go the long way and are named), nothing
            # too deep: the model's answer is the answer, without building the
            # whole file as Python lists and dicts to ask again.
            direct = (
                outline.max_depth <= MAX_DEPTH
                and not _json_invalid(exc)
                and not _references_failed(exc)
                and _CONSTANT.search(data) is None
            )
            if direct:
                _raise_validation(exc, {}, source, SCHEMA_VERSION)
            first = exc
    return _diagnose(_decode(data, source), source, first)


_CONSTANT = re.compile(rb"NaN|Infinity")


def _references_failed(exc: ValidationError) -> bool:
    """The one error of a design whose ids or references do not resolve (the
    parsed data is needed to say where)."""
    if exc.error_count() != 1:
        return False
    # without its input: for this error that is the whole file, as Python values
    [error] = exc.errors(include_url=False, include_input=False)
    return error["type"] == "value_error" and not error["loc"]


def _check_binary(data: bytes, source: str) -> None:
    nul = data.find(b"\x00", 0, 1 << 16)
    if nul >= 0:
        _fail(
            source,
            f"byte {nul}",
            "binary data (a NUL byte); expected a JSON design file (UTF-8 text)",
        )


def _refuse(data: bytes, source: str, exc: Refused) -> None:
    """Report what the scan refused, unless the JSON before it is broken (then
    that comes first, as the parser would say it)."""
    text, pieces = _prefix_text(data, source, exc)
    try:
        json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        if err.pos < len(text.rstrip()):
            at = _original_pos(pieces, err.pos)
            truncated = at >= len(data[: exc.pos].rstrip())
            _fail(source, line_col(data, at), _json_what(err.msg, truncated))
    except RecursionError:
        _deep_failure(text, source)
    except ValueError as err:
        pos, what = _constant_at(text, str(err))
        where = (
            "(somewhere)" if pos is None else line_col(data, _original_pos(pieces, pos))
        )
        _fail(source, where, what)
    _fail(source, exc.place, exc.message)


_WS_RE = rb"[ \t\r\n]*+"
_SCALAR = (
    rb'(?:"[^"\x00-\x1f]*+"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+'
    rb"(?:[eE][+-]?+[0-9]++)?+|true|false|null)"
)
_FLAT_JSON = re.compile(
    rb"\[" + _WS_RE + rb"(?:" + _SCALAR + rb"(?:" + _WS_RE + rb"," + _WS_RE + _SCALAR
    + rb")*+)?+" + _WS_RE + rb"\]"
)  # fmt: skip
"""A flat JSON array of strings (no escapes), numbers and literals."""


def _prefix_text(
    data: bytes, source: str, exc: Refused
) -> tuple[str, list[tuple[int, int, str]]]:
    """The text before the refused place, each flat array the scan skipped
    checked on its own (by a pattern) and replaced by ``[]``, so checking the
    rest builds no big lists. Returns the text and its pieces (start in that
    text, start in the file, piece) to map a position back to the file."""
    pieces: list[tuple[int, int, str]] = []
    at, used = 0, 0
    for start, end in exc.flat_spans:
        piece = data[at:start]
        for part, where in ((piece, at), (data[start:end], start)):
            try:
                part.decode("utf-8")
            except UnicodeDecodeError as err:
                _not_utf8(data, where + err.start, source)
        found = _FLAT_JSON.fullmatch(data, start, end)
        if found is None or found.end() != end:
            # not plain JSON: have the parser say where (bounded: flat and counted)
            chunk = data[start:end].decode("utf-8")
            try:
                json.loads(chunk, parse_constant=_reject_constant)
            except json.JSONDecodeError as err:
                _fail(source, line_col(data, start + len(chunk[: err.pos].encode())),
                      _json_what(err.msg, False))  # fmt: skip
            except ValueError as err:
                pos, what = _constant_at(chunk, str(err))
                at_byte = start + len(chunk[: pos or 0].encode("utf-8"))
                _fail(source, line_col(data, at_byte), what)
        text = piece.decode("utf-8")
        pieces.append((used, at, text))
        used += len(text)
        pieces.append((used, start, "[]"))
        used += 2
        at = end
    tail = data[at : exc.pos]
    text = _decode(tail, source) if at == 0 else _decode_at(data, at, exc.pos, source)
    pieces.append((used, at, text))
    return "".join(p[2] for p in pieces), pieces


def _decode_at(data: bytes, start: int, end: int, source: str) -> str:
    try:
        return data[start:end].decode("utf-8")
    except UnicodeDecodeError as err:
        _not_utf8(data, start + err.start, source)
    raise AssertionError("unreachable")


def _original_pos(pieces: list[tuple[int, int, str]], pos: int) -> int:
    """Byte position in the file of character ``pos`` of the checked text."""
    for used, start, text in reversed(pieces):
        if pos >= used:
            if text == "[]" and pos < used + 2:
                return start
            return start + len(text[: pos - used].encode("utf-8"))
    return pos


def _fail(source: str, place: str, message: str) -> None:
    raise DesignFileError(source, [Problem(place, message)])


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
            _fail(source, "", "is a directory; expected a design file (.json)")
        if not stat.S_ISREG(info.st_mode):
            _fail(source, "", "is not a regular file; expected a design file (.json)")
        if info.st_size > max_bytes:
            _fail(source, "", _too_big(info.st_size, max_bytes))
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        _fail(source, "", "no such file; expected the path of a design file (.json)")
    except IsADirectoryError:
        _fail(source, "", "is a directory; expected a design file (.json)")
    except PermissionError:
        _fail(source, "", "permission denied; expected a file you may read")
    except OSError as exc:
        _fail(source, "", f"cannot be read ({exc.strerror or exc}); {_EXPECT_DESIGN}")
    if len(data) > max_bytes:
        _fail(source, "", _too_big(len(data), max_bytes))
    return data


def _decode(data: bytes, source: str) -> str:
    """UTF-8 text of the file, or a message that says it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        _not_utf8(data, exc.start, source)
    raise AssertionError("unreachable")


def _not_utf8(data: bytes, pos: int, source: str) -> None:
    line = data.count(b"\n", 0, pos) + 1
    _fail(
        source,
        f"line {line} (byte {pos})",
        "not UTF-8 text; expected a JSON design file saved as UTF-8",
    )


# ---------------------------------------------------------------------------
# slow path: find out what is wrong


_JSON_MESSAGES = {
    "Expecting value": "expected a JSON value (object, array, string, number, "
    "true, false or null)",
    "Expecting ',' delimiter": "expected ',' or a closing bracket",
    "Expecting ':' delimiter": "expected ':' after an object key",
    "Expecting property name enclosed in double quotes": "expected a key in "
    "double quotes (or '}' without a trailing comma before it)",
    "Extra data": "expected the end of the file after the design object",
    "Unterminated string starting at": "expected a closing '\"' for this string",
    "Invalid control character at": "expected no raw control characters in "
    "strings (write \\n, \\t)",
    "Invalid \\escape": 'expected a valid escape such as \\n or \\"',
}


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def _diagnose(
    text: str, source: str, first: ValidationError | None = None
) -> tuple[Design, int]:
    """Parse step by step and raise the first clear problem.

    Returns the design and the schema version the file had. ``first`` is what
    the model said about the same current-version text, reused rather than
    validating a second time (unless the model could not read it as JSON).
    """
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        _json_failure(text, source, exc)
    except RecursionError:
        _deep_failure(text, source)
    except ValueError as exc:
        place, what = _constant_place(text, str(exc))
        _fail(source, place, what)
    if not isinstance(data, dict):
        _fail(source, "(top level)", f"{_EXPECT_DESIGN}, found {json_type(data)}")
    deep = _too_deep(data)
    if deep is not None:
        _fail(
            source,
            deep if len(deep) <= 60 else deep[:60] + "...",
            f"nested deeper than {MAX_DEPTH} levels; expected a design, which "
            f"nests at most 4 levels",
        )
    version = _version(data, source)
    migrated = version < SCHEMA_VERSION
    rows = version < COLUMN_LINKS_SINCE  # links were row objects in the file
    if migrated:
        try:
            data = migrate(data, version)
        except MigrationError as exc:
            raise DesignFileError(source, [_with_note(exc.problem, version)]) from None
    if first is not None and not migrated and not _json_invalid(first):
        _raise_validation(first, data, source, version)
    try:
        # the model's own reference check: its places are read in row form
        return _validate(json.dumps(data), source, own_check=not rows), version
    except ValidationError as exc:
        if _json_invalid(exc):
            _fail(source, *_invalid_text_place(text))
        _raise_validation(exc, data, source, version)
    raise AssertionError("unreachable")


def _json_invalid(exc: ValidationError) -> bool:
    errors = exc.errors(include_url=False, include_input=False)
    return any(e["type"] == "json_invalid" for e in errors)


def _json_what(message: str, truncated: bool) -> str:
    expected = _JSON_MESSAGES.get(message, message)
    if truncated:
        return f"the file ends too early (truncated?); {expected}"
    return "invalid JSON: " + expected


def _json_failure(text: str, source: str, exc: json.JSONDecodeError) -> None:
    truncated = exc.pos >= len(text.rstrip())
    _fail(
        source, f"line {exc.lineno}, column {exc.colno}", _json_what(exc.msg, truncated)
    )


def _deep_failure(text: str, source: str) -> None:
    _fail(
        source,
        _deep_place(text),
        f"nested deeper than {MAX_DEPTH} levels; expected a design, which "
        f"nests at most 4 levels",
    )


def _invalid_text_place(text: str) -> tuple[str, str]:
    """Python's json accepts lone UTF-16 surrogate escapes; the model does not."""
    match = re.search(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}", text)
    place = _line_col(text, match.start()) if match else "(top level)"
    return place, "an unpaired \\uD800-\\uDFFF escape; expected a valid character"


def _with_note(problem: Problem, version: int) -> Problem:
    return Problem(
        problem.place, f"{problem.message} (file has schema_version {version})"
    )


def _version(data: dict[str, Any], source: str) -> int:
    if "schema_version" not in data:
        _fail(
            source,
            "(top level)",
            f"missing key 'schema_version'; expected the file format version "
            f"(this version writes {SCHEMA_VERSION})",
        )
    version = data["schema_version"]
    if isinstance(version, bool) or not isinstance(version, int):
        _fail(
            source,
            "schema_version",
            f"expected a whole number ({OLDEST_VERSION}..{SCHEMA_VERSION}), "
            f"found {json_type(version)}",
        )
    if version > SCHEMA_VERSION:
        _fail(
            source,
            "schema_version",
            f"{version}: the file was made by a newer version of GPU Cluster "
            f"Designer; expected schema_version {SCHEMA_VERSION} or older "
            f"(upgrade the program to open it)",
        )
    if version < OLDEST_VERSION:
        _fail(
            source,
            "schema_version",
            f"expected {OLDEST_VERSION}..{SCHEMA_VERSION}, found {version}",
        )
    return int(version)


def _raise_validation(
    exc: ValidationError, data: dict[str, Any], source: str, version: int
) -> None:
    migrated = version < SCHEMA_VERSION
    rows = version < COLUMN_LINKS_SINCE  # links were row objects in the file
    problems: list[Problem] = []
    more = 0
    if _references_failed(exc):
        found = reference_problems(data, row_links=rows)
        problems, more = list(found), found.more
    if not problems:  # field errors (or a reference rule this module lacks)
        errors = exc.errors(
            include_url=False, include_input=not _references_failed(exc)
        )
        problems = translate(errors[:MAX_PROBLEMS], migrated_links=rows)
        more = len(errors) - len(problems)
    if migrated:
        problems = [_with_note(p, version) for p in problems]
    raise DesignFileError(source, problems[:MAX_PROBLEMS], more) from None


FULL_CHECK_BYTES = 1 << 16
"""Files up to this size (64 KiB) get every problem of every list counted; in
larger ones each array or object stops at its first bad entry, since a model
error costs about 2 KB and an array of zeros holds one every 2 bytes."""


@functools.lru_cache(maxsize=4)
def _validator(fail_fast: bool, own_check: bool) -> tuple[SchemaValidator, bool]:
    """The design model's validator, built from its core schema: with
    ``fail_fast`` every array and object stops at its first bad entry (the same
    result for a valid file). The model's own reference check (its outer
    after-validator) is left out when it is the only one, and the second value
    says so: the loader then runs the same check (``reference_problems``) on
    the built design, which on failure also says where, instead of pydantic's
    error path, which holds the whole parsed file (1.9 GB for 100 MB of links).
    """
    schema = copy.deepcopy(Design.__pydantic_core_schema__)
    if fail_fast:
        stack: list[Any] = [schema]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if node.get("type") in ("list", "dict"):
                    node["fail_fast"] = True
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    check = (
        schema.get("function", {}).get("function")
        if schema.get("type") == ("function-after")
        else None
    )
    inner = schema.get("schema", {})
    ours = getattr(Design, "_check_references", None)
    if (
        own_check
        and ours is not None
        and check is ours
        and inner.get("type") == "model"
    ):
        return SchemaValidator(inner), True
    return SchemaValidator(schema), False


def _validate(data: bytes | str, source: str, *, own_check: bool = True) -> Design:
    """The design from JSON text in strict JSON mode (in files over
    :data:`FULL_CHECK_BYTES` each array stops at its first bad entry); without
    ``own_check`` the model checks references itself (a ValidationError)."""
    validator, check_here = _validator(len(data) > FULL_CHECK_BYTES, own_check)
    design = validator.validate_json(data, strict=True)
    assert isinstance(design, Design)
    if check_here:
        broken = model_reference_problems(design)
        if broken:
            _raise_references(design, broken, source)
    return design


def _raise_references(design: Design, broken: list[str], source: str) -> None:
    """The ids and references that do not resolve, with their places."""
    parsed: dict[str, Any] = {
        "groups": [g.__dict__ for g in design.groups],
        "devices": [d.model_dump() for d in design.devices],
        "links": {name: getattr(design.links, name) for name in LINK_COLUMNS},
    }
    if design.physical is not None:
        parsed["physical"] = design.physical.model_dump()
    found = reference_problems(parsed)
    if found:
        raise DesignFileError(source, list(found), found.more)
    problems = [Problem("(top level)", text) for text in broken]
    raise DesignFileError(source, problems[:MAX_PROBLEMS], len(problems[MAX_PROBLEMS:]))


def _deep_place(text: str) -> str:
    """``line L, column C`` where nesting first passes :data:`MAX_DEPTH`."""
    depth = 0
    token = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
    for match in token.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _line_col(text, match.start())
        elif char in "]}":
            depth -= 1
    return "(top level)"


def _constant_at(text: str, message: str) -> tuple[int | None, str]:
    """Position (in ``text``) and message for NaN/Infinity and over-long numbers."""
    match = re.search(r"-?\b(NaN|Infinity)\b", text)
    if "not valid JSON" in message and match:
        return (
            match.start(),
            f"{match.group()} is not valid JSON; expected a finite number",
        )
    match = re.search(r"\d{4000,}", text)
    what = "a number with too many digits; expected an ordinary number"
    return (match.start() if match else None), what


def _constant_place(text: str, message: str) -> tuple[str, str]:
    """Place and message for NaN/Infinity and over-long numbers."""
    pos, what = _constant_at(text, message)
    return (_line_col(text, pos) if pos is not None else "(somewhere)"), what


def _line_col(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def _too_deep(data: object) -> str | None:
    """JSON path where parsed data nests deeper than :data:`MAX_DEPTH`, or None."""
    stack: list[tuple[object, str, int]] = [(data, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return path or "(top level)"
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, dict | list):
                    stack.append((item, f"{path}.{key}" if path else key, depth + 1))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict | list):
                    stack.append((item, f"{path}[{i}]", depth + 1))
    return None
