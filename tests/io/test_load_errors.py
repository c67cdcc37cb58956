"""Bad input: every case gives a DesignFileError naming file, place and expectation."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from designer.core.model import SCHEMA_VERSION, Design
from designer.io import DesignFileError, load_design, loads_design

SOURCE = "bad-design.json"


def fail(text: str | bytes | dict[str, Any], catalog: Any, **kw: Any) -> str:
    """Load ``text`` and return the error message (the test fails if it loads)."""
    if isinstance(text, dict):
        text = json.dumps(text, indent=2)
    with pytest.raises(DesignFileError) as info:
        loads_design(text, SOURCE, catalog=catalog, **kw)
    message = str(info.value)
    assert message.startswith(SOURCE + ": ")
    assert "Traceback" not in message
    return message


def check(message: str, place: str, *expected: str) -> None:
    """The first line names the place, then each expected phrase appears."""
    first = message.splitlines()[0]
    assert first.startswith(f"{SOURCE}: {place}"), first
    for part in expected:
        assert part in message, (part, message)


def test_valid_design_loads(design: Design, catalog: Any) -> None:
    assert loads_design(design.model_dump_json(), catalog=catalog) == design


def test_malformed_json_names_line_and_column(design: Design, catalog: Any) -> None:
    text = json.dumps(json.loads(design.model_dump_json()), indent=2)
    lines = text.splitlines()
    # Remove the comma after the "schema_version" line (line 2).
    assert lines[1].endswith(",")
    lines[1] = lines[1][:-1]
    message = fail("\n".join(lines), catalog)
    check(message, "line 3, column 3", "invalid JSON", "expected ','")


def test_trailing_comma(catalog: Any) -> None:
    message = fail('{"schema_version": 1,\n "devices": [],\n}', catalog)
    check(message, "line 3, column 1", "expected a key in double quotes")


def test_truncated_file(design: Design, catalog: Any) -> None:
    # the text of a schema-1 dump, cut between strings (a cut inside a string
    # is reported as an unclosed string)
    text = design.model_dump_json(exclude={"workload", "physical"})
    cut = text.rindex(",", 0, len(text) // 2) + 1  # after a value, between strings
    message = fail(text[:cut], catalog)
    check(message, "line 1, column", "ends too early (truncated?)")


def test_empty_file(catalog: Any) -> None:
    check(fail("  \n", catalog), "", "the file is empty", "expected")
    assert (
        fail("", catalog) == f"{SOURCE}: the file is empty; expected a GPU "
        "Cluster Designer design (a JSON object)"
    )


def test_extra_text_after_design(design: Design, catalog: Any) -> None:
    message = fail(design.model_dump_json() + "\n]", catalog)
    check(message, "line 2, column 1", "expected the end of the file")


@pytest.mark.parametrize(
    ("text", "found"),
    [("[1, 2]", "an array"), ('"design"', "the string 'design'"), ("42", "42")],
)
def test_top_level_not_an_object(text: str, found: str, catalog: Any) -> None:
    check(fail(text, catalog), "(top level)", "expected a GPU Cluster", found)


def test_missing_schema_version(data: dict[str, Any], catalog: Any) -> None:
    del data["schema_version"]
    check(
        fail(data, catalog),
        "(top level)",
        "missing key 'schema_version'",
        "expected the file format version",
    )


@pytest.mark.parametrize("value", ["1", 1.5, True, None, [1]])
def test_schema_version_wrong_type(
    value: object, data: dict[str, Any], catalog: Any
) -> None:
    data["schema_version"] = value
    check(
        fail(data, catalog),
        "schema_version",
        f"expected a whole number (0..{SCHEMA_VERSION})",
    )


def test_newer_schema_version(data: dict[str, Any], catalog: Any) -> None:
    data["schema_version"] = 7
    message = fail(data, catalog)
    check(message, "schema_version", "made by a newer version", "expected")
    assert f"schema_version {SCHEMA_VERSION} or older" in message


def test_negative_schema_version(data: dict[str, Any], catalog: Any) -> None:
    data["schema_version"] = -1
    check(
        fail(data, catalog),
        "schema_version",
        f"expected 0..{SCHEMA_VERSION}, found -1",
    )


@pytest.mark.parametrize(
    ("path", "value", "place", "expected"),
    [
        (("devices", 1, "x"), "left", "devices[1].x", "expected a number"),
        (("devices", 0, "id"), 17, "devices[0].id", "expected a string"),
        (("devices", 0, "tier"), "top", "devices[0].tier", "expected one of 'leaf'"),
        (("links", "cables", 2), "16", "links.cables[2]", "expected a whole number"),
        (
            ("links", "speed_gbps", 0),
            0,
            "links.speed_gbps[0]",
            "expected a number >= 1",
        ),
        (("links", "fabric", 3), "sas", "links.fabric[3]", "expected one of 'compute'"),
        (
            ("settings", "monitoring"),
            "dcgm",
            "settings.monitoring",
            "expected an array",
        ),
        (
            ("groups", 0, "collapsed"),
            "no",
            "groups[0].collapsed",
            "expected true or false",
        ),
        (
            ("devices", 2, "catalog_id"),
            "qm 9700",
            "devices[2].catalog_id",
            "an id made",
        ),
        (("devices", 3, "ports", "ports"), 0, "devices[3].ports.ports", ">= 1"),
        (("settings",), [], "settings", "expected an object"),
    ],
)
def test_wrong_types(
    path: tuple[Any, ...],
    value: object,
    place: str,
    expected: str,
    data: dict[str, Any],
    catalog: Any,
) -> None:
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    check(fail(data, catalog), place, expected, "found")


def test_unknown_key(data: dict[str, Any], catalog: Any) -> None:
    data["devices"][1]["colour"] = "green"
    check(
        fail(data, catalog),
        "devices[1].colour",
        "unknown key; expected one of: id, catalog_id, label",
    )


def test_unknown_top_level_key(data: dict[str, Any], catalog: Any) -> None:
    data["linkz"] = {}
    check(
        fail(data, catalog),
        "linkz",
        "unknown key",
        "settings, workload, physical, groups, devices",
    )


def test_missing_key(data: dict[str, Any], catalog: Any) -> None:
    del data["devices"][4]["catalog_id"]
    check(
        fail(data, catalog),
        "devices[4]",
        "missing key 'catalog_id'",
        "expected every device to have it",
    )


def test_link_columns_of_different_length(data: dict[str, Any], catalog: Any) -> None:
    data["links"]["rail"].pop()
    check(fail(data, catalog), "links", "column 'rail' has 3 entries, expected 4")


def test_several_problems_are_listed(data: dict[str, Any], catalog: Any) -> None:
    for i in range(5):
        data["devices"][i]["x"] = "?"
    data["devices"][0]["y"] = "?"
    message = fail(data, catalog)
    assert message.count(SOURCE + ": devices[") == 5
    assert message.endswith("... and 1 more problem(s)")


@pytest.mark.slow
def test_deep_nesting_beyond_the_parser(catalog: Any) -> None:
    text = '{"schema_version": 1,\n"settings": ' + "[" * 100_000 + "]" * 100_000 + "}"
    message = fail(text, catalog)
    # Level 64 is reached inside the array that starts at column 13 of line 2.
    check(message, "line 2, column 76", "nested deeper than 64 levels", "expected")


def test_deep_nesting_within_the_parser(catalog: Any) -> None:
    text = '{"schema_version": 1, "notes": ' + "[" * 200 + "]" * 200 + "}"
    message = fail(text, catalog)
    check(message, "notes[0][0]", "nested deeper than 64 levels")


def test_very_large_text_is_refused(design: Design, catalog: Any) -> None:
    check(fail(design.model_dump_json(), catalog, max_bytes=100), "", "larger than")


def test_very_large_file_is_refused_before_reading(
    tmp_path: Path, catalog: Any
) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:  # sparse: no disk space used
        handle.truncate(600 * 1024 * 1024)
    with pytest.raises(DesignFileError) as info:
        load_design(path, catalog=catalog)
    assert str(info.value) == (
        f"{path}: the file is 600.0 MB, larger than the 512 MB limit for design "
        "files; expected a smaller design file"
    )


def test_duplicate_device_id(data: dict[str, Any], catalog: Any) -> None:
    data["devices"][2]["id"] = "dgx-1"
    message = fail(data, catalog)
    check(
        message,
        "devices[2].id",
        "duplicate device id 'dgx-1' (first at devices[0])",
        "expected unique ids",
    )


def test_duplicate_link_id(data: dict[str, Any], catalog: Any) -> None:
    data["links"]["id"][3] = "l1"
    check(fail(data, catalog), "links.id[3]", "duplicate link id 'l1'", "unique")


def test_duplicate_group_id(data: dict[str, Any], catalog: Any) -> None:
    data["groups"][1]["id"] = "pod-1"
    data["groups"][1]["parent"] = None
    data["devices"][0]["group"] = "pod-1"
    data["devices"][1]["group"] = "pod-1"
    check(fail(data, catalog), "groups[1].id", "duplicate group id 'pod-1'")


def test_unknown_group_reference(data: dict[str, Any], catalog: Any) -> None:
    data["devices"][1]["group"] = "su-11"
    check(
        fail(data, catalog),
        "devices[1].group",
        "unknown group 'su-11'",
        "did you mean 'su-1'?",
    )


def test_group_parent_cycle(data: dict[str, Any], catalog: Any) -> None:
    data["groups"][0]["parent"] = "su-1"
    check(fail(data, catalog), "groups[0].parent", "its own ancestor", "without cycles")


def test_dangling_link_endpoint(data: dict[str, Any], catalog: Any) -> None:
    data["links"]["b"][2] = "spine-2"
    check(
        fail(data, catalog),
        "links.b[2]",
        "unknown device 'spine-2'",
        "expected the id of a device in 'devices'",
        "did you mean 'spine-1'?",
    )


def test_link_to_itself(data: dict[str, Any], catalog: Any) -> None:
    data["links"]["b"][2] = "leaf-1"
    check(fail(data, catalog), "links.b[2]", "joins 'leaf-1' to itself")


def test_unknown_catalog_id_lists_close_matches(
    data: dict[str, Any], catalog: Any
) -> None:
    data["devices"][1]["catalog_id"] = "dgx-h10"
    check(
        fail(data, catalog),
        "devices[1].catalog_id",
        "unknown catalog id 'dgx-h10'",
        "expected an id from the hardware catalog",
        "did you mean 'dgx-h100' or 'dgx-h200'?",
    )


def test_unknown_port_group_on_a_link(data: dict[str, Any], catalog: Any) -> None:
    data["links"]["a_port"][0] = "nic0"
    check(
        fail(data, catalog),
        "links.a_port[0]",
        "device 'dgx-1' (dgx-h100) has no port group 'nic0'",
        "expected one of: bmc, compute, inband, storage",
    )


def test_unknown_port_group_in_device_ports(data: dict[str, Any], catalog: Any) -> None:
    data["devices"][3]["ports"] = {"uplinks": 4}
    check(
        fail(data, catalog),
        "devices[3].ports.uplinks",
        "'generic-switch' has no port group 'uplinks'; expected one of: ports",
    )


def test_nan_is_refused(design: Design, catalog: Any) -> None:
    text = design.model_dump_json(indent=1).replace('"x": 120.5', '"x": NaN')
    check(fail(text, catalog), "line", "NaN is not valid JSON", "finite number")


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        ("-1" + "0" * 400, "expected a number >= -1,000,000,000"),
        ("1e400", "expected a number <= 1,000,000,000"),
        ("1000000000.5", "expected a number <= 1,000,000,000"),
    ],
)
def test_coordinates_out_of_range(
    number: str, expected: str, design: Design, catalog: Any
) -> None:
    """An integer too large for a float once loaded as -inf and saved as
    -Infinity, which no JSON reader accepts."""
    text = design.model_dump_json(indent=1).replace('"x": 120.5', f'"x": {number}')
    check(fail(text, catalog), "devices[1].x", expected)


def test_price_override_out_of_range(data: dict[str, Any], catalog: Any) -> None:
    data["settings"]["price_overrides"]["dgx-h100"] = 1e308
    check(
        fail(data, catalog),
        "settings.price_overrides['dgx-h100']",
        "expected a number <= 1,000,000,000",
    )


def test_binary_file(catalog: Any) -> None:
    message = fail(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", catalog)
    check(message, "byte 8", "binary data", "expected a JSON design file")


def test_undecodable_bytes(catalog: Any) -> None:
    message = fail(b'{"schema_version": 1,\n "settings": {"name": "caf\xe9"}}', catalog)
    check(message, "line 2 (byte 48)", "not UTF-8", "expected")


def test_utf8_bom_is_accepted(design: Design, catalog: Any) -> None:
    raw = b"\xef\xbb\xbf" + design.model_dump_json().encode()
    assert loads_design(raw, catalog=catalog) == design


def test_missing_file(tmp_path: Path, catalog: Any) -> None:
    path = tmp_path / "nope.json"
    with pytest.raises(DesignFileError) as info:
        load_design(path, catalog=catalog)
    assert str(info.value) == (
        f"{path}: no such file; expected the path of a design file (.json)"
    )


def test_directory(tmp_path: Path, catalog: Any) -> None:
    with pytest.raises(DesignFileError) as info:
        load_design(tmp_path, catalog=catalog)
    assert (
        str(info.value) == f"{tmp_path}: is a directory; expected a design file (.json)"
    )


def test_permission_denied(
    tmp_path: Path, design: Design, catalog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "locked.json"
    path.write_text(design.model_dump_json())
    if os.geteuid() != 0:
        path.chmod(0)
    else:  # root reads anything: make opening fail the way it would for a user

        def refuse(self: Path, *args: Any, **kwargs: Any) -> Any:
            raise PermissionError(13, "Permission denied", str(self))

        monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(DesignFileError) as info:
        load_design(path, catalog=catalog)
    assert str(info.value) == (
        f"{path}: permission denied; expected a file you may read"
    )


def test_load_design_reads_a_file(tmp_path: Path, design: Design, catalog: Any) -> None:
    path = tmp_path / "ok.json"
    path.write_text(design.model_dump_json(), encoding="utf-8")
    assert load_design(path, catalog=catalog) == design
    assert load_design(str(path), catalog=catalog) == design


def test_lone_surrogate_escape(catalog: Any) -> None:
    text = '{"schema_version": 1, "settings": {"name": "a\\ud800b"}}'
    check(fail(text, catalog), "line 1, column 46", "unpaired", "expected a valid")


def test_unknown_catalog_id_against_the_shipped_catalog(data: dict[str, Any]) -> None:
    data["devices"][2]["catalog_id"] = "qm9070"
    with pytest.raises(DesignFileError) as info:
        loads_design(json.dumps(data), SOURCE)  # default catalog
    assert str(info.value) == (
        f"{SOURCE}: devices[2].catalog_id: unknown catalog id 'qm9070'; expected an "
        "id from the hardware catalog (did you mean 'qm9700' or 'qm8700'?)"
    )


def _links_file(n: int, cables: str = "1", b: str = "leaf-1") -> str:
    data = json.loads(Design().model_dump_json())
    data["devices"] = [
        {"id": "dgx-1", "catalog_id": "dgx-h100"},
        {"id": "leaf-1", "catalog_id": "qm9700"},
    ]
    data["links"] = {
        "id": [f"l{i}" for i in range(n)],
        "a": ["dgx-1"] * n,
        "a_port": ["compute"] * n,
        "b": [b] * n,
        "b_port": ["ports"] * n,
        "cables": [1] * n,
        "speed_gbps": [400] * n,
        "fabric": ["compute"] * n,
        "rail": [None] * n,
    }
    return json.dumps(data).replace('"cables": [1', f'"cables": [{cables}')


def test_a_big_file_with_many_bad_entries_stops_at_each_lists_first(
    catalog: Any,
) -> None:
    text = _links_file(20_000).replace('"speed_gbps": [400', '"speed_gbps": [0')
    text = text.replace("400, 400", "0, 0")  # every link: speed 0
    assert len(text) > 64 * 1024
    message = fail(text, catalog)
    assert message == (
        f"{SOURCE}: links.speed_gbps[0]: expected a number >= 1, found the number 0"
    )


def test_a_small_file_lists_every_problem(catalog: Any) -> None:
    text = _links_file(50).replace("400", "0")
    message = fail(text, catalog)
    assert message.count(f"{SOURCE}: links.speed_gbps[") == 5
    assert message.endswith("... and 45 more problem(s)")


def test_many_dangling_references_are_counted_not_each_explained(
    catalog: Any,
) -> None:
    text = _links_file(20_000, b="leaf-2")
    message = fail(text, catalog)
    assert message.startswith(
        f"{SOURCE}: links.b[0]: unknown device 'leaf-2'; expected the id of a device "
        "in 'devices' (did you mean 'leaf-1'?)"
    )
    assert message.endswith("... and 19995 more problem(s)")


def test_the_loader_runs_the_models_reference_check_itself() -> None:
    """If the model's reference check moves, the loader still checks (through
    the model) but slowly and with the whole file in memory on failure."""
    from designer.io.validator import schema_validator

    for fail_fast in (False, True):
        assert schema_validator(fail_fast, True)[1], (
            "update designer.io.validator.schema_validator"
        )
        assert not schema_validator(fail_fast, False)[1]
