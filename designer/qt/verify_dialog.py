"""File > Verify As-Built...: a discovered InfiniBand fabric against the design.

The user picks ``ibnetdiscover`` output of the built (or simulated) fabric;
the dialog lists every difference :func:`designer.io.asbuilt.verify_fabric`
finds, as findings with an icon per severity, and marks the cables and
devices involved on the canvas (all of them on open, one item's when it is
clicked). The punch list is saved as CSV or as a PDF page for the technician.
A file that cannot be read is reported in the dialog with its line, as the
``verify`` command reports it.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import QMarginsF, QSizeF, Qt
from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from designer.core.model import Design
from designer.io.asbuilt import (
    AsBuiltReport,
    count_text,
    punch_list_csv,
    verify_fabric,
)
from designer.io.ibdiscovered import DiscoveredFileError, read_ibnetdiscover
from designer.qt.resources import icon

_IDS_ROLE = Qt.ItemDataRole.UserRole + 1
# an extra or wrong cable is an error; a slow link a warning; a device the
# design has but the file lacks may be switched off: a note
_SEVERITY = {
    "missing": "error",
    "swapped": "error",
    "unexpected": "error",
    "degraded": "warning",
    "unknown_device": "warning",
    "not_seen": "info",
}
# the "Show" choices: which kinds of item the list (and Mark on Canvas) holds
SHOW: dict[str, tuple[str, ...]] = {
    "All differences": tuple(_SEVERITY),
    "Cabling (missing, swapped, unexpected)": ("missing", "swapped", "unexpected"),
    "Links below design rate": ("degraded",),
    "Devices (unknown, not seen)": ("unknown_device", "not_seen"),
}
FILE_FILTER = "ibnetdiscover output (*.txt *.topo *.out *.net);;All files (*)"


class VerifyDialog(QDialog):
    """The punch list of one verification, wired to the window's canvas."""

    def __init__(
        self,
        design: Design,
        catalog: Any = None,
        select: Any = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Verify As-Built")
        self.setObjectName("verifyAsBuiltDialog")
        self.design = design
        self.catalog = catalog
        self._select = select
        self.report: AsBuiltReport | None = None
        self.error = ""
        self.summary = QLabel("Choose the ibnetdiscover output of the built fabric.")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.items = QListWidget()
        self.items.setObjectName("asBuiltItems")
        self.items.setWordWrap(True)
        self.items.setAlternatingRowColors(True)
        self.items.itemSelectionChanged.connect(self._mark_selected)
        self.show_kinds = QComboBox()
        self.show_kinds.setObjectName("asBuiltShow")
        self.show_kinds.addItems(list(SHOW))
        self.show_kinds.currentIndexChanged.connect(self._show_changed)
        self.open_button = QPushButton("&Open Discovered File…")
        self.open_button.clicked.connect(self.choose_file)
        self.mark_button = QPushButton("&Mark Shown on Canvas")
        self.mark_button.clicked.connect(self.mark_all)
        self.csv_button = QPushButton("Save Punch List as &CSV…")
        self.csv_button.clicked.connect(self._save_csv_dialog)
        self.pdf_button = QPushButton("Save Punch List as &PDF…")
        self.pdf_button.clicked.connect(self._save_pdf_dialog)
        row = QHBoxLayout()
        row.addWidget(QLabel("&Show:"))
        row.itemAt(0).widget().setBuddy(self.show_kinds)  # type: ignore[union-attr]
        row.addWidget(self.show_kinds)
        for b in (self.open_button, self.mark_button, self.csv_button, self.pdf_button):
            row.addWidget(b)
        row.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.items, 1)
        layout.addLayout(row)
        layout.addWidget(close)
        self.resize(980, 560)
        self._enable()

    # -- running ------------------------------------------------------------

    def choose_file(self) -> None:
        """Ask for the discovered file and verify it."""
        path, _ = QFileDialog.getOpenFileName(
            self, "Open ibnetdiscover Output", "", FILE_FILTER
        )
        if path:
            self.load(path)

    def load(self, path: str | Path) -> AsBuiltReport | None:
        """Verify ``path`` against the design; show the items (or the error)."""
        self.items.clear()
        self.report = None
        try:
            found = read_ibnetdiscover(path)
        except DiscoveredFileError as exc:
            self.error = str(exc)
            self.summary.setText(f"<b>Cannot use the file.</b> {html.escape(str(exc))}")
            self._enable()
            return None
        self.error = ""
        report = verify_fabric(self.design, found, self.catalog)
        self.report = report
        self._fill(report)
        self._enable()
        self.mark_all()
        return report

    def _fill(self, report: AsBuiltReport) -> None:
        if not report.fabrics:
            self.summary.setText("The design has no InfiniBand fabric to verify.")
            return
        counts = report.counts()
        head = (
            f"<b>{html.escape(Path(report.path).name)}</b> against fabric "
            f"{html.escape(', '.join(report.fabrics))}: "
            f"{report.matched_cables:,} of {report.designed_cables:,} designed "
            f"cables as designed, {report.seen_cables:,} cables seen."
        )
        if report.ok:
            self.summary.setText(head + " The fabric matches the design.")
            ok = QListWidgetItem(icon("ok"), "No differences: cabled as designed.")
            ok.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.items.addItem(ok)
            return
        parts = count_text(counts)
        self.summary.setText(
            f"{head}<br><b>{len(report.items):,} differences</b>: {parts}. "
            "Click an item to show it on the canvas."
        )
        self._refill()

    def _show_changed(self) -> None:
        self._refill()
        self.mark_all()

    def shown_kinds(self) -> tuple[str, ...]:
        """The kinds of item the list shows (the Show choice)."""
        return SHOW[self.show_kinds.currentText()]

    def _refill(self) -> None:
        report = self.report
        if report is None or report.ok or not report.fabrics:
            return
        self.items.clear()
        kinds = self.shown_kinds()
        shown = [i for i in report.items if i.kind in kinds]
        if not shown:
            none = QListWidgetItem(icon("ok"), "None of these.")
            none.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.items.addItem(none)
        for item in shown:
            ends = item.a.text() + (f"  ⟷  {item.b.text()}" if item.b else "")
            text = (
                f"{item.title}: {ends}\n    expected {item.expected}; "
                f"found {item.found}"
            )
            row = QListWidgetItem(icon(_SEVERITY[item.kind]), text)
            row.setData(_IDS_ROLE, [*item.links, *item.devices])
            row.setToolTip(item.message())
            self.items.addItem(row)

    def _enable(self) -> None:
        has = self.report is not None and bool(self.report.fabrics)
        for b in (self.csv_button, self.pdf_button):
            b.setEnabled(has)
        self.mark_button.setEnabled(
            has and not self.report.ok if self.report else False
        )

    # -- canvas ---------------------------------------------------------------

    def marked_ids(self) -> list[str]:
        """Every link and device the shown items of the punch list name."""
        if self.report is None:
            return []
        ids: dict[str, None] = {}
        kinds = self.shown_kinds()
        for item in self.report.items:
            if item.kind not in kinds:
                continue
            ids.update(dict.fromkeys((*item.links, *item.devices)))
        return list(ids)

    def mark_all(self) -> None:
        """Select every link and device the shown items name on the canvas."""
        ids = self.marked_ids()
        if ids and self._select is not None:
            self._select(ids)

    def _mark_selected(self) -> None:
        ids: list[str] = []
        for row in self.items.selectedItems():
            ids += row.data(_IDS_ROLE) or []
        if ids and self._select is not None:
            self._select(ids)

    # -- punch list -----------------------------------------------------------

    def _save_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save Punch List", "punch-list.csv", "CSV (*.csv)"
        )
        if path:
            self.save_csv(path)

    def _save_pdf_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save Punch List", "punch-list.pdf", "PDF (*.pdf)"
        )
        if path:
            self.save_pdf(path)

    def save_csv(self, path: str | Path) -> None:
        """Write the punch list as CSV."""
        assert self.report is not None
        Path(path).write_text(punch_list_csv(self.report), encoding="utf-8")

    def save_pdf(self, path: str | Path) -> None:
        """Write the punch list as a PDF page (landscape; more pages if long)."""
        assert self.report is not None
        write_punch_pdf(self.report, path, self.design.settings.name)


