"""The inputs half of the Workload panel: presets, job, training, plan and cost
fields, and the cloud rate table.

Every edit is one :class:`~designer.core.commands.SetWorkload` through the
document (one undo step, saved in the file). An empty field means "the
default": its placeholder shows the value the last estimate used and where it
came from, its tooltip the source.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.commands import SetWorkload
from designer.core.document import Document
from designer.core.workload import CloudRate, Workload
from designer.view.workload.fields import (
    FIELDS,
    GROUPS,
    JOBS,
    PRECISIONS,
    RECOMPUTE,
    FieldError,
    FieldSpec,
    display,
    field_label,
    hint,
    parse,
    updated,
)
from designer.workload import PRESETS, Estimate
from designer.workload import facts as wfacts
from designer.workload.inputs import SHAPE_FIELDS
from designer.workload.presets import ModelSpec, shape_for_params, shape_mismatch

_SHRINK = QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
CUSTOM = ""
"""The model combo's data for a custom model (no preset)."""
_INVALID = "QLineEdit { border: 1px solid #c0392b; background: #fdf0ef; }"
RATE_COLUMNS = ("Name", "USD/GPU-h", "Source", "Date", "GPU", "Break-even")
_RATE_KEYS = ("name", "usd", "source", "date", "gpu")
_RATE_EXPECTED = {
    "name": "give a name",
    "usd_per_gpu_hour": "expected a price above 0",
    "source": "give a source (at least 3 characters)",
    "date": "expected the date the rate was seen, such as 2026-05",
}


def _combo(items: tuple[tuple[str, str], ...], first: str | None = None) -> QComboBox:
    box = QComboBox()
    box.setSizeAdjustPolicy(_SHRINK)
    box.setMinimumContentsLength(10)
    if first is not None:
        box.addItem(first, None)
    for key, label in items:
        box.addItem(label, key)
    return box


class WorkloadInputsView(QWidget):
    """What the Inputs and Serving tabs share: the design's workload block, a
    text field per :class:`FieldSpec` and a line that says why an edit was
    refused; ``message(text)`` reports refusals."""

    message = Signal(str)

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self._filling = False
        self.edits: dict[str, QLineEdit] = {}
        self.error = QLabel("")
        self.error.setObjectName("hint")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #a93226;")
        self.error.hide()

    @property
    def block(self) -> Workload | None:
        """The design's workload block."""
        return self.document.design.workload

    def _add_edit(self, spec: FieldSpec, prefix: str) -> QLineEdit:
        """A field for ``spec``, named ``{prefix}_{name}``, that calls
        :meth:`_on_edited` when editing finishes."""
        edit = QLineEdit()
        edit.setObjectName(f"{prefix}_{spec.name}")
        edit.setClearButtonEnabled(True)
        edit.editingFinished.connect(lambda s=spec: self._on_edited(s))
        self.edits[spec.name] = edit
        return edit

    def _on_edited(self, spec: FieldSpec) -> None:
        raise NotImplementedError

    def _show_values(self, specs: tuple[FieldSpec, ...], block: Workload) -> None:
        """Put ``block``'s values in the fields of ``specs``, unmarked."""
        for spec in specs:
            edit = self.edits[spec.name]
            edit.setText(display(spec, getattr(block, spec.name)))
            edit.setStyleSheet("")

    def _execute(self, workload: Workload | None, label: str) -> bool:
        """Set the block to ``workload`` as one undo step (False: it already is)."""
        if workload == self.block:
            return False
        self.document.execute(SetWorkload(workload, label))
        return True

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))
        if text:
            self.message.emit(text)

    def _parsed(self, spec: FieldSpec) -> tuple[Any, Workload] | None:
        """The typed value of ``spec``'s field and the block with it; None when
        the text is refused (the field is marked and the reason shown)."""
        edit = self.edits[spec.name]
        try:
            value = parse(spec, edit.text())
            new = updated(self.block, **{spec.name: value})
        except FieldError as exc:
            edit.setStyleSheet(_INVALID)
            self._show_error(str(exc))
            return None
        edit.setStyleSheet("")
        return value, new


