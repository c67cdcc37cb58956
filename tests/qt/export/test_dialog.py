"""The Export dialog writes each format; cancelling writes nothing."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PySide6.QtWidgets import QProgressDialog

from designer.qt.export.dialog import FORMATS, ExportDialog
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
