"""The design file's workload block: round trip, migration from version 1, undo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from designer.core.commands import ReplaceDesign, SetWorkload
from designer.core.document import Document
from designer.core.model import SCHEMA_VERSION, Design
from designer.core.workload import CloudRate, Job, Workload
from designer.io import DesignFileError, dumps_design, load_design, loads_design
from designer.io.migrate import migrate
from tests.io.conftest import FAKE_CATALOG, make_design

BLOCK = Workload(
    model="llama3-70b",
    job=Job.PRETRAIN,
    tokens=15e12,
    mfu=0.38,
    tp=8,
    cloud_rates=[
        CloudRate(
            name="test rate", usd_per_gpu_hour=2.5, source="a quote", date="2026-01"
        )
    ],
)


def with_block() -> Design:
    design = make_design()
    design.workload = BLOCK
    return design


def test_block_round_trips_through_the_file(tmp_path: Path) -> None:
    design = with_block()
    text = dumps_design(design)
    data = json.loads(text)
    # only the fields that are set are written: absent means "default"
    assert data["workload"]["tokens"] == 15e12
    assert "pp" not in data["workload"]
    loaded = loads_design(text, catalog=FAKE_CATALOG)
    assert loaded == design
    assert loaded.workload == BLOCK
    assert dumps_design(loaded) == text


def test_design_without_a_block_writes_null() -> None:
    data = json.loads(dumps_design(make_design()))
    assert data["workload"] is None
    assert data["schema_version"] == SCHEMA_VERSION == 5


def test_version_1_file_still_opens(tmp_path: Path) -> None:
    """A version-1 file (no workload key) migrates to the same design."""
    data = json.loads(dumps_design(make_design()))
    del data["workload"], data["physical"]
    data["schema_version"] = 1
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_design(path, catalog=FAKE_CATALOG)
    assert loaded == make_design()
    assert loaded.workload is None
    assert migrate(data, 1)["schema_version"] == SCHEMA_VERSION
    assert "workload" not in data  # the step does not write to its input


def test_version_1_errors_name_column_places(tmp_path: Path) -> None:
    """Version-1 files stored links as columns: errors say links.<column>[i]."""
    data = json.loads(dumps_design(make_design()))
    del data["workload"], data["physical"]
    data["schema_version"] = 1
    data["links"]["cables"][2] = 0
    with pytest.raises(DesignFileError) as info:
        loads_design(json.dumps(data), "old.json", catalog=FAKE_CATALOG)
    assert "links.cables[2]" in str(info.value)
    assert "(file has schema_version 1)" in str(info.value)


def test_a_workload_key_in_a_version_1_file_is_refused() -> None:
    data = json.loads(dumps_design(with_block()))
    data["schema_version"] = 1
    data["workload"]["mfu"] = 2.0
    with pytest.raises(DesignFileError) as info:
        loads_design(json.dumps(data), "x.json", catalog=FAKE_CATALOG)
    assert "workload.mfu" in str(info.value)


def test_bad_block_values_are_refused_with_the_place() -> None:
    for key, value in (("mfu", 1.5), ("tp", 0), ("job", "train"), ("pue", 0.5)):
        data = json.loads(dumps_design(with_block()))
        data["workload"][key] = value
        with pytest.raises(DesignFileError) as info:
            loads_design(json.dumps(data), "x.json", catalog=FAKE_CATALOG)
        assert f"workload.{key}" in str(info.value), (key, str(info.value))


def test_set_workload_undoes_to_the_same_dump() -> None:
    doc = Document(make_design())
    before = doc.design.model_dump()
    doc.execute(SetWorkload(BLOCK))
    assert doc.design.workload == BLOCK
    doc.undo()
    assert doc.design.model_dump() == before
    doc.redo()
    assert doc.design.workload == BLOCK


def test_replace_design_carries_and_restores_the_block() -> None:
    doc = Document(with_block())
    before = doc.design.model_dump()
    doc.execute(ReplaceDesign(make_design()))
    assert doc.design.workload is None
    doc.undo()
    assert doc.design.model_dump() == before


def test_merged_overrides_only_the_fields_set() -> None:
    over = Workload(tokens=1e12, pp=2)
    out = BLOCK.merged(over)
    assert out.tokens == 1e12 and out.pp == 2
    assert out.tp == 8 and out.model == "llama3-70b"
    assert BLOCK.tokens == 15e12  # not changed in place


def test_unknown_block_key_lists_the_block_fields() -> None:
    data = json.loads(dumps_design(with_block()))
    data["workload"]["tokenz"] = 1
    with pytest.raises(DesignFileError) as info:
        loads_design(json.dumps(data), "x.json", catalog=FAKE_CATALOG)
    text = str(info.value)
    assert "workload.tokenz: unknown key" in text
    assert "tokens" in text and "failure_rate_per_gpu_day" in text


def test_the_json_schema_describes_the_block() -> None:
    from designer.io import design_json_schema
    from tests.io.test_schema import _errors

    schema = design_json_schema()
    good = json.loads(dumps_design(with_block()))
    assert _errors(schema, schema, good, "$") == []
    for key, value in (
        ("mfu", 0),
        ("mfu", 1.5),
        ("tp", 0),
        ("job", "train"),
        ("tokenz", 1),
    ):
        bad = json.loads(dumps_design(with_block()))
        bad["workload"][key] = value
        assert _errors(schema, schema, bad, "$") != [], (key, value)
