"""The slow path of reading a design file: find out what is wrong, and say where.

Reached only when the fast path (:func:`designer.io.validator.validate_design`
on the bytes) fails or the scan (:mod:`designer.io.scan`) refuses the file:
the text is parsed with :mod:`json` step by step (JSON, nesting, the schema
version, migrations, the model) and the first clear problem is raised as a
:class:`~designer.io.errors.DesignFileError` naming the file, the place and
what was expected there.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from designer.core.model import SCHEMA_VERSION, Design
from designer.io.errors import DesignFileError, MigrationError, Problem
from designer.io.messages import translate
from designer.io.migrate import (
    COLUMN_LINKS_SINCE,
    OLDEST_VERSION,
    json_type,
    migrate,
)
from designer.io.references import MAX_PROBLEMS, reference_problems
from designer.io.scan import EXPECT_DESIGN, Refused, line_col
from designer.io.validator import validate_design

__all__ = [
    "MAX_DEPTH",
    "decode",
    "diagnose",
    "fail",
    "json_invalid",
    "raise_validation",
    "references_failed",
    "refuse",
]


MAX_DEPTH = 64
"""Deepest nesting of arrays/objects accepted (a design needs 4)."""


def fail(source: str, place: str, message: str) -> None:
    raise DesignFileError(source, [Problem(place, message)])


def decode(data: bytes, source: str) -> str:
    """UTF-8 text of the file, or a message that says it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        _not_utf8(data, exc.start, source)
    raise AssertionError("unreachable")


def _not_utf8(data: bytes, pos: int, source: str) -> None:
    line = data.count(b"\n", 0, pos) + 1
    fail(
        source,
        f"line {line} (byte {pos})",
        "not UTF-8 text; expected a JSON design file saved as UTF-8",
    )


def refuse(data: bytes, source: str, exc: Refused) -> None:
    """Report what the scan refused, unless the JSON before it is broken (then
    that comes first, as the parser would say it)."""
    text, pieces = _prefix_text(data, source, exc)
    try:
        json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        if err.pos < len(text.rstrip()):
            at = _original_pos(pieces, err.pos)
            truncated = at >= len(data[: exc.pos].rstrip())
            fail(source, line_col(data, at), _json_what(err.msg, truncated))
    except RecursionError:
        _deep_failure(text, source)
    except ValueError as err:
        pos, what = _constant_at(text, str(err))
        where = (
            "(somewhere)" if pos is None else line_col(data, _original_pos(pieces, pos))
        )
        fail(source, where, what)
    fail(source, exc.place, exc.message)


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
                fail(source, line_col(data, start + len(chunk[: err.pos].encode())),
                      _json_what(err.msg, False))  # fmt: skip
            except ValueError as err:
                pos, what = _constant_at(chunk, str(err))
                at_byte = start + len(chunk[: pos or 0].encode("utf-8"))
                fail(source, line_col(data, at_byte), what)
        text = piece.decode("utf-8")
        pieces.append((used, at, text))
        used += len(text)
        pieces.append((used, start, "[]"))
        used += 2
        at = end
    tail = data[at : exc.pos]
    text = decode(tail, source) if at == 0 else _decode_at(data, at, exc.pos, source)
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


def diagnose(
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
        fail(source, place, what)
    if not isinstance(data, dict):
        fail(source, "(top level)", f"{EXPECT_DESIGN}, found {json_type(data)}")
    deep = _too_deep(data)
    if deep is not None:
        fail(
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
    if first is not None and not migrated and not json_invalid(first):
        raise_validation(first, data, source, version)
    try:
        # the model's own reference check: its places are read in row form
        return validate_design(json.dumps(data), source, own_check=not rows), version
    except ValidationError as exc:
        if json_invalid(exc):
            fail(source, *_invalid_text_place(text))
        raise_validation(exc, data, source, version)
    raise AssertionError("unreachable")


def references_failed(exc: ValidationError) -> bool:
    """The one error of a design whose ids or references do not resolve (the
    parsed data is needed to say where)."""
    if exc.error_count() != 1:
        return False
    # without its input: for this error that is the whole file, as Python values
    [error] = exc.errors(include_url=False, include_input=False)
    return error["type"] == "value_error" and not error["loc"]


def json_invalid(exc: ValidationError) -> bool:
    errors = exc.errors(include_url=False, include_input=False)
    return any(e["type"] == "json_invalid" for e in errors)


def _json_what(message: str, truncated: bool) -> str:
    expected = _JSON_MESSAGES.get(message, message)
    if truncated:
        return f"the file ends too early (truncated?); {expected}"
    return "invalid JSON: " + expected


def _json_failure(text: str, source: str, exc: json.JSONDecodeError) -> None:
    truncated = exc.pos >= len(text.rstrip())
    fail(
        source, f"line {exc.lineno}, column {exc.colno}", _json_what(exc.msg, truncated)
    )


def _deep_failure(text: str, source: str) -> None:
    fail(
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
        fail(
            source,
            "(top level)",
            f"missing key 'schema_version'; expected the file format version "
            f"(this version writes {SCHEMA_VERSION})",
        )
    version = data["schema_version"]
    if isinstance(version, bool) or not isinstance(version, int):
        fail(
            source,
            "schema_version",
            f"expected a whole number ({OLDEST_VERSION}..{SCHEMA_VERSION}), "
            f"found {json_type(version)}",
        )
    if version > SCHEMA_VERSION:
        fail(
            source,
            "schema_version",
            f"{version}: the file was made by a newer version of GPU Cluster "
            f"Designer; expected schema_version {SCHEMA_VERSION} or older "
            f"(upgrade the program to open it)",
        )
    if version < OLDEST_VERSION:
        fail(
            source,
            "schema_version",
            f"expected {OLDEST_VERSION}..{SCHEMA_VERSION}, found {version}",
        )
    return int(version)


def raise_validation(
    exc: ValidationError, data: dict[str, Any], source: str, version: int
) -> None:
    migrated = version < SCHEMA_VERSION
    rows = version < COLUMN_LINKS_SINCE  # links were row objects in the file
    problems: list[Problem] = []
    more = 0
    if references_failed(exc):
        found = reference_problems(data, row_links=rows)
        problems, more = list(found), found.more
    if not problems:  # field errors (or a reference rule this module lacks)
        errors = exc.errors(include_url=False, include_input=not references_failed(exc))
        problems = translate(errors[:MAX_PROBLEMS], migrated_links=rows)
        more = len(errors) - len(problems)
    if migrated:
        problems = [_with_note(p, version) for p in problems]
    raise DesignFileError(source, problems[:MAX_PROBLEMS], more) from None


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
