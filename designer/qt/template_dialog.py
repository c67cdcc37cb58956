"""New from Template: generate a design from a preset and preview its numbers first."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from designer.catalog.loader import Catalog
from designer.catalog.schema import Category
from designer.core import formatting as fmt
from designer.core.model import Design

SUPERPOD_SYSTEMS = ("dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72")
OVERSUBSCRIPTION = (1.0, 1.5, 2.0, 3.0, 4.0)
KINDS = ("superpod", "fat_tree", "k_ary", "nvl72", "serving")
KIND_TITLES = {
    "superpod": "DGX SuperPOD (reference architecture)",
    "fat_tree": "Fat tree (with oversubscription)",
    "k_ary": "k-ary fat tree (textbook, k-port switches)",
    "nvl72": "NVL72 scalable unit (rack-scale)",
    "serving": "Inference serving (sized for requests/s)",
}


def _combo(items: list[tuple[str, str]], current: str | None = None) -> QComboBox:
    combo = QComboBox()
    for text, data in items:
        combo.addItem(text, data)
    if current is not None and combo.findData(current) >= 0:
        combo.setCurrentIndex(combo.findData(current))
    return combo


class TemplateDialog(QDialog):
    """Pick a generator and its parameters; see GPUs, switches, cables and cost.

    After ``exec()`` returns accepted, ``design`` is the generated design and
    ``report`` its analysis (the numbers that were previewed).
    """

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New from Template")
        self.catalog = catalog
        self.design: Design | None = None
        self.report: Any = None
        self.kind_combo = _combo([(KIND_TITLES[k], k) for k in KINDS])
        self.pages = QStackedWidget()
        self._build_pages()
        self.preview_labels: dict[str, QLabel] = {}
        preview = QGroupBox("Preview")
        form = QFormLayout(preview)
        for key, title in (
            ("gpus", "GPUs"),
            ("switches", "Switches per tier"),
            ("cables", "Cables"),
            ("cost", "Cost"),
            ("bisection", "Bisection"),
            ("tier", "Tier class"),
        ):
            label = QLabel("–")
            label.setWordWrap(True)
            label.setObjectName("metricValue")
            form.addRow(title, label)
            self.preview_labels[key] = label
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setObjectName("hint")
        form.addRow(self.message)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        top = QFormLayout()
        top.addRow("Template", self.kind_combo)
        layout.addLayout(top)
        layout.addWidget(self.pages)
        layout.addWidget(preview)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self.update_preview)
        self.kind_combo.currentIndexChanged.connect(self._on_kind_changed)
        self._fit_page()
        self.resize(540, 470)
        self.update_preview()

    def _slugs(self, category: Category) -> list[tuple[str, str]]:
        return [
            (f"{e.model} ({e.slug})", e.slug)
            for e in self.catalog.by_category(category)
        ]

    def _build_pages(self) -> None:
        available = [s for s in SUPERPOD_SYSTEMS if s in self.catalog]
        # SuperPOD
        page = QWidget()
        form = QFormLayout(page)
        self.sp_system = _combo(
            [(self.catalog[s].model, s) for s in available], "dgx-h100"
        )
        self.sp_sus = QSpinBox()
        self.sp_sus.setRange(1, 64)
        self.sp_sus.setValue(4)
        form.addRow("System", self.sp_system)
        form.addRow("Scalable units", self.sp_sus)
        self.pages.addWidget(page)
        # Fat tree
        page = QWidget()
        form = QFormLayout(page)
        self.ft_compute = _combo(self._slugs(Category.COMPUTE), "dgx-h100")
        self.ft_nodes = QSpinBox()
        self.ft_nodes.setRange(1, 20_000)
        self.ft_nodes.setValue(64)
        self.ft_switch = _combo(self._slugs(Category.SWITCH), "qm9700")
        self.ft_oversub = _combo(
            [(fmt.ratio(r), str(r)) for r in OVERSUBSCRIPTION], "1.0"
        )
        self.ft_rail = QCheckBox("Rail-optimized leaves")
        self.ft_rail.setChecked(True)
        self.ft_tiers = _combo(
            [("auto", ""), ("2 (leaf, spine)", "2"), ("3 (+ core)", "3")]
        )
        self.ft_su = QSpinBox()
        self.ft_su.setRange(0, 1024)
        self.ft_su.setSpecialValueText("auto")
        form.addRow("Compute", self.ft_compute)
        form.addRow("Nodes", self.ft_nodes)
        form.addRow("Switch", self.ft_switch)
        form.addRow("Leaf oversubscription", self.ft_oversub)
        form.addRow("Switch tiers", self.ft_tiers)
        form.addRow("SU size (nodes)", self.ft_su)
        form.addRow(self.ft_rail)
        self.pages.addWidget(page)
        # k-ary
        page = QWidget()
        form = QFormLayout(page)
        self.k_k = QSpinBox()
        self.k_k.setRange(2, 64)
        self.k_k.setSingleStep(2)
        self.k_k.setValue(8)
        self.k_speed = _combo(
            [(f"{s} Gb/s", str(s)) for s in (100, 200, 400, 800)], "400"
        )
        note = QLabel(
            "k pods of k/2 edge and k/2 aggregation switches, (k/2)² cores, k³/4 hosts."
        )
        note.setWordWrap(True)
        note.setObjectName("hint")
        form.addRow("k (ports per switch)", self.k_k)
        form.addRow("Link speed", self.k_speed)
        form.addRow(note)
        self.pages.addWidget(page)
        # NVL72
        page = QWidget()
        form = QFormLayout(page)
        self.nvl_sus = QSpinBox()
        self.nvl_sus.setRange(1, 64)
        self.nvl_sus.setValue(1)
        note = QLabel("GB200 NVL72 SuperPOD: 8 racks (576 GPUs) per scalable unit.")
        note.setWordWrap(True)
        note.setObjectName("hint")
        form.addRow("Scalable units", self.nvl_sus)
        form.addRow(note)
        self.pages.addWidget(page)
        self._build_serving_page()
        for w in (
            self.sp_system,
            self.ft_tiers,
            self.ft_compute,
            self.ft_switch,
            self.ft_oversub,
            self.k_speed,
        ):
            w.currentIndexChanged.connect(self._schedule)
        for s in (self.sp_sus, self.ft_nodes, self.ft_su, self.k_k, self.nvl_sus):
            s.valueChanged.connect(self._schedule)
        self.ft_rail.toggled.connect(self._schedule)

    def _build_serving_page(self) -> None:
        from designer.qt.serving_template import ServingPage

        self.serving_page = ServingPage(self.catalog)
        self.serving_page.changed.connect(self._schedule)
        self.pages.addWidget(self.serving_page)

    def _on_kind_changed(self, index: int) -> None:
        self.pages.setCurrentIndex(index)
        self._fit_page()
        self._schedule()

    def _fit_page(self) -> None:
        """Size the parameter area to the visible page (no gap under short ones)."""
        ignored, preferred = QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred
        for i in range(self.pages.count()):
            policy = preferred if i == self.pages.currentIndex() else ignored
            page = self.pages.widget(i)
            if page is not None:
                page.setSizePolicy(preferred, policy)
        self.pages.adjustSize()

    def _ok_button(self) -> QPushButton:
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def _schedule(self) -> None:
        self._ok_button().setEnabled(False)
        self._timer.start()

    def kind(self) -> str:
        """The selected generator: superpod, fat_tree, k_ary or nvl72."""
        return str(self.kind_combo.currentData())

    def generate(self) -> Design:
        """Run the selected generator with the dialog's parameters; the design
        comes placed in racks and rows (:func:`designer.physical.place`)."""
        from designer.physical import place

        return place(self._generated(), self.catalog)

    def _generated(self) -> Design:
        from designer import generate

        kind = self.kind()
        if kind == "superpod":
            return generate.superpod(
                str(self.sp_system.currentData()),
                self.sp_sus.value(),
                catalog=self.catalog,
            )
        if kind == "fat_tree":
            return generate.fat_tree(
                str(self.ft_compute.currentData()),
                self.ft_nodes.value(),
                str(self.ft_switch.currentData()),
                su_size=self.ft_su.value() or None,
                rail_optimized=self.ft_rail.isChecked(),
                oversubscription=(float(self.ft_oversub.currentData()),),
                tiers=int(self.ft_tiers.currentData())
                if self.ft_tiers.currentData()
                else None,
                catalog=self.catalog,
            )
        if kind == "serving":
            return self.serving_page.generate()
        if kind == "k_ary":
            return generate.k_ary(
                self.k_k.value(),
                speed_gbps=int(self.k_speed.currentData()),
                catalog=self.catalog,
            )
        return generate.superpod(
            "gb200-nvl72", self.nvl_sus.value(), catalog=self.catalog
        )

    def update_preview(self) -> None:
        """Generate and analyse the design for the current parameters."""
        self._timer.stop()
        from designer.analysis import analyze

        ok = self._ok_button()
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.design = self.generate()
            self.report = analyze(self.design, self.catalog)
        except Exception as exc:  # a refused parameter combination: say why
            self.design = None
            self.report = None
            for label in self.preview_labels.values():
                label.setText("–")
            self.message.setText(f"Cannot generate this design: {exc}")
            ok.setEnabled(False)
            return
        finally:
            QGuiApplication.restoreOverrideCursor()
        r = self.report
        v = self.preview_labels
        v["gpus"].setText(f"{r.gpus:,} in {fmt.plural(r.compute_nodes, 'node')}")
        v["switches"].setText(
            ", ".join(f"{n:,} {t}" for t, n in r.switches.items() if n) or "none"
        )
        v["cables"].setText(
            f"{sum(r.cables.values()):,} ("
            + ", ".join(f"{n:,} {f}" for f, n in r.cables.items() if n)
            + ")"
        )
        per_gpu = f" · {fmt.usd(r.cost_usd.per_gpu)}/GPU" if r.cost_usd.per_gpu else ""
        v["cost"].setText(f"{fmt.usd(r.cost_usd.total)}{per_gpu} (hardware estimate)")
        b = r.bisection
        v["bisection"].setText(
            f"{fmt.gbps(b.gbps)} · ratio {b.ratio:.2f}"
            + ("" if b.exact else " (bound)")
            if b.ratio is not None
            else "– (one compute node)"
        )
        v["tier"].setText(r.tier.name)
        self.message.setText(
            f"{fmt.plural(len(self.design.devices), 'device')}, "
            f"{fmt.plural(len(self.design.links), 'link bundle')}."
            + (f" {self.serving_page.sized_text}" if self.kind() == "serving" else "")
        )
        ok.setEnabled(True)