class WorkloadForm(WorkloadInputsView):
    """Edits the design's workload block; ``message(text)`` reports refusals."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self._rows: dict[str, tuple[QFormLayout, QWidget]] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.error)

        self.model = _combo(
            tuple((k, p.name) for k, p in PRESETS.items()),
        )
        self.model.insertItem(0, "Custom model (parameters or shape below)", CUSTOM)
        self.model_source = QLabel("")
        self.model_source.setObjectName("hint")
        self.model_source.setWordWrap(True)
        self.job = _combo(JOBS)
        self.precision = _combo(PRECISIONS)
        self.zero = _combo(tuple((str(i), f"ZeRO {i}") for i in range(4)), "searched")
        self.recompute = _combo(RECOMPUTE, "searched")
        groups: dict[str, QFormLayout] = {}
        for key, title in GROUPS:
            box = QGroupBox(title)
            form = QFormLayout(box)
            form.setFieldGrowthPolicy(
                QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow
            )
            # a narrow dock (1280x800) puts a long label above its field
            form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
            form.setContentsMargins(6, 4, 6, 4)
            form.setVerticalSpacing(3)
            groups[key] = form
            if key == "model":
                form.addRow("Preset", self.model)
                form.addRow(self.model_source)
            elif key == "job":
                form.addRow("Job", self.job)
                form.addRow("Precision", self.precision)
            elif key == "plan":
                form.addRow("ZeRO stage", self.zero)
                form.addRow("Recompute", self.recompute)
            layout.addWidget(box)
        for spec in FIELDS:
            edit = self._add_edit(spec, "workload")
            groups[spec.group].addRow(field_label(spec), edit)
            self._rows[spec.name] = (groups[spec.group], edit)
        self.rates = QTableWidget(0, len(RATE_COLUMNS))
        self.rates.setHorizontalHeaderLabels(list(RATE_COLUMNS))
        self.rates.verticalHeader().hide()
        header = self.rates.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.rates.setMinimumHeight(130)
        self.rates.setWordWrap(False)
        self.rates.itemChanged.connect(self._on_rate_changed)
        self.rates_note = QLabel("")
        self.rates_note.setObjectName("hint")
        self.rates_note.setWordWrap(True)
        add = QPushButton("Add rate")
        add.clicked.connect(self._on_add_rate)
        remove = QPushButton("Remove")
        remove.clicked.connect(self._on_remove_rate)
        self.builtin = QPushButton("Built-in rates")
        self.builtin.setToolTip("Use the built-in reference rates (workload.md §6)")
        self.builtin.clicked.connect(self._on_builtin_rates)
        buttons = QHBoxLayout()
        for b in (add, remove, self.builtin):
            buttons.addWidget(b)
        buttons.addStretch(1)
        rates_box = QGroupBox("Cloud reference rates")
        rl = QVBoxLayout(rates_box)
        rl.setContentsMargins(6, 4, 6, 4)
        rl.addWidget(self.rates)
        rl.addLayout(buttons)
        rl.addWidget(self.rates_note)
        layout.addWidget(rates_box)
        self.remove_block = QPushButton("Remove the workload block")
        self.remove_block.clicked.connect(self._on_remove_block)
        layout.addWidget(self.remove_block)
        layout.addStretch(1)

        self.model.currentIndexChanged.connect(self._on_model)
        self.job.currentIndexChanged.connect(
            lambda: self._on_choice("job", self.job, "Set job")
        )
        self.precision.currentIndexChanged.connect(
            lambda: self._on_choice("precision", self.precision, "Set precision")
        )
        self.zero.currentIndexChanged.connect(self._on_zero)
        self.recompute.currentIndexChanged.connect(
            lambda: self._on_choice("recompute", self.recompute, "Set recompute")
        )
        self.refresh()

    # --- model -> widgets ------------------------------------------------------

    def refresh(self) -> None:
        """Show the block's values (no commands are made)."""
        self._filling = True
        try:
            w = self.block or Workload()
            key = w.model
            if key is not None and key not in PRESETS:
                from designer.workload import preset

                with contextlib.suppress(KeyError):
                    key = preset(key).key
            index = self.model.findData(key if key is not None else CUSTOM)
            if index < 0:
                self.model.addItem(f"{key} (unknown preset)", key)
                index = self.model.count() - 1
            self.model.setCurrentIndex(index)
            spec = PRESETS.get(key or "")
            self.model_source.setText(
                f"Source: {spec.source}" if spec is not None else ""
            )
            _choose(self.job, w.job.value if w.job else "pretrain")
            _choose(self.precision, w.precision.value if w.precision else "bf16")
            _choose(self.zero, None if w.zero_stage is None else str(w.zero_stage))
            _choose(self.recompute, w.recompute.value if w.recompute else None)
            self._show_values(FIELDS, w)
            job = w.job.value if w.job else "pretrain"
            for spec_ in FIELDS:
                form, row = self._rows[spec_.name]
                form.setRowVisible(row, spec_.jobs is None or job in spec_.jobs)
            self._fill_rates(None)
            self.remove_block.setEnabled(self.block is not None)
        finally:
            self._filling = False

    def set_hints(self, est: Estimate | None) -> None:
        """Placeholders and tooltips from the estimate: each empty field shows
        the value used and where it came from."""
        used = {}
        if est is not None:
            for a in est.assumptions:
                if a.origin in ("default", "preset", "design"):
                    used[a.name] = a
            model = est.model
            for name in SHAPE_FIELDS:
                value = model.active_params if name == "active_params" else None
                value = value if value is not None else getattr(model, name, None)
                if value is not None and name not in used and self.block is not None:
                    spec = next(f for f in FIELDS if f.name == name)
                    edit = self.edits[name]
                    edit.setPlaceholderText(f"{hint(spec, value)} (preset)")
                    edit.setToolTip(f"{spec.label}: {model.source}")
        for spec in FIELDS:
            edit = self.edits[spec.name]
            found = used.get(spec.name)
            if found is None:
                if spec.name not in SHAPE_FIELDS or est is None:
                    edit.setPlaceholderText("")
                    edit.setToolTip(spec.label)
                continue
            a = found
            if isinstance(a.value, float | int) and not isinstance(a.value, bool):
                shown = hint(spec, a.value)
            else:
                shown = str(a.value)
            mark = ", estimate" if a.estimate else ""
            edit.setPlaceholderText(f"{shown} ({a.origin})")
            edit.setToolTip(
                f"{spec.label}: {shown} {a.unit}".rstrip()
                + f"\nSource: {a.source}\nOrigin: {a.origin}{mark}"
                "\nType a value to override it; clear the field for the default."
            )
        self._fill_rates(est)

    def _fill_rates(self, est: Estimate | None) -> None:
        self._filling = True
        try:
            given = self.block.cloud_rates if self.block is not None else None
            rows: list[tuple[str, float, str, str | None, str | None]]
            if given is not None:
                rows = [
                    (r.name, r.usd_per_gpu_hour, r.source, r.date, r.gpu) for r in given
                ]
                self.rates_note.setText(
                    "The design's own rates (saved in its workload block)."
                )
            else:
                rows = [
                    (r.name, r.usd_per_gpu_hour, r.source, r.date, r.gpu)
                    for r in wfacts.CLOUD_RATES
                ]
                self.rates_note.setText(
                    "Built-in reference rates (workload.md §6), each with its date; "
                    "edit a cell to keep your own table in the design."
                )
            self.builtin.setEnabled(given is not None)
            even: list[float | None] = []
            if est is not None:
                even = [r.breakeven_utilization for r in est.tco.cloud_reference_rates]
            self.rates.setRowCount(len(rows))
            for i, (name, usd, source, date, gpu) in enumerate(rows):
                cells = (name, f"{usd:.4g}", source, date or "", gpu or "")
                for j, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    item.setToolTip(text)
                    self.rates.setItem(i, j, item)
                b = even[i] if i < len(even) else None
                item = QTableWidgetItem("" if b is None else f"{b:.1%}")
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                item.setToolTip(
                    "owned cost per GPU-hour at full use / this rate"
                    if b is not None
                    else "not for this design's GPUs"
                )
                self.rates.setItem(i, len(RATE_COLUMNS) - 1, item)
            self.rates.resizeColumnsToContents()
            for j in (0, 2):
                self.rates.setColumnWidth(j, min(self.rates.columnWidth(j), 160))
        finally:
            self._filling = False

    # --- widgets -> commands ---------------------------------------------------

    def _execute(self, workload: Workload | None, label: str) -> bool:
        done = super()._execute(workload, label)
        if done:
            self._show_error("")
        return done

    def _try(self, label: str, make: Callable[[], Workload | None]) -> bool:
        try:
            workload = make()
        except FieldError as exc:
            self._show_error(str(exc))
            return False
        return self._execute(workload, label)

    def _on_edited(self, spec: FieldSpec) -> None:
        if self._filling:
            return
        parsed = self._parsed(spec)
        if parsed is None:
            return
        value, new = parsed
        edit = self.edits[spec.name]
        unchanged = getattr(new, spec.name) == getattr(
            self.block or Workload(), spec.name
        )
        if unchanged and (self.block is not None or value is None):
            edit.setText(display(spec, getattr(new, spec.name)))
            return
        derived = _derived_shape(new) if spec.name == "params" else None
        if derived is not None:
            new = new.model_copy(update=derived)
        if self._execute(new, f"Set {spec.label}") and derived is not None:
            self.message.emit(
                f"Shape derived from {display(spec, new.params)} parameters "
                f"(estimate): {derived['layers']} layers x {derived['hidden']:,} "
                f"hidden, {derived['heads']} heads ({derived['kv_heads']} KV); "
                "type your own to change it"
            )

    def _on_choice(self, name: str, box: QComboBox, label: str) -> None:
        if self._filling:
            return
        value: Any = box.currentData()
        self._try(label, lambda: updated(self.block, **{name: value}))

    def _on_zero(self) -> None:
        if self._filling:
            return
        data = self.zero.currentData()
        value = None if data is None else int(data)
        self._try("Set ZeRO stage", lambda: updated(self.block, zero_stage=value))

    def _on_model(self) -> None:
        if self._filling:
            return
        key = self.model.currentData()
        if key == CUSTOM:
            # start the custom model from the preset it replaces
            old = PRESETS.get((self.block.model if self.block else None) or "")
            shape: dict[str, Any] = dict.fromkeys(SHAPE_FIELDS)
            if old is not None:
                shape.update({k: getattr(old, k) for k in SHAPE_FIELDS})
                shape["active_params"] = old.active_params
            label = "Set custom model"
            self._try(label, lambda: updated(self.block, model=None, **shape))
            return
        name = PRESETS[key].name if key in PRESETS else str(key)
        clear = dict.fromkeys(SHAPE_FIELDS)
        self._try(f"Set model {name}", lambda: updated(self.block, model=key, **clear))

    def _table_rows(self) -> list[dict[str, str]]:
        """The rate table as typed (not yet checked)."""
        rows = []
        for i in range(self.rates.rowCount()):
            cells = []
            for j in range(len(RATE_COLUMNS) - 1):
                item = self.rates.item(i, j)
                cells.append(item.text().strip() if item is not None else "")
            rows.append(dict(zip(_RATE_KEYS, cells, strict=True)))
        return rows

    def _rates(self, rows: list[dict[str, str]]) -> list[CloudRate]:
        """Checked rates from table rows (FieldError names the row and cell)."""
        out = []
        for i, row in enumerate(rows, 1):
            try:
                usd = float(row["usd"])
            except ValueError:
                raise FieldError(
                    f"Cloud rate {i}: expected a price in USD per GPU-hour, got "
                    f"{row['usd']!r}"
                ) from None
            data = {
                "name": row["name"],
                "usd_per_gpu_hour": usd,
                "source": row["source"],
                "date": row["date"],
                "gpu": row["gpu"] or None,
            }
            try:
                out.append(CloudRate.model_validate(data))
            except ValidationError as exc:
                err = exc.errors(include_url=False)[0]
                where = str(err["loc"][0]) if err["loc"] else "rate"
                what = _RATE_EXPECTED.get(where, err["msg"].lower())
                raise FieldError(f"Cloud rate {i}, {where}: {what}") from None
        return out

    def _own_rows(self) -> tuple[list[dict[str, str]], list[str]]:
        """The table as the design's own: built-in rates without a date are
        left out (a rate in the design needs one), and named."""
        rows = self._table_rows()
        if self.block is not None and self.block.cloud_rates is not None:
            return rows, []
        undated = {r.name for r in wfacts.CLOUD_RATES if r.date is None}
        kept = [r for r in rows if r["date"] or r["name"] not in undated]
        dropped = [r["name"] for r in rows if r not in kept]
        return kept, dropped

    def _set_rates(
        self, label: str, rows: list[dict[str, str]], dropped: list[str]
    ) -> bool:
        ok = self._try(
            label, lambda: updated(self.block, cloud_rates=self._rates(rows))
        )
        if ok and dropped:
            self.message.emit(
                "Left out of the design's rate table (no date given): "
                + "; ".join(dropped)
            )
        return ok

    def _on_rate_changed(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        rows, dropped = self._own_rows()
        ok = self._set_rates("Edit cloud rates", rows, dropped)
        if not ok and self.error.text():
            self._fill_rates(None)  # back to the rates in force

    def _on_add_rate(self) -> None:
        import datetime as _dt

        rows, dropped = self._own_rows()
        rows.append(
            {
                "name": "My quote",
                "usd": "2.0",
                "source": "as quoted",
                "date": _dt.date.today().strftime("%Y-%m"),
                "gpu": "",
            }
        )
        self._set_rates("Add cloud rate", rows, dropped)

    def _on_remove_rate(self) -> None:
        row = self.rates.currentRow()
        rows = self._table_rows()
        if not 0 <= row < len(rows):
            self._show_error("Select a rate to remove.")
            return
        del rows[row]
        if self.block is None or self.block.cloud_rates is None:
            undated = {r.name for r in wfacts.CLOUD_RATES if r.date is None}
            dropped = [
                r["name"] for r in rows if not r["date"] and r["name"] in undated
            ]
            rows = [r for r in rows if r["name"] not in dropped]
        else:
            dropped = []
        self._set_rates("Remove cloud rate", rows, dropped)

    def _on_builtin_rates(self) -> None:
        self._try(
            "Use built-in cloud rates", lambda: updated(self.block, cloud_rates=None)
        )

    def _on_remove_block(self) -> None:
        self._execute(None, "Remove workload")


def _derived_shape(block: Workload) -> dict[str, int] | None:
    """A custom model's shape re-derived from its new parameter count when the
    shape it has is missing or another model's (switching a 70B preset to a
    custom 7B model must not keep 80 layers x 8,192 hidden); else None."""
    if block.model is not None or block.params is None:
        return None
    if block.active_params is not None:
        return None  # an MoE's total counts its experts: no dense shape
    spec = ModelSpec(
        "custom",
        "custom model",
        block.params,
        layers=block.layers,
        hidden=block.hidden,
        vocab=block.vocab,
    )
    if block.layers is not None and block.hidden is not None:
        if shape_mismatch(spec) is None:
            return None  # the user's own shape agrees with the parameters
        layers = hidden = None
    else:
        layers, hidden = block.layers, block.hidden
    return shape_for_params(
        block.params,
        layers=layers,
        hidden=hidden,
        vocab=block.vocab,
        seq_len=block.seq_len,
    )


def _choose(box: QComboBox, data: str | None) -> None:
    index = box.findData(data)
    box.setCurrentIndex(index if index >= 0 else 0)
