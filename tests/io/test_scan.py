"""The first pass over a file's bytes: duplicate keys, counts, budget, windows.

Oracles: Python's json (with ``object_pairs_hook``) for duplicate keys and
entry counts; the same scan with a window of a few bytes for the windowed
bookkeeping (escapes, strings and keys cut at a window edge).
"""

from __future__ import annotations

import json
import re
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import designer.io.arrays as arrays
import designer.io.scan as scan_module
from designer.core.limits import MAX_LINKS
from designer.io import DesignFileError, dumps_design, loads_design
from designer.io.scan import BUDGET, Outline, Refused, flat_array, scan
from tests.hypo import examples
from tests.io.conftest import make_design

SOURCE = "scan.json"


def refusal(text: str | bytes) -> Refused | Outline:
    data = text.encode() if isinstance(text, str) else text
    try:
        return scan(data)
    except Refused as exc:
        return exc


def message(text: str | bytes, catalog: Any) -> str:
    with pytest.raises(DesignFileError) as info:
        loads_design(text, SOURCE, catalog=catalog)
    return str(info.value)


def line_col(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


# --- duplicate keys -----------------------------------------------------------


DUPLICATE_PLACES = [
    ((), "settings", "settings"),
    (("settings",), "name", "settings.name"),
    (
        ("settings", "price_overrides"),
        "dgx-h100",
        "settings.price_overrides['dgx-h100']",
    ),
    (("groups", 1), "label", "groups[1].label"),
    (("devices", 3), "x", "devices[3].x"),
    (("devices", 0, "placement"), "u", "devices[0].placement.u"),
    (("devices", 3, "ports"), "ports", "devices[3].ports.ports"),
    (("links",), "rail", "links.rail"),
]


@pytest.mark.parametrize(("path", "key", "place"), DUPLICATE_PLACES)
def test_duplicate_key_names_key_path_and_both_places(
    path: tuple[Any, ...], key: str, place: str, catalog: Any
) -> None:
    data = json.loads(make_design().model_dump_json())
    target = data
    for part in path:
        target = target[part]
    marker = "__dup_marker__"
    target[marker] = "?"
    text = json.dumps(data, indent=2)
    second = text.index(f'"{marker}"')
    text = text.replace(f'"{marker}": "?"', f'"{key}": {json.dumps(target[key])}')
    assert json.loads(text)  # still valid JSON: a parser would keep the last
    got = message(text, catalog)
    assert got.startswith(f"{SOURCE}: {place} ({line_col(text, second)}): ")
    assert f"duplicate key {key!r} (first at line " in got
    assert got.endswith("expected each key once in an object")


def test_duplicate_key_places_are_exact(catalog: Any) -> None:
    text = '{\n  "schema_version": 1,\n  "settings": {"name": "a",\n "name": "b"}}'
    got = message(text, catalog)
    second = text.index('"name": "b"')
    first = text.index('"name": "a"')
    assert got == (
        f"{SOURCE}: settings.name ({line_col(text, second)}): duplicate key 'name' "
        f"(first at {line_col(text, first)}); expected each key once in an object"
    )


def test_duplicate_key_spelt_with_an_escape(catalog: Any) -> None:
    text = '{"schema_version": 1, "s\\u0065ttings": {}, "settings": {}}'
    assert "duplicate key 'settings'" in message(text, catalog)


def test_duplicate_top_level_key_far_apart(catalog: Any) -> None:
    """The first copy is in an earlier window than the second."""
    design = json.loads(make_design().model_dump_json())
    design["settings"]["notes"] = "x" * 9000
    text = json.dumps(design)[:-1] + ', "settings": {}}'
    got = message(text, catalog)
    assert got.startswith(f"{SOURCE}: settings (line 1, column ")
    assert "duplicate key 'settings' (first at line 1, column 23)" in got


def test_same_key_in_sibling_objects_is_fine(catalog: Any) -> None:
    text = dumps_design(make_design())
    assert loads_design(text, catalog=catalog) == make_design()


def _dupes(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise KeyError(next(k for k in keys if keys.count(k) > 1))
    return dict(pairs)


# --- counts and budget -----------------------------------------------------------


def _links_of(n: int, extra: str = "") -> str:
    ids = ", ".join(f'"l{i}"' for i in range(n))
    ends = ", ".join('"a"' for _ in range(n))
    ports = ", ".join('"p"' for _ in range(n))
    ones = ", ".join("1" for _ in range(n))
    fabric = ", ".join('"compute"' for _ in range(n))
    return (
        f'{{"id": [{ids}{extra}], "a": [{ends}], "a_port": [{ports}], "b": [{ends}], '
        f'"b_port": [{ports}], "cables": [{ones}], "speed_gbps": [{ones}], '
        f'"fabric": [{fabric}], "rail": [{ones}]}}'
    )


def test_too_many_links_refused_from_the_counts(catalog: Any) -> None:
    rail = "[" + "0," * MAX_LINKS + "0]"
    text = '{"schema_version": 1, "links": {"rail": ' + rail + "}}"
    got = message(text, catalog)
    assert got == (
        f"{SOURCE}: links.rail: {MAX_LINKS + 1:,} entries; expected at most "
        f"{MAX_LINKS:,} links (the most a design may hold)"
    )


def test_too_many_devices_refused_before_building_them(
    catalog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from designer.io import skeleton as sk

    monkeypatch.setitem(sk.ROLES, sk.DEVICES, sk.Role("devices", limit=3))
    devices = ", ".join(f'{{"id": "d{i}", "catalog_id": "qm9700"}}' for i in range(4))
    got = message('{"schema_version": 1, "devices": [' + devices + "]}", catalog)
    assert got == (
        f"{SOURCE}: devices: more than 3 entries; expected at most 3 devices "
        "(the most a design may hold)"
    )


def test_big_link_table_with_uneven_columns_refused_by_the_scan() -> None:
    n = BUDGET // 20
    text = '{"schema_version": 1, "links": ' + _links_of(n, ', "extra"') + "}"
    found = refusal(text)
    assert isinstance(found, Refused)
    assert found.place == "links"
    assert found.message == (
        f"column 'a' has {n} entries, expected {n + 1} (one per link id)"
    )


def test_unknown_key_with_a_huge_array_refused_in_bounded_memory(
    catalog: Any,
) -> None:
    good = dumps_design(make_design())
    junk = "[" + "1," * 5_000_000 + "1]"  # 10 MB; json.loads would build 5M items
    text = good[:-2] + ',\n  "junk": ' + junk + "\n}\n"
    data = text.encode()
    tracemalloc.start()
    try:
        with pytest.raises(DesignFileError) as info:
            loads_design(data, SOURCE, catalog=catalog)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(info.value) == (
        f"{SOURCE}: junk: unknown key; expected one of: schema_version, settings, "
        "workload, physical, groups, devices, links"
    )
    assert peak < 3 * len(data), (peak, len(data))


def test_small_unknown_values_are_left_to_the_model(catalog: Any) -> None:
    data = json.loads(make_design().model_dump_json())
    data["devices"][1]["colour"] = ["green"] * 100
    data["devices"][2]["x"] = "left"
    got = message(json.dumps(data), catalog)
    assert "devices[1].colour: unknown key" in got
    assert "devices[2].x: expected a number" in got  # both listed


def test_big_value_of_the_wrong_kind(catalog: Any) -> None:
    data = json.loads(make_design().model_dump_json())
    data["devices"][2]["label"] = "@"
    text = json.dumps(data).replace('"@"', "[" + "[]," * BUDGET + "[]]")
    assert message(text, catalog) == (
        f"{SOURCE}: devices[2].label: expected a string, found an array"
    )


@pytest.mark.slow
def test_deep_nesting_past_the_budget_stops_early(catalog: Any) -> None:
    depth = 4 * BUDGET
    text = '{"schema_version": 1, "settings": ' + "[" * depth + "]" * depth + "}"
    assert message(text, catalog) == (
        f"{SOURCE}: settings: expected an object, found an array"
    )


def test_a_huge_string_is_refused(catalog: Any) -> None:
    text = '{"schema_version": 1, "settings": {"notes": "' + "n" * 2 * BUDGET + '"}}'
    got = message(text, catalog)
    size = re.fullmatch(
        f"{SOURCE}: line 1, column 45: a string of (more than )?([0-9,]+) bytes; "
        "expected text of at most 10,000 characters \\(the longest a design holds\\)",
        got,
    )
    assert size is not None, got
    assert BUDGET < int(size.group(2).replace(",", "")) <= 2 * BUDGET


def test_broken_json_before_a_refusal_is_reported_first(catalog: Any) -> None:
    junk = "[" + "1," * BUDGET + "1]"
    text = '{"schema_version": 1,, "junk": ' + junk + "}"
    got = message(text, catalog)
    assert got.startswith(f"{SOURCE}: line 1, column 22: invalid JSON")


def test_top_level_array_past_the_budget(catalog: Any) -> None:
    text = "[" + "0," * BUDGET + "0]"
    assert message(text, catalog) == (
        f"{SOURCE}: (top level): expected a GPU Cluster Designer design "
        "(a JSON object), found an array"
    )


# --- flat arrays ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[]", 0),
        ("[ \n ]", 0),
        ("[1]", 1),
        ("[1, 2, null]", 3),
        ('["a", "b"]', 2),
        ('["a,b", "c"]', None),  # a comma inside a string: scanned instead
        ('["a]", "b"]', None),  # the first ']' is inside a string
        ('["a", 1]', None),  # mixed: not certain without a scan
        ("[[1], 2]", None),
        ('["a\\"b"]', None),
        ("[{}]", None),
    ],
)
def test_flat_array_counts(text: str, expected: int | None) -> None:
    data = (" " + text + " ").encode()
    found = flat_array(data, 1)
    if expected is None:
        assert found is None
    else:
        assert found == (1 + len(text), expected)
        assert len(json.loads(text)) == expected


# --- windows -------------------------------------------------------------------

TRICKY = st.lists(
    st.sampled_from([*'ab"\\{}[],: \n', "é", "\\\\", '\\"']), max_size=12
).map("".join)


def _outcome(data: bytes) -> tuple[Any, ...]:
    found = refusal(data)
    if isinstance(found, Refused):
        return ("refused", found.pos, found.place, found.message)
    cols = {k: (c.start, c.end, c.count) for k, c in found.columns.items()}
    return (
        "passed",
        found.complete,
        found.links_object,
        found.links_span,
        cols,
        found.version_colon,
    )


@st.composite
def _variants(draw: st.DrawFn) -> bytes:
    data = json.loads(make_design().model_dump_json())
    for _ in range(draw(st.integers(0, 4))):
        where = draw(st.sampled_from(["label", "notes", "key", "dup", "port"]))
        text = draw(TRICKY)
        if where == "label":
            data["devices"][draw(st.integers(0, 4))]["label"] = text
        elif where == "notes":
            data["settings"]["notes"] = text
        elif where == "key":
            data["devices"][draw(st.integers(0, 4))][text] = draw(TRICKY)
        elif where == "port":
            data["links"]["a_port"][draw(st.integers(0, 3))] = text
    if draw(st.booleans()):  # keys out of the model's order: no row pattern
        for i, device in enumerate(data["devices"]):
            keys = list(device)
            order = draw(st.permutations(keys))
            data["devices"][i] = {k: device[k] for k in order}
    indent = draw(st.sampled_from([None, 0, 1, 4]))
    raw = json.dumps(data, indent=indent, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        key = draw(st.sampled_from(["label", "x", "name", "rail"]))
        at = raw.find(f'"{key}"')
        raw = raw[:at] + f'"{key}": 1, ' + raw[at:]  # a duplicate key
    if draw(st.booleans()):
        raw = raw[: draw(st.integers(0, len(raw)))]
    return raw.encode()


VARIANTS = _variants()


@pytest.mark.slow
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.data())
def test_window_size_does_not_change_the_outcome(drawn: st.DataObject) -> None:
    raw = drawn.draw(VARIANTS)
    expected = _outcome(raw)
    real = scan_module.CHUNK, scan_module.flat_array, scan_module.rows_array
    try:
        for chunk in (1, 3, 7, 64):
            scan_module.CHUNK = chunk
            assert _outcome(raw) == expected, chunk
        # the same without the C-level shortcuts: every byte walked
        scan_module.flat_array = lambda data, start: None
        scan_module.rows_array = lambda data, start, role: None
        walked = _outcome(raw)
        if expected[0] == "passed" and walked[0] == "passed":
            assert walked[1:4] == expected[1:4]  # spans are recorded differently
            assert {k: v[2] for k, v in walked[4].items()} == {
                k: v[2] for k, v in expected[4].items()
            }
        else:
            assert walked == expected
    finally:
        scan_module.CHUNK, scan_module.flat_array, scan_module.rows_array = real


@pytest.mark.slow
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.data())
def test_duplicates_agree_with_the_json_oracle(drawn: st.DataObject) -> None:
    raw = drawn.draw(VARIANTS)
    try:
        json.loads(raw, object_pairs_hook=_dupes)
        oracle: str | None = None
    except KeyError as exc:
        oracle = str(exc.args[0])
    except ValueError:
        return  # not JSON: the parser's message wins
    found = refusal(raw)
    duplicate = isinstance(found, Refused) and "duplicate key" in found.message
    if oracle is None:
        assert not duplicate
    elif duplicate:
        assert isinstance(found, Refused)
        assert f"duplicate key {oracle!r}" in found.message or oracle in found.place
    else:  # a repeat inside an unknown key's value is the model's business
        assert isinstance(found, Outline)


