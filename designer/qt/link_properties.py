"""The link page of the Properties panel: ports, cables, speed and fabric of one link.

Every edit is checked by the connection rules before its command runs
(:func:`designer.core.checks.check_link_update`): a refused edit leaves the model
as it was, puts the widget back and shows the rules' reason, the same text the
canvas gives for the same link. The Ports table shows the port every cable is
pinned to at both ends (:mod:`designer.core.pins`) and lets the user move a
cable to another port; a port another link holds is offered with its holder's
name and refused with the reason paste, the CLI and the loader give. The
widgets offer only what
:func:`designer.core.checks.link_limits` allows (the cables spin box stops at the
ports free at both ends); asking for more than that (the up arrow at the
maximum, a larger number typed) is answered with the reason too.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QWidget,
)

from designer.catalog.loader import Catalog
from designer.core.checks import LinkLimits, check_link_update, link_limits
from designer.core.document import Document
from designer.core.errors import ConnectionRefused
from designer.core.link_commands import UpdateLink
from designer.core.model import Fabric, Link
from designer.core.occupancy import port_choices

MAX_CABLES = 100_000
"""The spin box's range when the hardware is unknown (no limits to read)."""

MAX_PIN_ROWS = 32
"""Cables whose ports the table lets the user choose (a bigger bundle lists
the first ones; the cabling plan has them all)."""

NO_PORT_TEXT = "(no free port)"

_SHRINK = QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon


class CablesSpinBox(QSpinBox):
    """A spin box that reports a value asked for above its maximum.

    Qt silently refuses such a value; here the up arrow stays enabled at the
    maximum and ``exceeded(value)`` fires (for an arrow step or a typed number)
    so the panel can say why the link cannot have that many cables.
    """

    exceeded = Signal(int)

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        """Up stays enabled at the maximum: pressing it explains the limit."""
        return super().stepEnabled() | QAbstractSpinBox.StepEnabledFlag.StepUpEnabled

    def stepBy(self, steps: int) -> None:
        """Step, or report the value past the maximum instead of clamping."""
        wanted = self.value() + steps
        if steps > 0 and wanted > self.maximum():
            self.exceeded.emit(wanted)
            return
        super().stepBy(steps)

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        """A number above the maximum may be typed (answered at Enter)."""
        number = _number(text)
        if number is not None and number > self.maximum():
            return QValidator.State.Intermediate, text, pos
        return super().validate(text, pos)

    def fixup(self, text: str) -> str:
        """Called at Enter or focus-out with a too-large number: report it."""
        number = _number(text)
        if number is not None and number > self.maximum():
            self.exceeded.emit(number)
        return super().fixup(text)


def _number(text: str) -> int | None:
    try:
        return int(text.strip().replace(",", ""))
    except ValueError:
        return None


