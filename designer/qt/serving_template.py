"""The New from Template dialog's inference serving page: a system (HGX/DGX on
400GbE, GB200 NVL72), a model, a requests/s target and the latency limits; the
design is sized by :func:`designer.generate.serving.serving`."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QWidget,
)

from designer.catalog.loader import Catalog
from designer.core.formatting import plural, quantity
from designer.core.model import Design
from designer.core.workload import Precision
from designer.workload.presets import PRESETS
from designer.workload.serving_design import SERVING_SYSTEMS, serving, size
from designer.workload.serving_facts import TPOT_MS, TTFT_MS


class ServingPage(QWidget):
    """Parameters of an inference serving template; ``changed`` on any edit."""

    changed = Signal()

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.sized_text = ""
        form = QFormLayout(self)
        self.system = QComboBox()
        for slug, (title, _) in SERVING_SYSTEMS.items():
            if slug in catalog:
                self.system.addItem(title, slug)
        self.model = QComboBox()
        for key, spec in PRESETS.items():
            self.model.addItem(spec.name, key)
        self.model.setCurrentIndex(max(0, self.model.findData("llama3-70b")))
        self.precision = QComboBox()
        for p in (Precision.FP8, Precision.BF16, Precision.FP4):
            self.precision.addItem(p.value.upper(), p.value)
        self.rate = QDoubleSpinBox()
        self.rate.setRange(0.1, 10_000_000.0)
        self.rate.setDecimals(1)
        self.rate.setValue(1000.0)
        self.rate.setSuffix(" requests/s")
        self.rate.setGroupSeparatorShown(True)
        self.tpot = QDoubleSpinBox()
        self.tpot.setRange(1.0, 10_000.0)
        self.tpot.setValue(TPOT_MS.value)
        self.tpot.setSuffix(" ms")
        self.ttft = QDoubleSpinBox()
        self.ttft.setRange(1.0, 600_000.0)
        self.ttft.setValue(TTFT_MS.value)
        self.ttft.setSuffix(" ms")
        note = QLabel(
            "Sized by the serving model; the target stays in the workload block."
        )
        note.setWordWrap(True)
        note.setObjectName("hint")
        form.addRow("System", self.system)
        form.addRow("Model", self.model)
        form.addRow("Weights", self.precision)
        form.addRow("Target", self.rate)
        form.addRow("TPOT limit", self.tpot)
        form.addRow("TTFT limit", self.ttft)
        form.addRow(note)
        for box in (self.system, self.model, self.precision):
            box.currentIndexChanged.connect(self.changed)
        for spin in (self.rate, self.tpot, self.ttft):
            spin.valueChanged.connect(self.changed)

    def generate(self) -> Design:
        """The sized design (raises GeneratorError with the reason)."""
        system = str(self.system.currentData())
        model = str(self.model.currentData())
        rate = self.rate.value()
        precision = Precision(str(self.precision.currentData()))
        ttft, tpot = self.ttft.value(), self.tpot.value()
        sized = size(
            system,
            model,
            rate,
            precision=precision,
            ttft_ms=ttft,
            tpot_ms=tpot,
            catalog=self.catalog,
        )
        node = "rack" if "nvl72" in system else "node"
        self.sized_text = (
            f"Sized for {quantity(rate)} requests/s: {plural(sized.nodes, node)}, "
            f"{sized.gpus:,} GPUs, replicas of {sized.replica}, serving about "
            f"{quantity(sized.requests_per_s)} requests/s (estimate)."
        )
        return serving(
            system,
            model,
            rate,
            precision=precision,
            ttft_ms=ttft,
            tpot_ms=tpot,
            catalog=self.catalog,
        )