@pytest.mark.slow
@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.data())
def test_column_counts_agree_with_the_json_oracle(drawn: st.DataObject) -> None:
    raw = drawn.draw(VARIANTS)
    try:
        parsed = json.loads(raw)
    except ValueError:
        return
    found = refusal(raw)
    if isinstance(found, Outline) and isinstance(parsed, dict):
        links = parsed.get("links")
        if isinstance(links, dict):
            for name, column in found.columns.items():
                assert len(links[name]) == column.count


def _broken_before_junk(column: str) -> str:
    junk = "[" + "1," * BUDGET + "1]"
    return (
        '{"schema_version": 1,\n "links": {"id": ["a", "b"],\n "rail": '
        + column
        + '},\n "junk": '
        + junk
        + "}"
    )


@pytest.mark.parametrize(
    ("column", "place", "what"),
    [
        ("[0, 1,]", "line 3, column 16", "invalid JSON: expected a JSON value"),
        ("[0 1]", "line 3, column 13", "invalid JSON: expected ','"),
        ("[0, NaN]", "line 3, column 14", "NaN is not valid JSON"),
    ],
)
def test_broken_json_in_a_skipped_column_is_reported_first(
    column: str, place: str, what: str, catalog: Any
) -> None:
    text = _broken_before_junk(column)
    assert isinstance(refusal(text), Refused)  # the scan refuses the junk...
    got = message(text, catalog)
    assert got.startswith(f"{SOURCE}: {place}: {what}"), got  # ...JSON comes first


