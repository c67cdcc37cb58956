"""Saving: exact round trip, a diff-friendly layout, and atomic replacement."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import designer.io.save as save_module
from designer.core.model import Design, Device
from designer.io import dumps_design, load_design, loads_design, save_design


def test_round_trip_is_exact(tmp_path: Path, design: Design, catalog: Any) -> None:
    path = tmp_path / "d.json"
    save_design(design, path)
    loaded = load_design(path, catalog=catalog)
    assert loaded == design
    assert loaded.model_dump() == design.model_dump()
    save_design(loaded, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_saved_text_is_plain_json_of_the_model(design: Design) -> None:
    text = dumps_design(design)
    assert json.loads(text) == json.loads(design.model_dump_json())
    assert Design.model_validate_json(text) == design


def test_layout_one_device_per_line(design: Design) -> None:
    lines = dumps_design(design).splitlines()
    device_lines = [ln for ln in lines if ln.lstrip().startswith('{"id": "')]
    assert len(device_lines) == len(design.devices) + len(design.groups)
    assert any(ln.startswith('    "speed_gbps": [400, 400, 400, 200]') for ln in lines)
    assert "Test design \u00e9" in dumps_design(design)  # not \\u-escaped


def test_empty_design_round_trips(catalog: Any) -> None:
    empty = Design()
    assert loads_design(dumps_design(empty), catalog=catalog) == empty


def test_floats_round_trip_exactly(catalog: Any) -> None:
    design = Design(
        devices=[Device(id="a", catalog_id="qm9700", x=0.1 + 0.2, y=-1e-300)]
    )
    assert loads_design(dumps_design(design), catalog=catalog) == design


def test_crash_mid_save_keeps_the_previous_file(
    tmp_path: Path, design: Design, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keep.json"
    save_design(design, path)
    before = path.read_bytes()
    real = save_module.iter_chunks

    def exploding(d: Design) -> Iterator[str]:
        for n, chunk in enumerate(real(d)):
            if n == 6:
                raise RuntimeError("power cut")
            yield chunk

    monkeypatch.setattr(save_module, "iter_chunks", exploding)
    renamed = design.settings.model_copy(update={"name": "changed"})
    changed = design.model_copy(update={"settings": renamed})
    with pytest.raises(RuntimeError, match="power cut"):
        save_design(changed, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.json"]


def test_crash_in_replace_keeps_the_previous_file(
    tmp_path: Path, design: Design, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keep.json"
    path.write_text("previous", encoding="utf-8")

    def broken_replace(src: str, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        save_design(design, path)
    assert path.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]


def test_save_writes_through_a_temp_file_then_replaces(
    tmp_path: Path, design: Design, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: str, dst: Any) -> None:
        calls.append((str(src), str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    path = tmp_path / "x.json"
    save_design(design, path)
    [(src, dst)] = calls
    assert Path(src).parent == tmp_path and Path(src).name.startswith(".x.json.")
    assert dst == str(path)


def test_existing_permissions_are_kept(tmp_path: Path, design: Design) -> None:
    path = tmp_path / "shared.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o640)
    save_design(design, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_new_file_gets_normal_permissions(tmp_path: Path, design: Design) -> None:
    path = tmp_path / "new.json"
    save_design(design, path)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_missing_directory_raises_oserror(tmp_path: Path, design: Design) -> None:
    with pytest.raises(FileNotFoundError):
        save_design(design, tmp_path / "no" / "such" / "dir.json")


def test_saving_through_a_symlink_keeps_the_link(
    tmp_path: Path, design: Design, catalog: Any
) -> None:
    real = tmp_path / "real.json"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    save_design(design, link)
    assert link.is_symlink()
    assert load_design(real, catalog=catalog) == design


def _with_orphan_racks() -> Design:
    """The enterprise sample with group su01 gone but its racks still naming it
    (what removing a group did before racks followed it)."""
    sample = Path(__file__).resolve().parents[2] / "samples"
    d = load_design(sample / "minimum-viable-enterprise.json")
    d.devices[:] = [x.model_copy(update={"group": None}) for x in d.devices]
    d.groups[:] = [g for g in d.groups if g.id != "su01"]
    return d


def test_a_design_the_loader_would_refuse_is_not_written(
    tmp_path: Path, design: Design
) -> None:
    path = tmp_path / "keep.json"
    save_design(design, path)
    before = path.read_bytes()
    broken = _with_orphan_racks()
    with pytest.raises(save_module.UnsavableDesign) as refused:
        save_design(broken, path)
    text = str(refused.value)
    assert text.startswith(f"{path}: not saved, because the file would not open")
    assert "physical.racks[0].group: unknown group 'su01'" in text
    assert "nothing was written" in text
    assert path.read_bytes() == before  # the previous file is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.json"]
    # what the refusal says is what the loader would say of the file
    with pytest.raises(Exception, match=r"physical\.racks\[0\]\.group: unknown group"):
        loads_design(dumps_design(broken))


def test_a_device_the_catalog_lacks_is_not_written(
    tmp_path: Path, catalog: Any
) -> None:
    odd = Design(devices=[Device(id="x", catalog_id="no-such-box")])
    with pytest.raises(save_module.UnsavableDesign, match="unknown catalog id"):
        save_design(odd, tmp_path / "odd.json", catalog=catalog)
    assert list(tmp_path.iterdir()) == []