def punch_html(report: AsBuiltReport, title: str) -> str:
    """The punch list as an HTML table for the PDF page."""
    esc = html.escape
    rows = []
    for i, item in enumerate(report.items, start=1):
        cells = [str(i), item.title]
        for e in (item.a, item.b):
            if e is None:
                cells += ["", "", ""]
            else:
                port = "" if e.port <= 0 else f"{e.port} {e.port_name}".strip()
                where = e.rack + (f" U{e.u}" if e.u is not None else "")
                cells += [e.node, port, where]
        cells += [item.expected, item.found, "☐"]
        rows.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    heads = [
        "#",
        "Problem",
        "End A",
        "Port",
        "Rack / U",
        "End B",
        "Port",
        "Rack / U",
        "Expected",
        "Found",
        "Done",
    ]
    status = (
        "The fabric matches the design."
        if report.ok
        else f"{len(report.items):,} differences to fix."
    )
    return (
        "<html><body style='font-family: sans-serif; font-size: 7pt'>"
        f"<h2>Punch list: {esc(title)}</h2>"
        f"<p>Discovered file <b>{esc(report.path)}</b>, fabric "
        f"{esc(', '.join(report.fabrics))}: {report.matched_cables:,} of "
        f"{report.designed_cables:,} designed cables as designed, "
        f"{report.seen_cables:,} seen. {esc(status)} Devices matched by "
        "NodeDescription and port number (GUIDs are not compared).</p>"
        "<table border='1' cellspacing='0' cellpadding='2' width='100%'>"
        "<tr>"
        + "".join(f"<th>{esc(h)}</th>" for h in heads)
        + "</tr>"
        + "".join(rows)
        + "</table></body></html>"
    )


def write_punch_pdf(report: AsBuiltReport, path: str | Path, title: str) -> None:
    """The punch list on A4 landscape pages."""
    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageOrientation(QPageLayout.Orientation.Landscape)
    writer.setPageMargins(QMarginsF(10, 10, 10, 10), QPageLayout.Unit.Millimeter)
    writer.setResolution(96)  # the document's points map to the page as on screen
    writer.setTitle(f"Punch list: {title}")
    doc = QTextDocument()
    doc.setHtml(punch_html(report, title))
    rect = writer.pageLayout().paintRectPixels(writer.resolution())
    doc.setPageSize(QSizeF(rect.width(), rect.height()))
    doc.print_(writer)


def open_verify_dialog(window: Any, path: str | None = None) -> VerifyDialog:
    """Open the dialog for ``window``'s design (asking for a file unless given)."""
    dialog = VerifyDialog(
        window.document.design,
        getattr(window, "catalog", None),
        lambda ids: window.canvas.select_ids(ids),
        window,
    )
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    if path is not None:
        dialog.load(path)
    else:
        dialog.choose_file()
    return dialog