def test_bytes_not_utf8_in_a_skipped_column_are_reported_first(catalog: Any) -> None:
    data = _broken_before_junk('["x", "caf\xe9"]').encode("latin-1")
    got = message(data, catalog)
    at = data.index(b"\xe9")
    assert got.startswith(f"{SOURCE}: line 3 (byte {at}): not UTF-8 text"), got


def test_refusal_after_good_columns_keeps_the_refusal(catalog: Any) -> None:
    text = _broken_before_junk("[0, 1]")
    assert message(text, catalog) == (
        f"{SOURCE}: junk: unknown key; expected one of: schema_version, settings, "
        "workload, physical, groups, devices, links"
    )


def test_a_huge_string_in_one_window_is_measured(catalog: Any) -> None:
    text = '{"schema_version": 1, "settings": {"notes": "' + "n" * 100_000 + '"}}'
    assert isinstance(refusal(text), Outline)  # under the budget: the model says it
    assert "settings.notes: expected a string of at most 10000 characters" in message(
        text, catalog
    )


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.text(alphabet="ab,{}", max_size=30), max_size=12), st.integers(1, 9))
def test_longest_string_across_steps(strings: list[str], step: int) -> None:
    text = ", ".join(f'"{s}"' for s in strings).encode()
    real = arrays.COUNT_STEP
    arrays.COUNT_STEP = step
    try:
        got = arrays._longest_string(text, 0, len(text))
    finally:
        arrays.COUNT_STEP = real
    assert got == max((len(s) for s in strings), default=0)


def test_every_model_field_has_its_place_in_the_skeleton() -> None:
    """A new model field needs words for "expected ..." (or a container role)."""
    from designer.core.model import Design, Device, Group, Placement, Settings
    from designer.io import skeleton as sk

    containers = {key for (_role, key) in sk._CONTAINER_TEXT}
    for model in (Design, Settings, Group, Device, Placement):
        for name in model.model_fields:
            assert name in sk.EXPECTED or name in containers, (model.__name__, name)
    for name in sk.LINK_COLUMNS:
        assert name in sk.EXPECTED
