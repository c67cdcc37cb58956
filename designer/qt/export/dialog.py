"""File > Export: format, page size, sections, scope and output path, with progress.

The page size starts at the one chosen last time, else the locale's paper
(Letter in the US, Canada, Mexico..., A4 elsewhere: :mod:`designer.view.pages.paper`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressDialog,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from designer.analysis.report import Report
from designer.catalog.schema import CatalogEntry
from designer.core.formatting import plural
from designer.core.model import Design
from designer.io.export import (
    ExportCancelled,
    write_bom_csv,
    write_cabling_csv,
)
from designer.io.export.netbox import write_netbox_csvs
from designer.io.export.slurm_files import SlurmFolder, write_slurm_folder
from designer.io.filenames import slug
from designer.qt.canvas.offscreen import OffscreenRenderer
from designer.qt.export.drawing import make_renderer
from designer.qt.export.images import write_png, write_svg
from designer.qt.export.page_size import (
    default_page_size,
    locale_page_size,
    remember_page_size,
)
from designer.qt.export.pdf import SECTIONS, write_pdf
from designer.view.pages.paper import A4, LETTER, PAGE_SIZES
from designer.workload import Estimate

#: (key, label, file suffix, file-dialog filter)
FORMATS: tuple[tuple[str, str, str, str], ...] = (
    ("pdf", "PDF report", ".pdf", "PDF (*.pdf)"),
    ("svg", "SVG drawing", ".svg", "SVG (*.svg)"),
    ("png", "PNG drawing", ".png", "PNG (*.png)"),
    ("bom", "Bill of materials (CSV)", ".csv", "CSV (*.csv)"),
    ("cabling", "Cabling plan (CSV)", ".csv", "CSV (*.csv)"),
    ("slurm", "Slurm configuration (folder)", "", ""),
    ("netbox", "NetBox import folder (CSV, YAML, README)", "", ""),
)
FOLDER_FORMATS = frozenset({"slurm", "netbox"})
"""Formats written as a folder of files (the path names the folder)."""
FORMAT_NOTES = {
    "slurm": "Writes a folder: topology.conf (topology/tree, any Slurm), "
    "topology-block.conf (one block per NVLink domain, Slurm 23.11+), "
    "topology.yaml (Slurm 25.05+), nodes.conf (NodeName lines for slurm.conf) "
    "and gres.conf; its README.txt says which file is for which Slurm.",
    "netbox": "Writes a folder NetBox imports file by file, in the order its "
    "README.md gives: manufacturers, roles, device types, site, locations, "
    "racks, devices and cables.",
}
"""What a format writes, shown under the path when it is chosen."""
SECTION_LABELS = {
    "drawing": "Drawing and headline (page 1)",
    "tiers": "Switch tiers",
    "findings": "Findings",
    "workload": "Workload fit (designs with a workload block)",
    "bom": "Bill of materials",
    "cabling": "Cabling summary",
    "racks": "Floor plan and rack elevations (placed designs)",
}
_SUFFIX_NAME = {
    "bom": "-bom",
    "cabling": "-cabling",
    "slurm": "-slurm",
    "netbox": "-netbox",
}
PAPER_NOTES = {A4: "ISO A4, 210 x 297 mm", LETTER: "US Letter, 8.5 x 11 in"}


class ExportDialog(QDialog):
    """Choose what to export and where; runs the export with a cancellable progress."""

    def __init__(
        self,
        parent: QWidget | None,
        design: Design,
        renderer: Callable[[], OffscreenRenderer] | None,
        selection: Sequence[str] | None,
        *,
        report: Report | None = None,
        catalog: Mapping[str, CatalogEntry] | None = None,
        directory: str | None = None,
        estimate: Estimate | None = None,
        selection_only: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export")
        self.design = design
        self._make_renderer = renderer
        self._renderer: OffscreenRenderer | None = None
        device_ids = {d.id for d in design.devices}
        self.selection = [i for i in (selection or []) if i in device_ids]
        self.report = report
        self.estimate = estimate
        """The workload estimate of ``design`` (None: computed when exporting)."""
        self.catalog = catalog
        self.written: Path | None = None
        self._auto_path = ""
        self._done_text = ""
        self.last_error = ""
        self._directory = Path(directory) if directory else Path.home()

        self.format_box = QComboBox()
        for key, label, _, _ in FORMATS:
            self.format_box.addItem(label, key)
        self.page_size = QComboBox()
        self.page_size.addItems(list(PAGE_SIZES))
        local = locale_page_size()
        for i, name in enumerate(PAGE_SIZES):
            self.page_size.setItemData(
                i,
                f"{PAPER_NOTES[name]}"
                + (" (your locale's paper)" if name == local else ""),
                Qt.ItemDataRole.ToolTipRole,
            )
        self.page_size.setCurrentText(default_page_size())

        self.sections: dict[str, QCheckBox] = {}
        sections_box = QGroupBox("Include")
        sections_layout = QVBoxLayout(sections_box)
        for key in SECTIONS:
            box = QCheckBox(SECTION_LABELS[key])
            box.setChecked(True)
            if key == "workload" and design.workload is None:
                box.setChecked(False)
                box.setEnabled(False)
                box.setToolTip("The design has no workload block (Workload panel)")
            self.sections[key] = box
            sections_layout.addWidget(box)
        self.sections_box = sections_box

        scope_box = QGroupBox("Drawing shows")
        scope_layout = QVBoxLayout(scope_box)
        self.whole = QRadioButton("The whole design")
        self.only_selection = QRadioButton(
            f"The selection ({plural(len(self.selection), 'device')})"
        )
        self.only_selection.setEnabled(bool(self.selection))
        # Export Selection (the canvas's context menu) starts on the selection
        if selection_only and self.selection:
            self.only_selection.setChecked(True)
        else:
            self.whole.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.whole)
        group.addButton(self.only_selection)
        scope_layout.addWidget(self.whole)
        scope_layout.addWidget(self.only_selection)
        self.scope_box = scope_box

        self.path = QLineEdit()
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._on_browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path, 1)
        path_row.addWidget(browse)

        form = QFormLayout()
        form.addRow("Format", self.format_box)
        form.addRow("Page size", self.page_size)
        form.addRow("Save to", path_row)

        note = QLabel(
            "The design itself is saved with File > Save As (JSON); its file "
            "format is printed by <code>cluster-designer schema</code>."
        )
        note.setWordWrap(True)
        note.setTextFormat(Qt.TextFormat.RichText)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.format_note = QLabel("")
        self.format_note.setWordWrap(True)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = buttons.addButton(
            "Export", QDialogButtonBox.ButtonRole.AcceptRole
        )
        buttons.accepted.connect(self._on_export)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.format_note)
        layout.addWidget(sections_box)
        layout.addWidget(scope_box)
        layout.addWidget(note)
        layout.addWidget(self.status)
        layout.addWidget(buttons)

        self.format_box.currentIndexChanged.connect(self._on_format_changed)
        self._on_format_changed()
        # wide enough that a usual folder and the file name both show
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("x") * 90)

    # -- state -----------------------------------------------------------------
    def format_key(self) -> str:
        """The chosen format: pdf, svg, png, bom, cabling, slurm or netbox."""
        return str(self.format_box.currentData())

    def set_format(self, key: str) -> None:
        """Choose a format by key."""
        self.format_box.setCurrentIndex(self.format_box.findData(key))

    def chosen_sections(self) -> list[str]:
        """Sections ticked for the PDF."""
        return [k for k, box in self.sections.items() if box.isChecked()]

    def _suffix(self) -> str:
        return next(f[2] for f in FORMATS if f[0] == self.format_key())

    def _default_path(self) -> Path:
        stem = slug(self.design.settings.name) + _SUFFIX_NAME.get(self.format_key(), "")
        return self._directory / (stem + self._suffix())

    def _on_format_changed(self) -> None:
        key = self.format_key()
        self.page_size.setEnabled(key == "pdf")
        self.sections_box.setEnabled(key == "pdf")
        self.scope_box.setEnabled(key in ("pdf", "svg", "png"))
        self.format_note.setText(FORMAT_NOTES.get(key, ""))
        self.format_note.setVisible(key in FORMAT_NOTES)
        text = self.path.text().strip()
        if not text or text == self._auto_path:
            self._auto_path = str(self._default_path())
            self.path.setText(self._auto_path)
        else:
            self.path.setText(_with_suffix(text, self._suffix()))

    def _on_browse(self) -> None:
        if self.format_key() in FOLDER_FORMATS:
            current = Path(self.path.text() or self._default_path())
            parent = QFileDialog.getExistingDirectory(
                self, "Export the folder into", str(current.parent)
            )
            if parent:
                self.path.setText(str(Path(parent) / current.name))
            return
        filt = next(f[3] for f in FORMATS if f[0] == self.format_key())
        path, _ = QFileDialog.getSaveFileName(self, "Export to", self.path.text(), filt)
        if path:
            self.path.setText(path)

    # -- export ----------------------------------------------------------------
    def _on_export(self) -> None:
        if self.export():
            self.accept()

    def export(self) -> bool:
        """Run the chosen export with a progress dialog; True when written."""
        text = self.path.text().strip()
        if not text:
            self._fail("Choose a file to export to.")
            return False
        out = Path(text)
        if not out.parent.is_dir():
            self._fail(f"The folder {out.parent} does not exist.")
            return False
        progress = QProgressDialog("Exporting…", "Cancel", 0, 100, self)
        progress.setWindowTitle("Export")
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(300)
        progress.setValue(0)

        def step(done: int, total: int) -> bool:
            if total > 0:
                progress.setMaximum(total)
                progress.setValue(min(done, total))
            QApplication.processEvents()
            return not progress.wasCanceled()

        try:
            self._run(out, step)
        except ExportCancelled:
            self._fail("Export cancelled; nothing was written.")
            return False
        except (OSError, ValueError) as exc:
            self._fail(f"Could not export: {exc}")
            return False
        finally:
            progress.reset()
            progress.deleteLater()
        self.written = out
        self.status.setText(self._done_text or f"Exported to {out}")
        return True

    def _fail(self, message: str) -> None:
        self.last_error = message
        self.status.setText(message)

    def renderer(self) -> OffscreenRenderer:
        """The renderer of the drawing, made on first use (a scene of its own)."""
        if self._renderer is None:
            if self._make_renderer is not None:
                self._renderer = self._make_renderer()
            else:
                self._renderer = make_renderer(
                    self.design, self.catalog, selection=self.selection
                )
        return self._renderer

    def _ensure_report(self) -> Report:
        if self.report is None:
            from designer.analysis import analyze

            self.report = analyze(self.design)
        return self.report

    def _run(self, out: Path, step: Callable[[int, int], bool]) -> None:
        key = self.format_key()
        ids = set(self.selection) if self.only_selection.isChecked() else None
        self._done_text = ""
        if key == "pdf":
            remember_page_size(self.page_size.currentText())
            write_pdf(
                out,
                self.design,
                self._ensure_report(),
                self.catalog,
                page_size=self.page_size.currentText(),
                sections=self.chosen_sections(),
                renderer=self.renderer(),
                ids=ids,
                progress=step,
                estimate=self.estimate,
            )
        elif key == "svg":
            write_svg(out, self.design, self.catalog, renderer=self.renderer(), ids=ids)
        elif key == "png":
            write_png(out, self.design, self.catalog, renderer=self.renderer(), ids=ids)
        elif key == "bom":
            write_bom_csv(self._ensure_report(), out, self.catalog)
        elif key == "cabling":
            write_cabling_csv(self.design, out, self.catalog, progress=step)
        elif key == "slurm":
            done = write_slurm_folder(self.design, out, self.catalog)
            self._done_text = _slurm_summary(out, done)
        elif key == "netbox":
            if out.exists() and not out.is_dir():
                raise ValueError(f"{out} is a file; the NetBox export is a folder")
            write_netbox_csvs(self.design, out, self.catalog)
        step(1, 1)


def _slurm_summary(out: Path, done: SlurmFolder) -> str:
    """What the Slurm folder holds, for the status line."""
    blocks = (
        f", {plural(done.blocks, 'block')} of {plural(done.block_sizes[0], 'host')}"
        if done.blocks and done.block_sizes
        else ""
    )
    return (
        f"Exported to {out}: {', '.join(done.files)}; "
        f"{plural(done.hosts, 'host')}{blocks}"
    )


def _with_suffix(text: str, suffix: str) -> str:
    """``text`` with its format suffix (one of FORMATS') swapped for ``suffix``
    (empty: a folder); a name without one (a folder ``pod-v1.2``) keeps its dots."""
    path = Path(text)
    if path.suffix.lower() in {f[2] for f in FORMATS if f[2]}:
        path = path.with_suffix("")
    return str(path.with_name(path.name + suffix))
