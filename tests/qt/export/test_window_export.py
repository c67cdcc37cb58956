"""File > Export from the main window: the dialog gets the live scene and selection."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtWidgets import QDialog

from designer.qt.export.dialog import ExportDialog

SAMPLE = (
    Path(__file__).resolve().parents[3] / "samples" / "minimum-viable-enterprise.json"
)


@pytest.mark.slow
def test_export_selection_from_window(
    main_window: Callable[..., object],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window = main_window()
    assert window.open_path(str(SAMPLE))  # type: ignore[attr-defined]
    design = window.document.design  # type: ignore[attr-defined]
    compute = [d.id for d in design.devices if d.catalog_id.startswith("dgx")]
    window.canvas.select_ids(compute, center=False)  # type: ignore[attr-defined]
    seen: list[ExportDialog] = []

    def fake_exec(self: ExportDialog) -> int:
        seen.append(self)
        self.set_format("pdf")
        self.only_selection.setChecked(True)
        self.path.setText(str(tmp_path / "sel.pdf"))
        assert self.export(), self.last_error
        return int(QDialog.DialogCode.Accepted)

    monkeypatch.setattr(ExportDialog, "exec", fake_exec)
    window.export()  # type: ignore[attr-defined]
    assert len(seen) == 1
    assert seen[0].selection == compute
    text = " ".join(
        PdfReader(str(tmp_path / "sel.pdf")).pages[0].extract_text().split()
    )
    assert f"Selection: {len(compute)} of {len(design.devices)} devices" in text
