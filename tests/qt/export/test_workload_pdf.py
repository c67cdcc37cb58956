"""The report's "Workload fit" pages: the same figures as ``estimate --json``,
both charts, the assumptions; a section the export dialog can toggle."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from PySide6.QtWidgets import QDialog

from designer.analysis import analyze
from designer.cli.main import main as cli_main
from designer.core.workload import Workload
from designer.io import load_design
from designer.qt.export import write_pdf
from designer.qt.export.dialog import ExportDialog
from tests.io.export.designs import fake_report, rail_design
from tests.qt.workload.helpers import (
    SAMPLES,
    UNITS,
    WITH_WORKLOAD,
    at,
    cli_json,
    close,
    shown_number,
    wait_estimate,
)

#: Figures checked on the page by their label (the label's text is the row's).
KEY_FIGURES = (
    "min_gpus",
    "memory_gb_total.total",
    "memory_gb_per_gpu.total",
    "flops_total",
    "days",
    "gpu_hours",
    "step.compute_s",
    "step.dp_comm_s",
    "step.exposed_comm_fraction",
    "reliability.interruptions_per_day",
    "reliability.mtbf_hours",
    "reliability.checkpoint_tb",
    "reliability.checkpoint_write_s",
    "reliability.checkpoint_interval_min",
    "reliability.lost_fraction",
    "reliability.effective_days",
    "n_minus_1.bisection_ratio_after",
    "n_minus_1.gpus_losing_fabric_path",
    "tco.owned_usd_per_gpu_hour",
    "tco.cloud_usd_per_gpu_hour",
    "tco.breakeven_utilization",
    "tco.total_usd.owned_3y",
    "tco.total_usd.owned_5y",
    "tco.total_usd.cloud_3y",
    "tco.total_usd.cloud_5y",
)
_VALUE = (
    r"\s+((?:\$)?-?[\d,]*\.?\d+(?:e[+-]\d+)?[KMBT]?%?(?: "
    + UNITS
    + r"(?![\w/-]))?|unknown)"
)


def _pages(path: Path) -> list[str]:
    return [
        re.sub(r"\s+", " ", p.extract_text() or "") for p in PdfReader(str(path)).pages
    ]


def _workload_text(pages: list[str]) -> str:
    start = next(i for i, t in enumerate(pages) if "Workload fit" in t)
    end = next(
        (i for i, t in enumerate(pages) if i > start and "Bill of materials" in t),
        len(pages),
    )
    return " ".join(pages[start:end])


Sample = Callable[[str], tuple[str, dict[str, Any], Path]]


@pytest.fixture(scope="module")
def sample_page(qapp: Any, tmp_path_factory: pytest.TempPathFactory) -> Sample:
    """``sample_page(name)``: the text of the sample's "Workload fit" pages (the
    report with that section only, as analysed), its ``estimate --json`` and
    the PDF. Read-only, so made once per sample for the tests here that read it."""
    made: dict[str, tuple[str, dict[str, Any], Path]] = {}

    def page(name: str) -> tuple[str, dict[str, Any], Path]:
        if name not in made:
            design = load_design(SAMPLES / name)
            out = tmp_path_factory.mktemp("workload-pdf") / "report.pdf"
            write_pdf(
                out, design, analyze(design), sections=["workload"], date="2026-12-01"
            )
            made[name] = (_workload_text(_pages(out)), cli_json(SAMPLES / name), out)
        text, data, out = made[name]
        return text, copy.deepcopy(data), out

    return page


@pytest.mark.slow
@pytest.mark.parametrize("name", WITH_WORKLOAD)
def test_page_figures_equal_the_cli(sample_page: Sample, name: str) -> None:
    text, data, _ = sample_page(name)
    for heading in ("Workload fit", "Workload figures", "Workload assumptions"):
        assert heading in text
    assert ("Training days vs GPUs" in text) == (data["days"] is not None)
    assert "Owned vs cloud per busy" in text
    checked = 0
    for path in KEY_FIGURES:
        label = data["figures"][path]["label"]
        match = re.search(re.escape(label) + _VALUE, text)
        assert match is not None, (path, label)
        exact = at(data, path)
        shown = shown_number(match.group(1), data["figures"][path]["unit"])
        if exact is None:
            assert shown is None, (path, match.group(1))
            continue
        assert isinstance(shown, float), (path, match.group(1))
        assert close(shown, float(exact)), (path, match.group(1), exact)
        checked += 1
    assert checked >= 10
    # every assumption with its source, findings by message
    for a in data["assumptions"]:
        assert a["source"][:40] in text, a["name"]
    for f in data["findings"]:
        assert f["code"] in text


@pytest.mark.slow
def test_without_a_block_there_is_no_workload_page(qapp: Any, tmp_path: Path) -> None:
    design = rail_design()
    out = tmp_path / "plain.pdf"
    write_pdf(out, design, fake_report(design))
    assert not any("Workload fit" in t for t in _pages(out))


@pytest.mark.slow
def test_an_unusable_block_says_why(qapp: Any, tmp_path: Path) -> None:
    design = rail_design()
    design.workload = Workload(model="llama-9000")
    out = tmp_path / "bad.pdf"
    write_pdf(out, design, fake_report(design), sections=["workload"])
    text = _workload_text(_pages(out))
    assert "cannot be used" in text and "llama-9000" in text


@pytest.mark.slow
def test_dialog_toggles_the_section(qtbot: Any, tmp_path: Path) -> None:
    design = load_design(SAMPLES / "minimum-viable-enterprise.json")
    dialog = ExportDialog(
        None, design, None, [], report=analyze(design), directory=str(tmp_path)
    )
    qtbot.addWidget(dialog)
    dialog.set_format("pdf")
    box = dialog.sections["workload"]
    assert box.isEnabled() and box.isChecked()
    dialog.path.setText(str(tmp_path / "with.pdf"))
    assert dialog.export(), dialog.last_error
    assert any("Workload fit" in t for t in _pages(tmp_path / "with.pdf"))
    box.setChecked(False)
    dialog.path.setText(str(tmp_path / "without.pdf"))
    assert dialog.export(), dialog.last_error
    assert not any("Workload fit" in t for t in _pages(tmp_path / "without.pdf"))
    plain = ExportDialog(None, rail_design(), None, [], directory=str(tmp_path))
    qtbot.addWidget(plain)
    assert not plain.sections["workload"].isEnabled()
    assert not plain.sections["workload"].isChecked()


@pytest.mark.slow
def test_window_export_uses_the_panels_estimate(
    qtbot: Any, main_window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = main_window()
    assert window.open_path(SAMPLES / "inference-ethernet.json")
    est = wait_estimate(qtbot, window)
    seen: list[ExportDialog] = []

    def fake_exec(self: ExportDialog) -> int:
        seen.append(self)
        self.set_format("pdf")
        self.path.setText(str(tmp_path / "win.pdf"))
        assert self.export(), self.last_error
        return int(QDialog.DialogCode.Accepted)

    monkeypatch.setattr(ExportDialog, "exec", fake_exec)
    window.export()
    assert seen and seen[0].estimate is est
    text = _workload_text(_pages(tmp_path / "win.pdf"))
    assert "inference serving" in text


@pytest.mark.slow
def test_cli_export_includes_the_workload_page(tmp_path: Path) -> None:
    out = tmp_path / "cli.pdf"
    sample = SAMPLES / "minimum-viable-enterprise.json"
    assert cli_main(["export", str(sample), "--pdf", str(out)]) == 0
    assert any("Workload fit" in t for t in _pages(out))


def test_inference_page_has_the_serving_answers_and_chart(sample_page: Sample) -> None:
    """The PDF, the panel and the CLI agree on the serving figures (issue 19)."""
    from designer.core.formatting import quantity

    name = "inference-ethernet.json"
    text, data, out = sample_page(name)
    inf = data["inference"]
    assert "Throughput vs latency, batch sweep" in text
    assert f"TPOT limit {inf['tpot_limit_ms']:.0f} ms" in text
    assert f"{quantity(inf['requests_per_s'])} requests/s" in text
    r = inf["replica"]
    assert f"TP {r['tp']} x PP {r['pp']} = {r['gpus']} GPUs" in text
    assert "INFERENCE_SERVES" in text
    if _PNG_DIR:
        import subprocess

        subprocess.run(
            ["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", str(out),
             str(Path(_PNG_DIR) / "serving-pdf")],
            check=True,
        )  # fmt: skip


_PNG_DIR = __import__("os").environ.get("SERVING_PNG_DIR")


@pytest.mark.slow
def test_page_counts_durations_and_money_read_as_in_the_panel(
    sample_page: Sample,
) -> None:
    """Issue 16 item 9: tokens read "15T" on the page as in the panel (not
    "1.5e+13"), money "$52.4M" (not "$52,376,496"), through one formatter."""
    text, data, _ = sample_page("dgx-h100-superpod-4su.json")
    assert "15T tokens" in text
    assert not re.search(r"\d\.\d+e\+1\d", text), re.findall(r"\S+e\+1\d\S*", text)
    owned = data["tco"]["total_usd"]["owned_3y"]
    assert f"${owned / 1e6:.1f}M" in text
    assert f"${owned:,.0f}" not in text
