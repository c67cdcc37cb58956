"""Read design files: every failure is a :class:`DesignFileError`, never a traceback.

The fast path hands the text straight to pydantic (strict JSON mode). Only when
that fails does the slow path parse it with :mod:`json` to find out, and say,
where the file is broken and what was expected there.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from designer.catalog.loader import default_catalog
from designer.catalog.schema import CatalogEntry
from designer.core.model import SCHEMA_VERSION, Design
from designer.core.physical import Physical, PlacementRef, physical_problems
from designer.io.errors import DesignFileError, MigrationError, Problem
from designer.io.messages import translate
from designer.io.migrate import (
    COLUMN_LINKS_SINCE,
    OLDEST_VERSION,
    json_type,
    migrate,
)

MAX_BYTES = 512 * 1024 * 1024
"""Largest design file accepted (512 MiB); a 100,000-GPU design is ~30 MB."""

MAX_DEPTH = 64
"""Deepest nesting of arrays/objects accepted (a design needs 4)."""

MAX_PROBLEMS = 5
"""How many problems one error message lists before "... and N more"."""

_CURRENT_VERSION = re.compile(rf'"schema_version"\s*:\s*{SCHEMA_VERSION}\s*[,}}]')

_EXPECT_DESIGN = "expected a GPU Cluster Designer design (a JSON object)"


def load_design(
    path: str | os.PathLike[str],
    *,
    catalog: Mapping[str, CatalogEntry] | None = None,
    max_bytes: int = MAX_BYTES,
) -> Design:
    """Read a design file; raise :class:`DesignFileError` if it cannot be used."""
    source = os.fspath(path)
    data = _read_bytes(Path(source), source, max_bytes)
    return loads_design(data, source, catalog=catalog, max_bytes=max_bytes)


def loads_design(
    text: str | bytes,
    source: str = "<string>",
    *,
    catalog: Mapping[str, CatalogEntry] | None = None,
    max_bytes: int = MAX_BYTES,
) -> Design:
    """Parse a design from JSON text; ``source`` names it in error messages."""
    if isinstance(text, bytes | bytearray):
        text = _decode(bytes(text), source)
    if len(text) > max_bytes:
        _fail(source, "", _too_big(len(text), max_bytes))
    text = text.removeprefix("\ufeff")
    if not text.strip():
        _fail(source, "", f"the file is empty; {_EXPECT_DESIGN}")
    version: int = SCHEMA_VERSION
    try:
        if not _CURRENT_VERSION.search(text):  # absent, old, or not a number
            raise ValueError("slow path")
        design = Design.model_validate_json(text, strict=True)
    except (ValidationError, ValueError):
        design, version = _diagnose(text, source)
    else:
        if _non_finite(design):
            design, version = _diagnose(text, source)
    _check_catalog(
        design,
        source,
        default_catalog() if catalog is None else catalog,
        version,
    )
    return design


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
    """UTF-8 text of the file, or a message that says it is binary or not UTF-8."""
    nul = data.find(b"\x00", 0, 1 << 16)
    if nul >= 0:
        _fail(
            source,
            f"byte {nul}",
            "binary data (a NUL byte); expected a JSON design file (UTF-8 text)",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        _fail(
            source,
            f"line {line} (byte {exc.start})",
            "not UTF-8 text; expected a JSON design file saved as UTF-8",
        )
    raise AssertionError("unreachable")


def _non_finite(design: Design) -> bool:
    values: Iterable[float] = (v for d in design.devices for v in (d.x, d.y))
    overrides = design.settings.price_overrides.values()
    return not all(math.isfinite(v) for v in values) or not all(
        math.isfinite(v) for v in overrides
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


def _diagnose(text: str, source: str) -> tuple[Design, int]:
    """Parse step by step and raise the first clear problem.

    Returns the design and the schema version the file had.
    """
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        truncated = exc.pos >= len(text.rstrip())
        base = exc.msg
        expected = _JSON_MESSAGES.get(base, base)
        what = "invalid JSON: " + expected
        if truncated:
            what = f"the file ends too early (truncated?); {expected}"
        _fail(source, f"line {exc.lineno}, column {exc.colno}", what)
    except RecursionError:
        _fail(
            source,
            _deep_place(text),
            f"nested deeper than {MAX_DEPTH} levels; expected a design, which "
            f"nests at most 4 levels",
        )
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
    if migrated:
        try:
            data = migrate(data, version)
        except MigrationError as exc:
            raise DesignFileError(source, [_with_note(exc.problem, version)]) from None
    try:
        return Design.model_validate_json(json.dumps(data), strict=True), version
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            _fail(source, *_invalid_text_place(text))
        _raise_validation(exc, data, source, version)
    raise AssertionError("unreachable")


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
    errors = exc.errors(include_url=False)
    migrated = version < SCHEMA_VERSION
    rows = version < COLUMN_LINKS_SINCE  # links were row objects in the file
    if len(errors) == 1 and errors[0]["type"] == "value_error" and not errors[0]["loc"]:
        problems = reference_problems(data, row_links=rows)
    else:
        problems = translate(errors, migrated_links=rows)
    if not problems:  # a reference rule this module does not know yet
        problems = translate(errors, migrated_links=rows)
    if migrated:
        problems = [_with_note(p, version) for p in problems]
    raise DesignFileError(
        source, problems[:MAX_PROBLEMS], max(0, len(problems) - MAX_PROBLEMS)
    ) from None


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


def _constant_place(text: str, message: str) -> tuple[str, str]:
    """Place and message for NaN/Infinity and over-long numbers."""
    match = re.search(r"-?\b(NaN|Infinity)\b", text)
    if "not valid JSON" in message and match:
        return (
            _line_col(text, match.start()),
            f"{match.group()} is not valid JSON; expected a finite number",
        )
    match = re.search(r"\d{4000,}", text)
    place = _line_col(text, match.start()) if match else "(somewhere)"
    return place, "a number with too many digits; expected an ordinary number"


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


# ---------------------------------------------------------------------------
# references and catalog


def _close(word: str, choices: Iterable[str]) -> str:
    matches = difflib.get_close_matches(word, list(choices), n=3, cutoff=0.6)
    return (
        " (did you mean " + " or ".join(repr(m) for m in matches) + "?)"
        if matches
        else ""
    )


def reference_problems(
    data: dict[str, Any], *, row_links: bool = False
) -> list[Problem]:
    """Duplicate ids and dangling references in well-typed parsed design data."""
    problems: list[Problem] = []
    groups: list[dict[str, Any]] = data.get("groups", [])
    devices: list[dict[str, Any]] = data.get("devices", [])
    first_group: dict[str, int] = {}
    for i, g in enumerate(groups):
        if g["id"] in first_group:
            problems.append(
                Problem(
                    f"groups[{i}].id",
                    f"duplicate group id {g['id']!r} (first at groups"
                    f"[{first_group[g['id']]}]); expected unique ids",
                )
            )
        first_group.setdefault(g["id"], i)
    for i, g in enumerate(groups):
        parent = g.get("parent")
        if parent is not None and parent not in first_group:
            problems.append(
                Problem(
                    f"groups[{i}].parent",
                    f"unknown group {parent!r}; expected the id of a group in "
                    f"'groups'{_close(parent, first_group)}",
                )
            )
    parents = {g["id"]: g.get("parent") for g in groups}
    for gid in parents:
        seen, p = {gid}, parents[gid]
        while p is not None and p in parents:
            if p in seen:
                problems.append(
                    Problem(
                        f"groups[{first_group[gid]}].parent",
                        f"group {gid!r} is its own ancestor; expected groups "
                        f"to nest without cycles",
                    )
                )
                break
            seen.add(p)
            p = parents[p]
    first_device: dict[str, int] = {}
    for i, d in enumerate(devices):
        if d["id"] in first_device:
            problems.append(
                Problem(
                    f"devices[{i}].id",
                    f"duplicate device id {d['id']!r} (first at devices"
                    f"[{first_device[d['id']]}]); expected unique ids",
                )
            )
        first_device.setdefault(d["id"], i)
        group = d.get("group")
        if group is not None and group not in first_group:
            problems.append(
                Problem(
                    f"devices[{i}].group",
                    f"unknown group {group!r}; expected the id of a group in "
                    f"'groups'{_close(group, first_group)}",
                )
            )
    links: dict[str, list[Any]] = data.get("links", {})

    def place(column: str, i: int) -> str:
        return f"links[{i}].{column}" if row_links else f"links.{column}[{i}]"

    first_link: dict[str, int] = {}
    for i, lid in enumerate(links.get("id", [])):
        if lid in first_link:
            problems.append(
                Problem(
                    place("id", i),
                    f"duplicate link id {lid!r} (first at "
                    f"{place('id', first_link[lid])}); expected unique ids",
                )
            )
        first_link.setdefault(lid, i)
    for end in ("a", "b"):
        for i, did in enumerate(links.get(end, [])):
            if did not in first_device:
                problems.append(
                    Problem(
                        place(end, i),
                        f"unknown device {did!r}; expected the id of a device "
                        f"in 'devices'{_close(did, first_device)}",
                    )
                )
    for i, (a, b) in enumerate(
        zip(links.get("a", []), links.get("b", []), strict=False)
    ):
        if a == b:
            problems.append(
                Problem(
                    place("b", i),
                    f"link joins {a!r} to itself; expected two different devices",
                )
            )
    problems += _physical_problems(data, devices, first_group)
    return problems


def _physical_problems(
    data: dict[str, Any], devices: list[dict[str, Any]], groups: Iterable[str]
) -> list[Problem]:
    """Problems of the ``physical`` block and of the placements naming its racks."""
    block = data.get("physical")
    if not isinstance(block, dict):
        return []
    try:
        physical = Physical.model_validate(block)
    except ValidationError:  # a type error: translate() reports it
        return []
    refs = []
    for i, d in enumerate(devices):
        p = d.get("placement")
        if isinstance(p, dict):
            refs.append(
                PlacementRef(i, d["id"], p.get("row"), p.get("rack"), p.get("u"))
            )
    return [
        Problem(place, msg) for place, msg in physical_problems(physical, refs, groups)
    ]


def _check_catalog(
    design: Design,
    source: str,
    catalog: Mapping[str, CatalogEntry],
    version: int = SCHEMA_VERSION,
) -> None:
    """Every device names a catalog entry, and ports name its port groups."""
    problems: list[Problem] = []
    ports_of: dict[str, frozenset[str]] = {}
    device_ports: dict[str, frozenset[str]] = {}
    for i, d in enumerate(design.devices):
        entry = catalog.get(d.catalog_id)
        if entry is None:
            problems.append(
                Problem(
                    f"devices[{i}].catalog_id",
                    f"unknown catalog id {d.catalog_id!r}; expected an id from the "
                    f"hardware catalog{_close(d.catalog_id, catalog)}",
                )
            )
            continue
        names = ports_of.get(d.catalog_id)
        if names is None:
            names = ports_of[d.catalog_id] = frozenset(i.name for i in entry.interfaces)
        device_ports[d.id] = names
        for key in d.ports or {}:
            if key not in names:
                problems.append(
                    Problem(
                        f"devices[{i}].ports.{key}",
                        f"{d.catalog_id!r} has no port group {key!r}; expected one "
                        f"of: {', '.join(sorted(names))}",
                    )
                )
    if not problems:
        table = design.links
        for end in ("a", "b"):
            ids, ports = getattr(table, end), getattr(table, f"{end}_port")
            for i, (did, port) in enumerate(zip(ids, ports, strict=True)):
                if port not in device_ports[did]:
                    problems.append(
                        Problem(
                            f"links[{i}].{end}_port"
                            if version < COLUMN_LINKS_SINCE
                            else f"links.{end}_port[{i}]",
                            f"device {did!r} ({_catalog_of(design, did)}) has no "
                            f"port group {port!r}; "
                            f"expected one of: {', '.join(sorted(device_ports[did]))}",
                        )
                    )
                    if len(problems) > MAX_PROBLEMS:
                        break
    if problems:
        raise DesignFileError(
            source, problems[:MAX_PROBLEMS], max(0, len(problems) - MAX_PROBLEMS)
        )


def _catalog_of(design: Design, device_id: str) -> str:
    for d in design.devices:
        if d.id == device_id:
            return d.catalog_id
    return "?"
