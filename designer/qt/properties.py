"""Properties panel: edit the selected device, link, or the design settings.

Every edit is one command through the document, so it is one undo step. Link
edits are checked by the connection rules first (:mod:`designer.qt.link_properties`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from designer.catalog.hosts import DesignHosts, device_hostnames
from designer.catalog.loader import Catalog
from designer.core.commands import SetSettings
from designer.core.device_commands import UpdateDevices
from designer.core.document import Document
from designer.core.events import Event
from designer.core.formatting import plural, usd
from designer.core.hostnames import (
    DEFAULT_TRAY_RULE,
    compress_hostlist,
    render_tray_name,
    tray_rule_problem,
)
from designer.core.model import Device, Purpose
from designer.qt.link_properties import LinkEditor
from designer.view.catalog.specs import entry_specs

SCHEDULERS = ("", "Slurm", "Kubernetes", "Run:ai", "Base Command Manager", "LSF")


_TRAY_RULE_HELP = (
    "How the compute trays of an NVL72 rack are named in the Slurm, cabling,\n"
    "NetBox and InfiniBand exports: {rack} is the rack's hostname, {tray} the\n"
    "tray number ({tray:02} pads it to 2 digits)."
)

_SHRINK = QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon


def _title(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("sectionTitle")
    return label


class _OnDemandTip(QLineEdit):
    """A line edit whose tooltip is worked out when it is shown (or read),
    not on every edit of the design."""

    def __init__(self, tip: Callable[[], str]) -> None:
        super().__init__()
        self._tip = tip

    def toolTip(self) -> str:
        """The tooltip as it would show now."""
        return self._tip()

    def event(self, e: QEvent) -> bool:
        """Show the tooltip worked out now."""
        if e.type() == QEvent.Type.ToolTip and isinstance(e, QHelpEvent):
            QToolTip.showText(e.globalPos(), self._tip(), self)
            return True
        return super().event(e)


class PropertiesPanel(QWidget):
    """Shows the selection's editable fields (or the design settings when empty).

    ``edit_refused(reason)`` fires when the connection rules refuse a link edit.
    """

    edit_refused = Signal(str)

    def __init__(
        self, document: Document, catalog: Catalog, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self.selection: list[str] = []
        self.stack = QStackedWidget()
        self._build_design_page()
        self._build_device_page()
        self._build_link_page()
        self._build_multi_page()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.stack)
        document.subscribe(self._on_changes)
        self.show_selection([])

    # --- pages ---------------------------------------------------------------

    def _build_design_page(self) -> None:
        page = QWidget()
        form = QFormLayout(page)
        form.addRow(_title("Design settings"))
        self.name_edit = QLineEdit()
        self.purpose_combo = QComboBox()
        for p in Purpose:
            self.purpose_combo.addItem(p.value.capitalize(), p.value)
        self.scheduler_combo = QComboBox()
        self.scheduler_combo.setEditable(True)
        self.scheduler_combo.addItems(list(SCHEDULERS))
        for combo in (self.scheduler_combo, self.purpose_combo):
            combo.setSizeAdjustPolicy(_SHRINK)
            combo.setMinimumContentsLength(8)
        self.monitoring_edit = QLineEdit()
        self.monitoring_edit.setPlaceholderText("e.g. Prometheus, Grafana, DCGM")
        form.addRow("Name", self.name_edit)
        form.addRow("Purpose", self.purpose_combo)
        form.addRow("Scheduler", self.scheduler_combo)
        form.addRow("Monitoring", self.monitoring_edit)
        self._tray_problem: str | None = None
        self.tray_rule_edit = _OnDemandTip(self._tray_tooltip)
        self.tray_rule_edit.setPlaceholderText(DEFAULT_TRAY_RULE)
        form.addRow("Tray hostnames", self.tray_rule_edit)
        form.addRow(_title("Price overrides (USD per unit)"))
        self.price_table = QTableWidget(0, 2)
        self.price_table.setHorizontalHeaderLabels(["Catalog id", "USD"])
        self.price_table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.Stretch
        )
        self.price_table.verticalHeader().setVisible(False)
        self.price_table.setMinimumHeight(70)
        self.price_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        form.addRow(self.price_table)
        self.price_id_combo = QComboBox()
        self.price_id_combo.addItems(sorted(self.catalog))
        self.price_id_combo.setSizeAdjustPolicy(_SHRINK)
        self.price_id_combo.setMinimumContentsLength(8)
        self.price_spin = QDoubleSpinBox()
        self.price_spin.setRange(0, 1e9)
        self.price_spin.setDecimals(0)
        self.price_spin.setSingleStep(1000)
        self.price_spin.setPrefix("$ ")
        self.price_spin.setGroupSeparatorShown(True)
        self.price_spin.setMinimumWidth(96)  # its hint fits $1,000,000,000
        add = QPushButton("Set override")
        remove = QPushButton("Remove selected")
        # Two short rows, not one long one: the left column stays narrow at 1280 px.
        form.addRow("Catalog id", self.price_id_combo)
        form.addRow("Unit price", self.price_spin)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(add)
        row.addWidget(remove)
        form.addRow(row)
        self.name_edit.editingFinished.connect(self._commit_settings)
        self.monitoring_edit.editingFinished.connect(self._commit_settings)
        self.tray_rule_edit.editingFinished.connect(self._commit_tray_rule)
        self.purpose_combo.activated.connect(self._commit_settings)
        self.scheduler_combo.activated.connect(self._commit_settings)
        scheduler_text = self.scheduler_combo.lineEdit()
        assert scheduler_text is not None  # the combo box is editable
        scheduler_text.editingFinished.connect(self._commit_settings)
        self.price_id_combo.currentTextChanged.connect(self._show_unit_price)
        self._show_unit_price(self.price_id_combo.currentText())
        add.clicked.connect(self._set_price_override)
        remove.clicked.connect(self._remove_price_override)
        self.design_page = page
        self.stack.addWidget(page)

    def _build_device_page(self) -> None:
        page = QWidget()
        form = QFormLayout(page)
        form.addRow(_title("Device"))
        self.device_id_label = QLabel()
        self.device_id_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.label_edit = QLineEdit()
        self.model_combo = QComboBox()
        self.group_combo = QComboBox()
        self.device_info = QLabel()
        self.device_info.setWordWrap(True)
        self.device_info.setObjectName("hint")
        form.addRow("Id", self.device_id_label)
        form.addRow("Label", self.label_edit)
        form.addRow("Model", self.model_combo)
        form.addRow("Group", self.group_combo)
        form.addRow(self.device_info)
        self.label_edit.editingFinished.connect(self._commit_label)
        self.model_combo.activated.connect(self._commit_model)
        self.group_combo.activated.connect(self._commit_group)
        self.device_page = page
        self.stack.addWidget(page)

    def _build_link_page(self) -> None:
        self.link_editor = LinkEditor(self.document, self.catalog)
        self.link_editor.edit_refused.connect(self.edit_refused)
        # the link page's widgets, by the names the panel has always used
        self.link_ends = self.link_editor.link_ends
        self.cables_spin = self.link_editor.cables_spin
        self.speed_combo = self.link_editor.speed_combo
        self.fabric_combo = self.link_editor.fabric_combo
        self.link_page = self.link_editor
        self.stack.addWidget(self.link_editor)

    def _build_multi_page(self) -> None:
        page = QWidget()
        form = QFormLayout(page)
        self.multi_label = QLabel()
        self.multi_label.setObjectName("sectionTitle")
        self.multi_group_combo = QComboBox()
        form.addRow(self.multi_label)
        form.addRow("Group", self.multi_group_combo)
        self.multi_group_combo.activated.connect(self._commit_multi_group)
        self.multi_page = page
        self.stack.addWidget(page)

    # --- showing -------------------------------------------------------------

    def set_document(self, document: Document) -> None:
        """Edit another document."""
        self.document.unsubscribe(self._on_changes)
        self.document = document
        self.link_editor.set_document(document)
        document.subscribe(self._on_changes)
        self.show_selection([])

    def show_selection(self, ids: list[str]) -> None:
        """Show the fields of the selected ids (device ids and/or link ids)."""
        self.selection = list(ids)
        self.refresh()

    def _on_changes(self, events: list[Event]) -> None:
        self.refresh()

    def _selected(self) -> tuple[list[Device], list[str]]:
        if not self.selection:
            return [], []
        design = self.document.design
        wanted = set(self.selection)
        devices = [d for d in design.devices if d.id in wanted]
        known = design.links.id_set()
        links = [i for i in self.selection if i in known]
        return devices, links

    def refresh(self) -> None:
        """Re-read the model into the visible page (no commands are issued)."""
        devices, links = self._selected()
        if len(devices) == 1 and not links:
            self._fill_device(devices[0])
            self.stack.setCurrentWidget(self.device_page)
        elif len(links) == 1 and not devices:
            self.link_editor.show_link(links[0])
            self.stack.setCurrentWidget(self.link_page)
        elif devices or links:
            self.multi_label.setText(
                f"{plural(len(devices), 'device')} and "
                f"{plural(len(links), 'link')} selected"
            )
            self._fill_group_combo(self.multi_group_combo, None)
            self.multi_group_combo.setEnabled(bool(devices))
            self.stack.setCurrentWidget(self.multi_page)
        else:
            self._fill_design()
            self.stack.setCurrentWidget(self.design_page)

    def _fill_group_combo(self, combo: QComboBox, current: str | None) -> None:
        combo.blockSignals(True)
        combo.clear()
        combo.addItem("(none)", "")
        for g in self.document.design.groups:
            combo.addItem(f"{g.label or g.id} [{g.kind.value}]", g.id)
        combo.setCurrentIndex(max(0, combo.findData(current or "")))
        combo.blockSignals(False)

    def _fill_device(self, device: Device) -> None:
        entry = self.catalog.get(device.catalog_id)
        self.device_id_label.setText(device.id)
        self.label_edit.blockSignals(True)
        self.label_edit.setText(device.label)
        self.label_edit.blockSignals(False)
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        for slug in self.compatible_models(device):
            e = self.catalog[slug]
            self.model_combo.addItem(f"{e.model} ({slug})", slug)
        if self.model_combo.findData(device.catalog_id) < 0:
            self.model_combo.addItem(
                f"{device.catalog_id} (unknown)", device.catalog_id
            )
        self.model_combo.setCurrentIndex(self.model_combo.findData(device.catalog_id))
        self.model_combo.blockSignals(False)
        self._fill_group_combo(self.group_combo, device.group)
        if entry is None:
            self.device_info.setText("Not in the catalog.")
        else:
            price = usd(entry.ext.price.usd) + (
                " (estimate)" if entry.ext.price.estimate else ""
            )
            tier = f" · tier {device.tier.value}" if device.tier else ""
            hosts = DesignHosts(self.document.design, self.catalog)
            mine = hosts.of_device(device.id)
            host = ""
            if len(mine) > 1:
                host = (
                    f"\nHosts: {compress_hostlist(h.name for h in mine)} "
                    f"({len(mine)} trays, {plural(mine[0].gpus, 'GPU')} each)"
                )
            elif mine:
                host = f"\nHost: {mine[0].name}"
            self.device_info.setText(
                f"{entry_specs(entry)}{tier}\n{entry.u_height:g} U · {price}{host}"
            )

    def compatible_models(self, device: Device) -> list[str]:
        """Catalog ids the device can become: same category, keeps linked ports."""
        entry = self.catalog.get(device.catalog_id)
        if entry is None:
            return []
        table = self.document.design.links
        used: set[str] = set()
        for a, ap, b, bp in zip(
            table.a, table.a_port, table.b, table.b_port, strict=True
        ):
            if a == device.id:
                used.add(ap)
            if b == device.id:
                used.add(bp)
        return [
            e.slug
            for e in self.catalog.by_category(entry.category)
            if all(e.interface(p) is not None for p in used)
        ]

    def _fill_design(self) -> None:
        s = self.document.design.settings
        for widget in (self.name_edit, self.monitoring_edit):
            widget.blockSignals(True)
        self.name_edit.setText(s.name)
        self.name_edit.setCursorPosition(0)
        self.monitoring_edit.setText(", ".join(s.monitoring))
        for widget in (self.name_edit, self.monitoring_edit):
            widget.blockSignals(False)
        self.purpose_combo.blockSignals(True)
        self.purpose_combo.setCurrentIndex(self.purpose_combo.findData(s.purpose.value))
        self.purpose_combo.blockSignals(False)
        self.scheduler_combo.blockSignals(True)
        self.scheduler_combo.setEditText(s.scheduler or "")
        self.scheduler_combo.blockSignals(False)
        self.tray_rule_edit.blockSignals(True)
        self.tray_rule_edit.setText(s.tray_hostnames)
        self.tray_rule_edit.blockSignals(False)
        self._show_tray_example()
        self.price_table.setRowCount(len(s.price_overrides))
        for row, (slug, price) in enumerate(sorted(s.price_overrides.items())):
            self.price_table.setItem(row, 0, QTableWidgetItem(slug))
            self.price_table.setItem(row, 1, QTableWidgetItem(f"{price:,.0f}"))

    # --- committing ----------------------------------------------------------

    def _one_device(self) -> Device | None:
        devices, links = self._selected()
        return devices[0] if len(devices) == 1 and not links else None

    def _update_device(self, fields: dict[str, object], label: str) -> None:
        device = self._one_device()
        if device is None:
            return
        if all(getattr(device, k) == v for k, v in fields.items()):
            return
        self.document.execute(
            UpdateDevices({device.id: fields}, label=label, lookup=self.catalog)
        )

    def _device_name(self) -> str:
        device = self._one_device()
        return (device.label or device.id) if device is not None else "device"

    def _commit_label(self) -> None:
        new = self.label_edit.text().strip()
        self._update_device({"label": new}, f"Rename {self._device_name()} to {new}")

    def _commit_model(self) -> None:
        slug = str(self.model_combo.currentData())
        entry = self.catalog.get(slug)
        model = entry.model if entry is not None else slug
        self._update_device(
            {"catalog_id": slug}, f"Swap {self._device_name()} to {model}"
        )

    def _commit_group(self) -> None:
        group = self.group_combo.currentData() or None
        where = f"to {self.group_combo.currentText()}" if group else "out of its group"
        self._update_device({"group": group}, f"Move {self._device_name()} {where}")

    def _commit_multi_group(self) -> None:
        devices, _ = self._selected()
        group = self.multi_group_combo.currentData() or None
        updates: dict[str, dict[str, object]] = {
            d.id: {"group": group} for d in devices if d.group != group
        }
        if updates:
            self.document.execute(UpdateDevices(updates, label="Change group"))

    def _commit_settings(self) -> None:
        old = self.document.design.settings
        monitoring = [
            m.strip() for m in self.monitoring_edit.text().split(",") if m.strip()
        ]
        new = old.model_copy(
            update={
                "name": self.name_edit.text().strip() or old.name,
                "purpose": Purpose(self.purpose_combo.currentData()),
                "scheduler": self.scheduler_combo.currentText().strip() or None,
                "monitoring": monitoring,
            }
        )
        if new != old:
            self.document.execute(SetSettings(new))

    def _show_tray_example(self, problem: str | None = None) -> None:
        """Say ``problem`` (the last rule typed was refused), or the example
        again, in the rule's tooltip."""
        self._tray_problem = problem

    def _tray_tooltip(self) -> str:
        """The rule's tooltip: what it is, its names for the design's first
        rack, or why the last rule typed was refused. Worked out when shown:
        finding the first rack and its hostname reads every device."""
        if self._tray_problem is not None:
            return f"{_TRAY_RULE_HELP}\nNot changed: {self._tray_problem}"
        design = self.document.design
        rule = design.settings.tray_hostnames
        rack = None
        for d in design.devices:
            entry = self.catalog.get(d.catalog_id)
            if entry is not None and entry.ext.trays is not None:
                rack = (d, entry.ext.trays.count)
                break
        if rack is None:
            name = render_tray_name(rule, "nvl72-0001", 1)
            return f"{_TRAY_RULE_HELP}\ne.g. {name} (no NVL72 rack in the design)"
        device, count = rack
        own = device_hostnames(design, self.catalog).get(device.id, device.id)
        first = render_tray_name(rule, own, 1)
        last = render_tray_name(rule, own, count)
        return f"{_TRAY_RULE_HELP}\ne.g. {first} ... {last} ({count} trays a rack)"

    def _commit_tray_rule(self) -> None:
        old = self.document.design.settings
        rule = self.tray_rule_edit.text().strip() or DEFAULT_TRAY_RULE
        problem = tray_rule_problem(rule)
        if problem is not None:
            self.tray_rule_edit.blockSignals(True)
            self.tray_rule_edit.setText(old.tray_hostnames)
            self.tray_rule_edit.blockSignals(False)
            self._show_tray_example(problem)
            self.edit_refused.emit(problem)
            return
        if rule != old.tray_hostnames:
            self.document.execute(
                SetSettings(old.model_copy(update={"tray_hostnames": rule}))
            )
        else:
            self._show_tray_example()

    def _show_unit_price(self, slug: str) -> None:
        """Start from the current override, or the catalog price."""
        entry = self.catalog.get(slug)
        override = self.document.design.settings.price_overrides.get(slug)
        if override is not None:
            self.price_spin.setValue(override)
        elif entry is not None:
            self.price_spin.setValue(entry.ext.price.usd)

    def _set_price_override(self) -> None:
        old = self.document.design.settings
        slug = self.price_id_combo.currentText()
        overrides = {**old.price_overrides, slug: float(self.price_spin.value())}
        if overrides != old.price_overrides:
            self.document.execute(
                SetSettings(
                    old.model_copy(update={"price_overrides": overrides}),
                    label=f"Override price of {slug}",
                )
            )

    def _remove_price_override(self) -> None:
        row = self.price_table.currentRow()
        item = self.price_table.item(row, 0) if row >= 0 else None
        if item is None:
            return
        old = self.document.design.settings
        overrides = {k: v for k, v in old.price_overrides.items() if k != item.text()}
        self.document.execute(
            SetSettings(
                old.model_copy(update={"price_overrides": overrides}),
                label=f"Remove price override of {item.text()}",
            )
        )
