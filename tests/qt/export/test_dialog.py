"""The Export dialog writes each format; cancelling writes nothing."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PySide6.QtWidgets import QProgressDialog

from designer.qt.export.dialog import FOLDER_FORMATS, FORMATS, ExportDialog
from tests.io.export.designs import fake_report, rail_design


@pytest.fixture
def dialog(qtbot: object, tmp_path: Path) -> ExportDialog:
    design = rail_design()
    dlg = ExportDialog(
        None,
        design,
        None,
        ["dgx-01", "leaf-1", "not-a-device"],
        report=fake_report(design),
        directory=str(tmp_path),
    )
    qtbot.addWidget(dlg)  # type: ignore[attr-defined]
    return dlg


@pytest.mark.parametrize("key", [f[0] for f in FORMATS])
def test_each_format_is_written(dialog: ExportDialog, key: str) -> None:
    dialog.set_format(key)
    path = Path(dialog.path.text())
    assert path.suffix == next(f[2] for f in FORMATS if f[0] == key)
    assert dialog.export(), dialog.last_error
    assert dialog.written == path
    if key in FOLDER_FORMATS:
        assert path.is_dir() and all(f.stat().st_size > 0 for f in path.iterdir())
    else:
        assert path.stat().st_size > 0
    if key == "cabling":
        with path.open() as fh:
            assert len(list(csv.DictReader(fh))) == sum(dialog.design.links.cables)


def test_controls_follow_the_format(dialog: ExportDialog) -> None:
    dialog.set_format("pdf")
    assert dialog.page_size.isEnabled()
    assert dialog.sections_box.isEnabled()
    # selection keeps only devices that exist
    assert dialog.only_selection.isEnabled()
    assert dialog.selection == ["dgx-01", "leaf-1"]
    dialog.set_format("bom")
    assert not dialog.page_size.isEnabled()
    assert not dialog.scope_box.isEnabled()
    assert dialog.path.text().endswith("rail-test-cluster-bom.csv")


def test_pdf_sections_and_selection(dialog: ExportDialog) -> None:
    from pypdf import PdfReader

    dialog.set_format("pdf")
    dialog.sections["findings"].setChecked(False)
    dialog.sections["bom"].setChecked(False)
    dialog.only_selection.setChecked(True)
    assert dialog.export(), dialog.last_error
    pages = PdfReader(str(dialog.written)).pages
    text = " ".join(" ".join(p.extract_text().split()) for p in pages)
    assert "Bill of materials" not in text
    assert "Switch tiers" in text
    assert "Selection: 2 of 8 devices" in text


def test_cancel_writes_nothing(
    dialog: ExportDialog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QProgressDialog, "wasCanceled", lambda self: True)
    dialog.set_format("pdf")
    assert not dialog.export()
    assert "cancelled" in dialog.last_error
    assert not Path(dialog.path.text()).exists()


def test_missing_folder_is_a_clear_message(dialog: ExportDialog) -> None:
    dialog.path.setText("/nonexistent-folder-for-test/x.pdf")
    assert not dialog.export()
    assert "does not exist" in dialog.last_error


def test_save_path_is_shown_whole(qtbot: object) -> None:
    """The dialog is wide enough to show a usual folder and the file name."""
    design = rail_design()
    dlg = ExportDialog(
        None,
        design,
        None,
        [],
        report=fake_report(design),
        directory="/home/ana/exports",
    )
    qtbot.addWidget(dlg)  # type: ignore[attr-defined]
    dlg.show()
    qtbot.waitExposed(dlg)  # type: ignore[attr-defined]
    text = dlg.path.text()
    assert text.startswith("/home/ana/exports/")
    assert dlg.path.fontMetrics().horizontalAdvance(text) < dlg.path.width() - 8


SLURM_FILES = {"topology.conf", "topology-block.conf", "topology.yaml", "nodes.conf"}


def test_slurm_folder_from_the_dialog(qtbot: object, tmp_path: Path) -> None:
    """Chosen in the format box and exported with the Export button, the Slurm
    folder has every file, the trays as hosts and one block per NVL72 rack."""
    import yaml
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialog

    from designer.analysis import analyze
    from designer.catalog.hosts import design_hosts
    from designer.io import load_design
    from tests.io.export.test_slurm import expand_hostlist

    sample = Path(__file__).resolve().parents[3] / "samples" / "gb200-nvl72-su.json"
    design = load_design(sample)
    dlg = ExportDialog(
        None, design, None, [], report=analyze(design), directory=str(tmp_path)
    )
    qtbot.addWidget(dlg)  # type: ignore[attr-defined]
    dlg.show()
    qtbot.waitExposed(dlg)  # type: ignore[attr-defined]
    box = dlg.format_box
    box.setCurrentIndex(box.findText("Slurm configuration (folder)"))
    assert dlg.format_key() == "slurm"
    assert not dlg.page_size.isEnabled() and not dlg.scope_box.isEnabled()
    assert dlg.format_note.isVisible() and "topology.yaml" in dlg.format_note.text()
    folder = Path(dlg.path.text())
    assert folder.parent == tmp_path and folder.suffix == ""
    qtbot.mouseClick(dlg.export_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    assert dlg.result() == QDialog.DialogCode.Accepted, dlg.last_error
    assert dlg.written == folder
    names = {f.name for f in folder.iterdir()}
    assert SLURM_FILES | {"gres.conf", "README.txt"} == names

    hosts = design_hosts(design)
    listed: list[str] = []
    for line in (folder / "nodes.conf").read_text().splitlines():
        if line.startswith("NodeName="):
            listed += expand_hostlist(line.split()[0].removeprefix("NodeName="))
            assert "Gres=gpu:" in line
    assert sorted(listed) == sorted(h.name for h in hosts)
    assert len(listed) == 8 * 18
    blocks = [
        set(expand_hostlist(line.split(" Nodes=")[1]))
        for line in (folder / "topology-block.conf").read_text().splitlines()
        if line.startswith("BlockName=")
    ]
    racks = [{h.name for h in d.hosts} for d in hosts.nvlink_domains()]
    assert len(blocks) == len(racks) == 8
    assert all(b in racks for b in blocks)
    topo = yaml.safe_load((folder / "topology.yaml").read_text())
    assert {t["topology"] for t in topo} == {"tree", "block"}
    assert "8 blocks of 18 hosts" in dlg.status.text()
    for name in ("nodes.conf", "gres.conf", "topology-block.conf"):
        assert name in dlg.status.text()
    box.setCurrentIndex(box.findData("bom"))
    assert dlg.format_note.isHidden()


def test_slurm_folder_over_a_file_is_a_clear_message(
    dialog: ExportDialog, tmp_path: Path
) -> None:
    dialog.set_format("slurm")
    taken = tmp_path / "taken"
    taken.write_text("not a folder")
    dialog.path.setText(str(taken))
    assert not dialog.export()
    assert dialog.last_error.startswith("Could not export:")
    assert taken.read_text() == "not a folder"


def test_a_typed_path_follows_the_format(dialog: ExportDialog, tmp_path: Path) -> None:
    """Switching to the folder format drops the file suffix; back, it returns,
    and dots in a folder name stay."""
    dialog.set_format("pdf")
    dialog.path.setText(str(tmp_path / "pod-v1.2.pdf"))
    dialog.set_format("slurm")
    assert dialog.path.text() == str(tmp_path / "pod-v1.2")
    dialog.set_format("cabling")
    assert dialog.path.text() == str(tmp_path / "pod-v1.2.csv")
    dialog.set_format("slurm")
    dialog.path.setText(str(tmp_path / "slurm.v2"))
    dialog.set_format("pdf")
    assert dialog.path.text() == str(tmp_path / "slurm.v2.pdf")


def test_netbox_folder_is_offered_and_written(
    dialog: ExportDialog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """File > Export > NetBox import folder: the whole folder, README first."""
    from designer.io.export.netbox import IMPORT_STEPS, netbox_cables

    labels = [dialog.format_box.itemText(i) for i in range(dialog.format_box.count())]
    assert "NetBox import folder (CSV, YAML, README)" in labels
    dialog.set_format("netbox")
    assert dialog.path.text().endswith("rail-test-cluster-netbox")
    assert not dialog.page_size.isEnabled() and not dialog.scope_box.isEnabled()
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.setattr(
        "designer.qt.export.dialog.QFileDialog.getExistingDirectory",
        lambda *a, **k: str(other),
    )
    dialog._on_browse()
    out = other / "rail-test-cluster-netbox"
    assert Path(dialog.path.text()) == out
    assert dialog.export(), dialog.last_error
    names = {p.name for p in out.iterdir()}
    assert names == {f for f, _, _ in IMPORT_STEPS} | {"README.md"}
    with (out / "cables.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(netbox_cables(dialog.design)) > 0
    # a file where the folder should go is refused with the reason
    blocked = tmp_path / "file-netbox"
    blocked.write_text("x")
    dialog.path.setText(str(blocked))
    assert not dialog.export()
    assert "is a file; the NetBox export is a folder" in dialog.last_error
