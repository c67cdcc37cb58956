"""Recovery copies without Qt: sessions, liveness, writing, listing, hostile files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from designer.core.commands import SetSettings
from designer.core.device_commands import move_devices
from designer.core.document import Document
from designer.core.model import Design
from designer.io.recovery import (
    MANIFEST_MAX_BYTES,
    MAX_LABELS,
    Manifest,
    RecoveryStore,
    changes_since_save,
)
from tests.io.conftest import make_design

ROOT = Path(__file__).resolve().parents[2]


def _manifest(document: str, **changes: Any) -> Manifest:
    fields: dict[str, Any] = {
        "document": document,
        "design_name": "Test design",
        "copied_at": 1_700_000_000.5,
        "steps": 2,
        "labels": ("Move", "Rename"),
        "pid": 4242,
    }
    return Manifest(**(fields | changes))


def _write(store: RecoveryStore, design: Design | None = None) -> str:
    """A copy written by a session that then ends (as if its process died)."""
    session = store.open_session()
    document = session.new_document_id()
    store.write(document, design or make_design(), None, _manifest(document))
    session.close()
    return document


# --- what changed since the last save ------------------------------------------


def _renamed(doc: Document, name: str) -> SetSettings:
    return SetSettings(doc.design.settings.model_copy(update={"name": name}), name)


def test_changes_count_steps_after_the_saved_state() -> None:
    doc = Document(make_design())
    assert changes_since_save(doc.history) == (0, ())
    doc.execute(_renamed(doc, "A"))
    doc.mark_clean()
    for name in ("B", "C"):
        doc.execute(_renamed(doc, name))
    assert changes_since_save(doc.history) == (2, ("B", "C"))


def test_undoing_past_the_save_counts_as_changes() -> None:
    doc = Document(make_design())
    for name in ("A", "B"):
        doc.execute(_renamed(doc, name))
    doc.mark_clean()
    doc.undo()
    doc.undo()
    assert changes_since_save(doc.history) == (2, ("Undo B", "Undo A"))


def test_a_never_saved_document_counts_every_step_and_keeps_the_latest_labels() -> None:
    doc = Document(make_design())
    doc.mark_unsaved()
    for i in range(8):
        doc.execute(move_devices({"dgx-1": (float(i), 0.0)}))
    doc.execute(_renamed(doc, "Last"))
    steps, labels = changes_since_save(doc.history)
    assert steps == 9 and len(labels) == MAX_LABELS and labels[-1] == "Last"


# --- sessions ------------------------------------------------------------------


def test_a_session_is_alive_until_closed(tmp_path: Path) -> None:
    store = RecoveryStore(tmp_path / "recovery")
    session = store.open_session()
    other_view = RecoveryStore(tmp_path / "recovery")  # as another process sees it
    assert other_view.session_alive(session.id)
    ids = {session.new_document_id(), session.new_document_id()}
    assert len(ids) == 2 and all(i.startswith(session.id + "-") for i in ids)
    session.close()
    assert not other_view.session_alive(session.id)
    assert list((tmp_path / "recovery").iterdir()) == []  # lock file gone


@pytest.mark.slow
def test_a_killed_process_releases_its_session(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "from designer.io.recovery import RecoveryStore\n"
        "s = RecoveryStore(sys.argv[1]).open_session()\n"
        "print(s.id, flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        session_id = child.stdout.readline().strip()
        store = RecoveryStore(tmp_path)
        assert store.session_alive(session_id)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        assert not store.session_alive(session_id)  # lock file left, lock gone
        assert (tmp_path / f"{session_id}.lock").exists()
        store.entries()
        assert not (tmp_path / f"{session_id}.lock").exists()  # tidied
    finally:
        child.kill()
        child.communicate(timeout=30)


# --- writing and listing -------------------------------------------------------


def test_a_copy_round_trips_with_its_manifest(
    tmp_path: Path, catalog: dict[str, Any]
) -> None:
    store = RecoveryStore(tmp_path)
    design = make_design()
    document = _write(store, design)
    [entry] = store.entries(catalog)
    assert entry.recoverable and entry.problems == []
    assert entry.document == document
    assert entry.design is not None
    assert entry.design.model_dump() == design.model_dump()
    assert entry.manifest == _manifest(document)
    assert entry.name == "Test design"


def test_a_copy_from_the_link_columns_of_a_snapshot_is_the_same_design(
    tmp_path: Path, catalog: dict[str, Any]
) -> None:
    design = make_design()
    light = Design.model_construct(
        schema_version=design.schema_version,
        settings=design.settings,
        groups=list(design.groups),
        devices=list(design.devices),
    )
    store = RecoveryStore(tmp_path)
    session = store.open_session()
    document = session.new_document_id()
    store.write(document, light, design.links.arrays, _manifest(document))
    session.close()
    [entry] = store.entries(catalog)
    assert entry.design is not None
    assert entry.design.model_dump() == design.model_dump()


def test_copies_of_a_live_session_are_not_offered(tmp_path: Path) -> None:
    store = RecoveryStore(tmp_path)
    session = store.open_session()
    document = session.new_document_id()
    store.write(document, make_design(), None, _manifest(document))
    assert store.entries() == []
    session.close()
    assert [e.document for e in store.entries()] == [document]


def test_rewriting_replaces_the_copy_and_leaves_no_temp_files(tmp_path: Path) -> None:
    store = RecoveryStore(tmp_path)
    session = store.open_session()
    document = session.new_document_id()
    design = make_design()
    store.write(document, design, None, _manifest(document, steps=1))
    design.settings = design.settings.model_copy(update={"name": "Second"})
    store.write(document, design, None, _manifest(document, steps=2))
    session.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"{document}.design.json",
        f"{document}.manifest.json",
    ]
    [entry] = store.entries()
    assert entry.design is not None and entry.design.settings.name == "Second"
    assert entry.manifest is not None and entry.manifest.steps == 2


def test_remove_and_adopt(tmp_path: Path) -> None:
    store = RecoveryStore(tmp_path)
    old = _write(store)
    [entry] = store.entries()
    session = store.open_session()
    new = session.new_document_id()
    store.adopt(entry, new, _manifest(new, steps=7))
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [
        f"{new}.design.json",
        f"{new}.manifest.json",
    ]
    assert not store.design_path(old).exists()
    store.remove(new)
    store.remove(new)  # twice is fine
    assert list(tmp_path.glob("*.json")) == []
    session.close()


def test_newest_copies_come_first_and_the_listing_is_bounded(tmp_path: Path) -> None:
    store = RecoveryStore(tmp_path)
    documents = []
    for i in range(5):
        document = _write(store)
        stamp = 1_700_000_000 + i
        for path in tmp_path.glob(f"{document}.*"):
            os.utime(path, (stamp, stamp))
        documents.append(document)
    listed = store.entries(limit=3)
    assert [e.document for e in listed] == documents[::-1][:3]


def test_document_ids_are_checked() -> None:
    store = RecoveryStore("unused")
    with pytest.raises(ValueError, match="not a recovery document id"):
        store.design_path("../../etc/passwd")


# --- broken and hostile files --------------------------------------------------

DEAD = "0123456789ab-1"


def _only_entry(tmp_path: Path, catalog: Any = None) -> Any:
    [entry] = RecoveryStore(tmp_path).entries(catalog)
    return entry


def test_a_truncated_copy_is_listed_with_the_load_error(tmp_path: Path) -> None:
    (tmp_path / f"{DEAD}.design.json").write_text('{"schema_version": 1, "dev')
    (tmp_path / f"{DEAD}.manifest.json").write_bytes(_manifest(DEAD).to_json())
    entry = _only_entry(tmp_path)
    assert not entry.recoverable and entry.manifest is not None
    assert f"{DEAD}.design.json" in entry.problems[0]
    assert "line 1" in entry.problems[0]


def test_a_copy_without_a_manifest_is_still_recoverable(
    tmp_path: Path, catalog: dict[str, Any]
) -> None:
    (tmp_path / f"{DEAD}.design.json").write_text(make_design().model_dump_json())
    entry = _only_entry(tmp_path, catalog)
    assert entry.recoverable and entry.manifest is None
    assert entry.name == "Test design \u00e9"
    assert entry.problems == ["no description was written with this copy"]


def test_a_manifest_without_a_copy_can_only_be_discarded(tmp_path: Path) -> None:
    (tmp_path / f"{DEAD}.manifest.json").write_bytes(_manifest(DEAD).to_json())
    store = RecoveryStore(tmp_path)
    [entry] = store.entries()
    assert not entry.recoverable and "missing" in entry.problems[0]
    store.discard(entry)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"\xff\xfe not json", "Invalid JSON"),
        (b"[]", "should be an object"),
        (b'{"format": "cluster-designer-recovery"}', "Field required"),
        (b"{" + b" " * (MANIFEST_MAX_BYTES + 10) + b"}", "larger than 64 KB"),
    ],
)
def test_a_broken_manifest_is_a_problem_not_an_exception(
    tmp_path: Path, catalog: dict[str, Any], text: bytes, expected: str
) -> None:
    (tmp_path / f"{DEAD}.design.json").write_text(make_design().model_dump_json())
    (tmp_path / f"{DEAD}.manifest.json").write_bytes(text)
    entry = _only_entry(tmp_path, catalog)
    assert entry.recoverable and entry.manifest is None
    assert "description cannot be read" in entry.problems[0]
    assert expected in entry.problems[0]


@pytest.mark.parametrize(
    "change",
    [
        {"copied_at": float("inf")},
        {"steps": -1},
        {"design_name": "x" * 201},
        {"labels": ["a"] * 6},
        {"document": "0123456789ab-2"},  # another document's description
        {"extra": 1},
    ],
)
def test_out_of_range_manifest_fields_are_refused(
    tmp_path: Path, change: dict[str, Any]
) -> None:
    data = json.loads(_manifest(DEAD).to_json())
    data.update(change)
    text = json.dumps(data, allow_nan=True)
    (tmp_path / f"{DEAD}.manifest.json").write_text(text)
    entry = _only_entry(tmp_path)
    assert entry.manifest is None
    assert "description cannot be read" in entry.problems[0]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_symbolic_links_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "design.json"
    secret.write_text(make_design().model_dump_json())
    folder = tmp_path / "recovery"
    folder.mkdir()
    (folder / f"{DEAD}.design.json").symlink_to(secret)
    (folder / f"{DEAD}.manifest.json").symlink_to(secret)
    store = RecoveryStore(folder)
    [entry] = store.entries()
    assert not entry.recoverable
    assert len(entry.problems) == 2
    store.discard(entry)
    assert secret.exists() and list(folder.iterdir()) == []  # links gone, not targets


def test_a_directory_named_like_a_copy_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / f"{DEAD}.design.json").mkdir()
    entry = _only_entry(tmp_path)
    assert not entry.recoverable and "not a regular file" in entry.problems[-1]


def test_files_that_are_not_ours_are_never_touched(tmp_path: Path) -> None:
    names = ["notes.txt", "design.json", "0123456789ab.design.json", "abc.lock"]
    for name in names:
        (tmp_path / name).write_text("x")
    assert RecoveryStore(tmp_path).entries() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def test_temp_files_of_a_dead_writer_are_removed_a_live_ones_kept(
    tmp_path: Path,
) -> None:
    store = RecoveryStore(tmp_path)
    live = store.open_session()
    dead_temp = tmp_path / f".{DEAD}.design.json.abc12345.tmp"
    live_temp = tmp_path / f".{live.id}-1.design.json.abc12345.tmp"
    dead_temp.write_text("{")
    live_temp.write_text("{")
    store.entries()
    assert not dead_temp.exists() and live_temp.exists()
    live.close()


def test_a_missing_folder_lists_nothing(tmp_path: Path) -> None:
    assert RecoveryStore(tmp_path / "absent").entries() == []
