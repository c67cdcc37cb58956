"""The live validator panel: the analysis report's numbers and findings."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from designer.analysis.report import Report, Severity
from designer.core import formatting as fmt
from designer.core.model import Tier
from designer.qt.resources import icon
from designer.view.canvas.context_actions import findings_naming

_ITEMS_ROLE = Qt.ItemDataRole.UserRole
_NONE_NAMED = "No finding names the selected items."
_NO_FINDINGS = "No findings: the design checks out."

COMPUTED_NOTE = "hardware build-up only: excludes facility, power and support"
TYPICAL_NOTE = "all-in rule of thumb: includes facility, power and support"


def bisection_text(report: Report) -> str:
    """Bisection as "51.2 Tb/s · ratio 1.00 · exact" or with its bounds."""
    b = report.bisection
    if not report.compute_nodes:
        return "– (no compute nodes)"
    if b.exact:
        how = "exact"
    else:
        how = f"bound: {fmt.gbps(b.lower_gbps)}–{fmt.gbps(b.upper_gbps)}"
    if b.ratio is None:
        return f"{fmt.gbps(b.gbps)} · no ratio (one compute node)"
    return f"{fmt.gbps(b.gbps)} · ratio {b.ratio:.2f} · {how}"


def oversubscription_text(report: Report) -> str:
    """Per-tier down:up ratios, leaf first."""
    if not report.oversubscription:
        return "no switch tiers"
    parts = [
        f"{tier} {fmt.ratio(r)}" if r is not None else f"{tier} (top tier)"
        for tier, r in _tiers_in_order(report)
    ]
    return " · ".join(parts)


def _tiers_in_order(report: Report) -> list[tuple[str, float | None]]:
    return sorted(report.oversubscription.items(), key=lambda kv: Tier.order_key(kv[0]))


def oversubscription_tip(report: Report) -> str:
    """The exact down:up ratios behind the text (which rounds near 1:1)."""
    exact = [
        f"{tier} {fmt.ratio_exact(r)}"
        for tier, r in _tiers_in_order(report)
        if r is not None
    ]
    if not exact:
        return ""
    tol = f"{fmt.NON_BLOCKING_TOLERANCE:.0%}"
    return (
        "Down:up capacity per tier: " + ", ".join(exact) + f". Within {tol} of "
        "1:1 reads non-blocking (one UFM or head-node port on a leaf moves the "
        "ratio by less than that)."
    )


class ValidatorPanel(QWidget):
    """Metrics and findings of the latest report.

    Signals: ``finding_activated(items)`` when a finding is clicked,
    ``cut_toggled(bool)`` when "Show bisection cut" changes.
    """

    finding_activated = Signal(list)
    cut_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: Report | None = None
        self.state = QLabel("Waiting for the first analysis…")
        self._refining = False
        self._seconds: float | None = None
        self.state.setObjectName("hint")
        # "Up to date (analysed in 211 ms) · refining bisection bounds…" or a
        # failure's message is wider than a laptop's dock: it wraps, or it
        # would widen the metrics beside it past the dock (cut, a side scroll)
        self.state.setWordWrap(True)
        self.values: dict[str, QLabel] = {}
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(3)
        rows = (
            ("gpus", "GPUs"),
            ("switches", "Switches"),
            ("cables", "Cables"),
            ("bisection", "Bisection"),
            ("oversub", "Oversubscription"),
            ("cost", "Cost"),
            ("breakdown", ""),
            ("typical", "Tier typical"),
            ("power", "Power"),
            ("rack_units", "Rack space"),
            ("tier", "Tier class"),
            ("tier_reason", ""),
        )
        for row, (key, title) in enumerate(rows):
            name = QLabel(title)
            name.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            value = QLabel("–")
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setObjectName("metricValue" if title else "hint")
            if key == "cables":
                tip = fmt.CABLE_LANES_NOTE[0].upper() + fmt.CABLE_LANES_NOTE[1:]
                name.setToolTip(f"{tip} (the NetBox export counts physical cables)")
            grid.addWidget(name, row, 0)
            grid.addWidget(value, row, 1)
            self.values[key] = value
        self.values["tier"].setObjectName("tierName")
        grid.setColumnStretch(1, 1)
        self.cut_check = QCheckBox("Show bisection cut on the canvas")
        self.cut_check.toggled.connect(self.cut_toggled)
        self.findings_title = QLabel("Findings")
        self.findings_title.setObjectName("sectionTitle")
        self.findings = QListWidget()
        self.findings.setObjectName("findings")
        self.findings.setWordWrap(True)
        self.findings.setMinimumHeight(90)
        #: what each row of the findings list shows (see ``_fill_findings``)
        self._listed: list[tuple[object, ...]] = []
        self.findings.itemClicked.connect(self._on_finding_clicked)
        self.findings.itemActivated.connect(self._on_finding_clicked)

        body = QWidget()
        inner = QVBoxLayout(body)
        inner.setContentsMargins(6, 4, 6, 4)
        inner.addWidget(self.state)
        inner.addLayout(grid)
        inner.addWidget(self.cut_check)
        inner.addStretch(0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(body)
        self.metrics_area = scroll
        self._body = body
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # The metrics take what they need (scrolling when the dock is short); the
        # findings list gets the rest instead of a blank gap above it.
        layout.addWidget(scroll, 0)
        layout.addWidget(self.findings_title)
        layout.addWidget(self.findings, 1)

    def _fit_metrics(self) -> None:
        """Cap the metrics area at the height its text needs at the current width."""
        width = self.metrics_area.viewport().width() or self.width()
        layout = self._body.layout()
        need = -1
        if layout is not None and layout.hasHeightForWidth():
            need = layout.heightForWidth(width)
        if need <= 0:
            need = self._body.sizeHint().height()
        # Leave the findings list at least ~130 px; below that the metrics scroll.
        room = self.height() - self.findings_title.sizeHint().height() - 130
        self.metrics_area.setMinimumHeight(max(120, min(need + 2, room)))
        self.metrics_area.setMaximumHeight(max(120, need + 2))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Re-fit the metrics area: wrapped lines change with the width."""
        super().resizeEvent(event)
        self._fit_metrics()

    def set_busy(self) -> None:
        """Say that an analysis is running (the shown numbers are from before)."""
        self.state.setText("Analysing…")

    def set_failed(self, message: str) -> None:
        """Say that the analysis failed, and why."""
        self.state.setText(f"Analysis failed: {message}")

    def set_refining(self, on: bool) -> None:
        """Say whether the bisection bounds shown are being refined."""
        self._refining = on
        self.state.setText(self._state_text())

    def _state_text(self) -> str:
        took = f" in {self._seconds * 1000:.0f} ms" if self._seconds is not None else ""
        more = " · refining bisection bounds…" if self._refining else ""
        return f"Up to date (analysed{took}){more}"

    def show_report(self, report: Report, seconds: float | None = None) -> None:
        """Fill every field from ``report``."""
        self.report = report
        v = self.values
        self._seconds = seconds
        self.state.setText(self._state_text())
        domains = (
            f"{fmt.plural(report.nvlink_domains, 'NVLink domain')} of "
            f"{report.nvlink_domain_size}"
            if report.nvlink_domain_size > 1
            else "PCIe GPUs (no NVLink domain)"
        )
        v["gpus"].setText(
            f"{report.gpus:,} in {fmt.plural(report.compute_nodes, 'node')} · {domains}"
            if report.compute_nodes
            else "none yet: drag a server from the catalog, or use "
            "File > New from Template"
        )
        sw = report.switches
        total_sw = sum(sw.values())
        v["switches"].setText(
            f"{total_sw:,}" + (f" ({fmt.switch_counts(sw)})" if total_sw else "")
        )
        v["switches"].setToolTip(fmt.OFF_PATH_NOTE if sw.get("compute") else "")
        cables = {f: n for f, n in report.cables.items() if n}
        v["cables"].setText(
            f"{sum(cables.values()):,}"
            + (" (" + ", ".join(f"{n:,} {f}" for f, n in cables.items()) + ")")
            * bool(cables)
            + f" · {fmt.plural(report.transceivers, 'transceiver')}"
        )
        v["bisection"].setText(bisection_text(report))
        v["bisection"].setToolTip(
            f"Full (non-blocking) would be {fmt.gbps(report.bisection.full_gbps)}.\n"
            f"{report.bisection.method}"
        )
        v["oversub"].setText(oversubscription_text(report))
        v["oversub"].setToolTip(oversubscription_tip(report))
        cost = report.cost_usd
        per_gpu = f" · {fmt.usd(cost.per_gpu)}/GPU" if cost.per_gpu else ""
        estimated = any(line.estimate for line in cost.lines)
        v["cost"].setText(
            f"{fmt.usd(cost.total)}{per_gpu}" + (" (estimate)" if estimated else "")
        )
        v["breakdown"].setText(
            f"compute {fmt.usd(cost.compute)} · switches {fmt.usd(cost.fabric)} · "
            f"cables+optics {fmt.usd(cost.cables_optics)} · storage "
            f"{fmt.usd(cost.storage)} · management {fmt.usd(cost.management)}\n"
            f"({COMPUTED_NOTE})"
        )
        lo, hi = report.tier.typical_cost_usd
        v["typical"].setText(f"{fmt.usd_range(lo, hi)} ({TYPICAL_NOTE})")
        v["typical"].setToolTip(report.tier.typical_cost_note)
        v["power"].setText(f"{report.power_kw:,.1f} kW (max, IT load)")
        racks = f" · {fmt.plural(report.racks, 'rack')}" if report.racks else ""
        v["rack_units"].setText(f"{report.rack_units:,.0f} U{racks}")
        v["tier"].setText(report.tier.name)
        v["tier_reason"].setText(report.tier.reason)
        self._fill_findings(report)
        self._fit_metrics()

    def _fill_findings(self, report: Report) -> None:
        # Row by row: a row whose finding is the same stays as it is (and
        # selected, if it was). Clearing and refilling a word-wrapped list would
        # lay out and paint every row anew, twice (its layout is deferred), on
        # every edit.
        counts = {s: 0 for s in Severity}
        rows: list[tuple[object, ...]] = []
        for f in report.findings:
            counts[f.severity] += 1
            rows.append((f.severity.value, f.message, tuple(f.items), f.code))
        if not report.findings:
            rows.append(("ok", _NO_FINDINGS, None, None))
        first = self.findings.item(0)
        if first is not None and first.text() == _NONE_NAMED:
            self.findings.takeItem(0)  # Show in Validator's note: a new report
        listed = self._listed
        for k, row in enumerate(rows):
            if k < len(listed) and listed[k] == row:
                continue
            item = _finding_item(row)
            if k < self.findings.count():
                self.findings.takeItem(k)
            self.findings.insertItem(k, item)
        while self.findings.count() > len(rows):
            self.findings.takeItem(len(rows))
        if rows != listed:
            # laid out now, not at the list's next timer: the rows are then
            # painted once, with the panel, instead of again after it
            self.findings.doItemsLayout()
        self._listed = rows
        self.findings_title.setText(
            f"Findings: {fmt.plural(counts[Severity.ERROR], 'error')}, "
            f"{fmt.plural(counts[Severity.WARNING], 'warning')}, "
            f"{fmt.plural(counts[Severity.INFO], 'note')}"
        )

    def show_items(self, ids: list[str]) -> int:
        """Select the findings that name any of ``ids`` (the canvas's Show in
        Validator); say so in the list when none does. Returns how many."""
        listed = [self.findings.item(k) for k in range(self.findings.count())]
        rows = [
            k
            for k, item in enumerate(listed)
            if item.data(_ITEMS_ROLE) is not None and item.text() != _NONE_NAMED
        ]
        named = findings_naming([listed[k].data(_ITEMS_ROLE) for k in rows], ids)
        self.findings.clearSelection()
        model = self.findings.selectionModel()
        for k in (rows[i] for i in named):
            # through the model: the list's single-selection mode would keep
            # only the last one
            model.select(
                self.findings.indexFromItem(listed[k]),
                QItemSelectionModel.SelectionFlag.Select,
            )
        if named:
            self.findings.scrollToItem(listed[rows[named[0]]])
        elif not listed or listed[0].text() != _NONE_NAMED:
            note = QListWidgetItem(_NONE_NAMED)
            note.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.findings.insertItem(0, note)
            self.findings.scrollToTop()
        return len(named)

    def _on_finding_clicked(self, item: QListWidgetItem) -> None:
        items = item.data(_ITEMS_ROLE)
        if items:
            self.finding_activated.emit(list(items))


def _finding_item(row: tuple[object, ...]) -> QListWidgetItem:
    """A row of the findings list: (icon name, message, items named, code);
    no code for the row that says there are no findings."""
    name, message, items, code = row
    item = QListWidgetItem(icon(str(name)), str(message))
    if code is None:
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        return item
    named = list(items)  # type: ignore[call-overload]
    item.setData(_ITEMS_ROLE, named)
    item.setToolTip(
        f"[{code}] {message}"
        + (f"\n{fmt.plural(len(named), 'item')}: click to select" if named else "")
    )
    return item