class LinkEditor(QWidget):
    """Form for one link; ``edit_refused(reason)`` fires when the rules say no."""

    edit_refused = Signal(str)

    def __init__(
        self, document: Document, catalog: Catalog, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self.link_id: str | None = None
        self.limits: LinkLimits | None = None
        self._note_for: str | None = None
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.form = form
        title = QLabel("Link")
        title.setObjectName("sectionTitle")
        form.addRow(title)
        self.link_ends = QLabel()
        self.link_ends.setWordWrap(True)
        self.a_port_combo = QComboBox()
        self.b_port_combo = QComboBox()
        self.cables_spin = CablesSpinBox()
        self.cables_spin.setRange(1, MAX_CABLES)
        self.cables_spin.setKeyboardTracking(False)
        self.cables_hint = QLabel()
        self.cables_hint.setObjectName("hint")
        self.cables_hint.setWordWrap(True)
        self.speed_combo = QComboBox()
        self.fabric_combo = QComboBox()
        for combo in (self.a_port_combo, self.b_port_combo):
            combo.setSizeAdjustPolicy(_SHRINK)
            combo.setMinimumContentsLength(8)
        self.note = QLabel()
        self.note.setObjectName("refusal")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("QLabel#refusal { color: #b3261e; }")
        self.note.hide()
        form.addRow("Ends", self.link_ends)
        form.addRow("Port A", self.a_port_combo)
        form.addRow("Port B", self.b_port_combo)
        form.addRow("Cables", self.cables_spin)
        form.addRow("", self.cables_hint)
        form.addRow("Speed", self.speed_combo)
        form.addRow("Fabric", self.fabric_combo)
        self.pins_table = QTableWidget(0, 2)
        self.pins_table.setObjectName("linkPins")
        self.pins_table.setHorizontalHeaderLabels(["Port at A", "Port at B"])
        self.pins_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.Stretch
        )
        self.pins_table.horizontalHeader().setTextElideMode(
            Qt.TextElideMode.ElideMiddle
        )
        self.pins_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.pins_table.setMaximumHeight(180)
        self.pins_hint = QLabel()
        self.pins_hint.setObjectName("hint")
        self.pins_hint.setWordWrap(True)
        form.addRow("Ports", self.pins_table)
        form.addRow("", self.pins_hint)
        form.addRow(self.note)
        self.cables_spin.valueChanged.connect(self._commit_cables)
        self.cables_spin.exceeded.connect(self._commit_cables)
        self.speed_combo.activated.connect(self._commit_speed)
        self.fabric_combo.activated.connect(self._commit_fabric)
        self.a_port_combo.activated.connect(lambda _=0: self._commit_port("a"))
        self.b_port_combo.activated.connect(lambda _=0: self._commit_port("b"))

    # --- showing -------------------------------------------------------------

    def set_document(self, document: Document) -> None:
        """Edit links of another document."""
        self.document = document
        self.link_id = None
        self._show_note("")

    def show_link(self, link_id: str) -> None:
        """Fill the form from the model (a refusal note stays for the same link)."""
        design = self.document.design
        link = design.links.get(link_id)
        assert link is not None
        if link_id != self._note_for:
            self._show_note("")
        self.link_id = link_id
        try:
            self.limits = link_limits(design, link_id, self.catalog)
        except ConnectionRefused:
            self.limits = None  # unknown hardware: the widgets are not bounded
        self.link_ends.setText(f"{link.a}:{link.a_port}  ↔  {link.b}:{link.b_port}")
        self._fill_ports(link)
        self._fill_cables(link)
        self._fill_speeds(link)
        self._fill_fabrics(link)
        self._fill_pins(link)

    def _fill_pins(self, link: Link) -> None:
        """One row per cable: the port it is pinned to at each end, a choice."""
        design = self.document.design
        table = self.pins_table
        rows = min(link.cables, MAX_PIN_ROWS)
        table.setRowCount(rows)
        # the ends' names alone (the column is narrow in a 1280x800 window);
        # the header's tooltip and each choice's say "cable N at <device>"
        table.setHorizontalHeaderLabels([link.a, link.b])
        for col, device in enumerate((link.a, link.b)):
            head = table.horizontalHeaderItem(col)
            if head is not None:
                head.setToolTip(f"The port each cable uses at {device}")
        table.setVerticalHeaderLabels([str(r + 1) for r in range(rows)])
        for col, end in enumerate(("a", "b")):
            pins = (link.a_pins if end == "a" else link.b_pins) or ()
            choices = port_choices(design, self.catalog, link.id, end)
            for r in range(rows):
                combo = QComboBox()
                combo.setSizeAdjustPolicy(_SHRINK)
                current = pins[r] if r < len(pins) else ""
                if not current or current == "?":
                    combo.addItem(NO_PORT_TEXT, "")
                for name, holder in choices:
                    text = name if holder is None else f"{name}  (link {holder})"
                    if holder == "":
                        text = f"{name}  (cage runs another module)"
                    combo.addItem(text, name)
                at = combo.findData(current if current != "?" else "")
                combo.setCurrentIndex(max(0, at))
                combo.setToolTip(
                    f"Cable {r + 1} of {link.id} at {link.a if end == 'a' else link.b}"
                )
                combo.activated.connect(
                    lambda _=0, row=r, e=end, c=combo: self._commit_pin(e, row, c)
                )
                table.setCellWidget(r, col, combo)
        more = link.cables - rows
        self.pins_hint.setText(
            "The port each cable is pinned to; edits of other links never move it."
            + (
                f" First {rows} of {link.cables:,} cables shown (the cabling plan "
                "lists them all)."
                if more > 0
                else ""
            )
        )

    def _commit_pin(self, end: str, row: int, combo: QComboBox) -> None:
        link = self._link()
        if link is None:
            return
        name = str(combo.currentData() or "")
        pins = list((link.a_pins if end == "a" else link.b_pins) or ())
        pins += [""] * (link.cables - len(pins))
        if not name or pins[row] == name:
            return
        pins[row] = name
        device = link.a if end == "a" else link.b
        self._update(
            {f"{end}_pins": tuple(pins)},
            f"Pin cable {row + 1} of {link.id} to {device} {name}",
        )

    def _fill_ports(self, link: Link) -> None:
        devices = self.document.design.device_map()
        for end, combo in (("a", self.a_port_combo), ("b", self.b_port_combo)):
            device_id = link.a if end == "a" else link.b
            current = link.a_port if end == "a" else link.b_port
            device = devices.get(device_id)
            entry = self.catalog.get(device.catalog_id) if device else None
            label = self.form.labelForField(combo)
            if isinstance(label, QLabel):
                label.setText(f"Port at {device_id}")
            combo.blockSignals(True)
            combo.clear()
            for group in entry.interfaces if entry is not None else []:
                speeds = "/".join(str(s) for s in group.speeds_gbps)
                combo.addItem(
                    f"{group.name} ({group.count} × {speeds}G, {group.role.value})",
                    group.name,
                )
            if combo.findData(current) < 0:
                combo.addItem(f"{current} (unknown)", current)
            combo.setCurrentIndex(combo.findData(current))
            combo.blockSignals(False)

    def _fill_cables(self, link: Link) -> None:
        spin = self.cables_spin
        limits = self.limits
        # a link already over its ports (a file as loaded) may still be lowered
        top = MAX_CABLES if limits is None else max(link.cables, limits.max_cables)
        spin.blockSignals(True)
        spin.setRange(1, max(1, top))
        spin.setValue(link.cables)
        spin.blockSignals(False)
        if limits is None:
            self.cables_hint.setText("Hardware not in the catalog: not checked.")
        else:
            self.cables_hint.setText(
                f"Up to {limits.max_cables:,} at {link.speed_gbps}G: "
                "the ports free at both ends."
            )
        spin.setToolTip(self.cables_hint.text())

    def _fill_speeds(self, link: Link) -> None:
        offered = set(self.limits.speeds_gbps) if self.limits is not None else set()
        options = sorted(offered | {link.speed_gbps}, reverse=True)
        combo = self.speed_combo
        combo.blockSignals(True)
        combo.clear()
        for speed in options:
            combo.addItem(f"{speed} Gb/s", speed)
        combo.setCurrentIndex(combo.findData(link.speed_gbps))
        combo.blockSignals(False)

    def _fill_fabrics(self, link: Link) -> None:
        allowed = set(self.limits.fabrics) if self.limits is not None else set(Fabric)
        combo = self.fabric_combo
        combo.blockSignals(True)
        combo.clear()
        for f in Fabric:
            if f in allowed or f is link.fabric:
                combo.addItem(f.value, f.value)
        combo.setCurrentIndex(combo.findData(link.fabric.value))
        combo.blockSignals(False)

    def _show_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))
        self._note_for = self.link_id if text else None

    def refusal(self) -> str:
        """The reason of the last refused edit shown for this link ('' if none)."""
        return self.note.text() if not self.note.isHidden() else ""

    # --- committing ----------------------------------------------------------

    def _link(self) -> Link | None:
        if self.link_id is None:
            return None
        return self.document.design.links.get(self.link_id)

    def _name(self) -> str:
        link = self._link()
        return f"{link.a}–{link.b}" if link is not None else "link"

    def _update(self, fields: dict[str, object], label: str) -> bool:
        """Check the edit with the rules, then run it; refused: say why, reset."""
        link = self._link()
        if link is None or all(getattr(link, k) == v for k, v in fields.items()):
            return False
        try:
            check_link_update(self.document.design, link.id, fields, self.catalog)
        except ConnectionRefused as exc:
            reason = str(exc)
            self._show_note(reason)
            self.show_link(link.id)  # the widgets show the model again
            self.edit_refused.emit(reason)
            return False
        self._show_note("")
        self.document.execute(
            UpdateLink(link.id, fields, label=label, lookup=self.catalog)
        )
        return True

    def _commit_cables(self, value: int) -> None:
        self._update({"cables": value}, f"Set cables of {self._name()} to {value}")

    def _commit_speed(self) -> None:
        speed = self.speed_combo.currentData()
        self._update(
            {"speed_gbps": speed},
            f"Set speed of {self._name()} to {self.speed_combo.currentText()}",
        )

    def _commit_fabric(self) -> None:
        fabric = Fabric(self.fabric_combo.currentData())
        self._update(
            {"fabric": fabric}, f"Move {self._name()} to the {fabric.value} fabric"
        )

    def _commit_port(self, end: str) -> None:
        link = self._link()
        if link is None:
            return
        combo = self.a_port_combo if end == "a" else self.b_port_combo
        port = str(combo.currentData())
        device = link.a if end == "a" else link.b
        self._update(
            {f"{end}_port": port},
            f"Use port group {port} of {device} for {self._name()}",
        )
