"""One analysis per state (issue 21 item 1): in the editor an edit is indexed
once, by the validator's worker, and the estimate, its N-1 search and the floor
plan's cable lengths read that very index and report."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

import designer.analysis.index
from designer.core.link_commands import RemoveLinks
from tests.qt.helpers import settle
from tests.qt.workload.helpers import SAMPLES, wait_estimate

SAMPLE = "inference-ethernet.json"  # a workload block and a physical block
LINK = "hgx-0001.0/leaf-su01-r0"


def _count_index_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count every call of ``build_index``, wherever it was imported."""
    real = designer.analysis.index.build_index
    calls: list[str] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(threading.current_thread().name)
        return real(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "build_index", None) is real:
            monkeypatch.setattr(module, "build_index", counting)
    return calls


@pytest.mark.slow
def test_one_edit_builds_one_index_and_every_panel_shows_its_analysis(
    qtbot: Any, main_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = main_window()
    assert window.open_path(SAMPLES / SAMPLE)
    docks = window.physical_docks
    docks.floor_dock.show()
    docks.floor_dock.raise_()
    QApplication.processEvents()
    floor, cables = docks.floor, docks.cables
    window.canvas.select_ids(["hgx-0001"], center=False)
    wait_estimate(qtbot, window)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: bool(floor.cables) and not cables.busy, timeout=30_000)
    before = [(r.link, r.length_m) for r in floor.cables]
    assert LINK in [link for link, _ in before]
    estimates = window.estimate_runner
    own = (estimates.own_analyses, cables.own_indexes)
    reports: list[object] = []
    window.runner.report_ready.connect(reports.append)
    calls = _count_index_builds(monkeypatch)

    window.document.execute(RemoveLinks([LINK]))
    est = wait_estimate(qtbot, window)
    report = settle(qtbot, window)
    qtbot.waitUntil(
        lambda: (
            [r.link for r in floor.cables] != [link for link, _ in before]
            and not cables.busy
        ),
        timeout=30_000,
    )
    qtbot.wait(100)  # nothing else is on its way
    # one index of the new state, built by the validator's worker
    assert len(calls) == 1 and calls[0] != threading.main_thread().name
    assert (estimates.own_analyses, cables.own_indexes) == own
    # the estimate, its N-1 figures and the cable lengths read that analysis
    index = window.runner.latest_index
    facts = estimates._cache.facts
    assert facts is not None and facts._index is index
    assert any(facts.report is r for r in reports) and report in reports
    assert cables._view is not None and cables._view.index is index
    assert LINK not in [r.link for r in floor.cables]
    # and the Workload panel shows the figures of the validator's analysis
    assert window.workload_panel.estimate is est
    assert est.gpus == report.gpus
    assert est.n_minus_1.bisection_ratio_live == pytest.approx(report.bisection.ratio)
