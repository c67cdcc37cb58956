"""Background analysis: off the GUI thread, debounced, stale results dropped."""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

import pytest

import designer.analysis
import designer.analysis.reuse
from designer.core.document import Document
from designer.qt.analysis_runner import BURST_DEBOUNCE_MS, AnalysisRunner, snapshot
from designer.qt.main_window import ANALYSING, BUSY_DELAY_MS
from tests.qt.helpers import add_dgx, settle


@pytest.mark.slow
def test_analysis_runs_off_the_gui_thread_and_never_blocks_edits(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    import designer.analysis.engine as engine

    real = engine.analyze_stages
    threads: list[threading.Thread] = []

    def slow(index: Any, design: Any, **kw: Any) -> Any:
        threads.append(threading.current_thread())
        time.sleep(0.3)
        yield from real(index, design, **kw)

    monkeypatch.setattr(engine, "analyze_stages", slow)
    window = main_window()
    settle(qtbot, window)
    start = time.perf_counter()
    add_dgx(window, 2)
    assert time.perf_counter() - start < 0.1  # the edit does not wait for analysis
    # a slow analysis says so once it has run for a moment
    assert window.validator_panel.state.text() != ANALYSING
    qtbot.waitUntil(
        lambda: window.validator_panel.state.text() == ANALYSING, timeout=2000
    )
    assert window.busy_label.text() == ANALYSING
    assert settle(qtbot, window).gpus == 16
    assert window.busy_label.text() == ""
    assert threads and all(t is not threading.main_thread() for t in threads)


def test_a_quick_analysis_never_says_it_is_analysing(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    window = main_window()
    settle(qtbot, window)
    said: list[str] = []
    monkeypatch.setattr(
        window.validator_panel, "set_busy", lambda: said.append("validator")
    )
    start = time.perf_counter()
    add_dgx(window, 2)
    assert settle(qtbot, window).gpus == 16
    took = time.perf_counter() - start
    if took < BUSY_DELAY_MS / 1000:  # (a loaded machine may take longer)
        assert said == []
        assert window.busy_label.text() == ""
    # and the status bar keeps its layout when it does say so
    label = window.busy_label
    assert label.minimumWidth() >= label.fontMetrics().horizontalAdvance(ANALYSING)


@pytest.mark.slow
def test_a_burst_of_edits_is_analysed_once_more(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    window = main_window()
    settle(qtbot, window)
    import designer.analysis.engine as engine

    calls: list[int] = []
    real = engine.analyze_stages

    def counting(index: Any, design: Any, **kw: Any) -> Any:
        calls.append(len(design.devices))
        yield from real(index, design, **kw)

    monkeypatch.setattr(engine, "analyze_stages", counting)
    for i in range(6):
        add_dgx(window, 1, prefix=f"b{i}")
    report = settle(qtbot, window)
    assert report.gpus == 48
    # the first edit starts at once; the other five fall in one debounce window
    assert calls[-1] == 6
    assert len(calls) <= 3
    assert BURST_DEBOUNCE_MS == 100


@pytest.mark.slow
def test_failure_is_shown_not_raised(
    qtbot: Any, main_window: Any, monkeypatch: Any
) -> None:
    import designer.analysis.engine as engine

    def broken(index: Any, design: Any, **kw: Any) -> Any:
        raise ValueError("no catalog entry 'x'")

    window = main_window()
    settle(qtbot, window)
    monkeypatch.setattr(engine, "analyze_stages", broken)
    add_dgx(window, 1)
    qtbot.waitUntil(
        lambda: window.validator_panel.state.text().startswith("Analysis failed"),
        timeout=10_000,
    )
    assert "no catalog entry 'x'" in window.validator_panel.state.text()
    assert window.busy_label.text() == "Analysis failed"


@pytest.mark.slow
def test_snapshot_is_independent_of_later_edits(qtbot: Any) -> None:
    doc = Document()
    runner = AnalysisRunner(doc, None)
    try:
        from designer.core.device_commands import AddDevices
        from designer.core.link_commands import AddLinks
        from designer.core.model import Device, Link

        doc.execute(AddDevices([Device(id="a", catalog_id="dgx-h100")]))
        doc.execute(AddDevices([Device(id="s", catalog_id="qm9700")]))
        copy, links = snapshot(doc.design)
        doc.execute(AddDevices([Device(id="b", catalog_id="dgx-h100")]))
        link = Link(
            id="l", a="a", a_port="compute", b="s", b_port="ports", speed_gbps=400
        )
        doc.execute(AddLinks([link]))
        assert [d.id for d in copy.devices] == ["a", "s"]
        assert len(links) == 0 and len(doc.design.links.arrays) == 1
        assert copy.model_dump() != doc.design.model_dump()
    finally:
        runner.shutdown()


@pytest.mark.slow
def test_link_edits_are_analysed_in_the_worker_and_moves_replay_the_report(
    qtbot: Any, monkeypatch: Any
) -> None:
    from designer.analysis import analyze
    from designer.core.device_commands import move_devices
    from designer.core.link_commands import RemoveLinks, UpdateLink
    from designer.generate import fat_tree

    builds = _spy_builds(monkeypatch)
    doc = Document(fat_tree("dgx-h100", 32, "qm9700"))
    runner = AnalysisRunner(doc, None)
    try:
        with qtbot.waitSignal(runner.report_ready, timeout=30_000) as first:
            runner.run_now()
        assert first.args[0].bisection.exact
        assert builds
        lid = doc.design.links.id[0]
        for edit in (
            UpdateLink(lid, {"cables": 3}),
            RemoveLinks([doc.design.links.id[-1]]),
        ):
            with qtbot.waitSignal(runner.report_ready, timeout=30_000) as got:
                doc.execute(edit)
            report, want = got.args[0], analyze(doc.design)
            assert report.cost_usd == want.cost_usd
            assert report.tiers == want.tiers
            assert report.bisection.gbps == want.bisection.gbps
            assert report.bisection.lower_gbps >= want.bisection.lower_gbps
            assert report.bisection.lower_gbps <= report.bisection.upper_gbps
        with qtbot.waitSignal(runner.report_ready, timeout=30_000):
            doc.undo()  # the link comes back
        assert threading.main_thread() not in builds  # never on the GUI thread
        started: list[int] = []
        runner.started.connect(lambda: started.append(1))
        last = runner._last_report
        d = doc.design.devices[0]
        with qtbot.waitSignal(runner.report_ready, timeout=5_000) as moved:
            doc.execute(move_devices({d.id: (d.x + 50, d.y)}))
        assert moved.args[0] is last and not started and not runner.busy
    finally:
        runner.shutdown()


def _spy_builds(monkeypatch: Any) -> list[threading.Thread]:
    """Record the thread of every index build."""
    builds: list[threading.Thread] = []
    real_build = designer.analysis.build_index

    def counting_build(*args: Any, **kwargs: Any) -> Any:
        builds.append(threading.current_thread())
        return real_build(*args, **kwargs)

    monkeypatch.setattr(designer.analysis, "build_index", counting_build)
    # the worker builds through its Reuse (designer.analysis.reuse)
    monkeypatch.setattr(designer.analysis.reuse, "build_index", counting_build)
    return builds


@pytest.mark.slow
def test_device_edits_give_the_report_of_a_fresh_analysis(
    qtbot: Any, monkeypatch: Any
) -> None:
    from designer.analysis import analyze
    from designer.core.device_commands import AddDevices, RemoveDevices, UpdateDevices
    from designer.core.model import Device
    from designer.generate import fat_tree

    builds = _spy_builds(monkeypatch)
    doc = Document(fat_tree("dgx-h100", 32, "qm9700"))
    runner = AnalysisRunner(doc, None)
    try:
        with qtbot.waitSignal(runner.report_ready, timeout=30_000):
            runner.run_now()
        host = next(d for d in doc.design.devices if d.catalog_id == "dgx-h100")
        edits: list[Any] = [
            AddDevices([Device(id="dropped", catalog_id="qm9700")]),  # palette drop
            RemoveDevices([host.id]),  # with its links
            UpdateDevices({"dropped": {"catalog_id": "q3400"}}),  # model swap
        ]
        for edit in [*edits, None, None]:  # then undo the swap and the delete
            with qtbot.waitSignal(runner.report_ready, timeout=30_000) as got:
                doc.execute(edit) if edit is not None else doc.undo()
            report, want = got.args[0], analyze(doc.design)
            assert report.gpus == want.gpus and report.cost_usd == want.cost_usd
            assert report.findings == want.findings
            assert report.bisection.gbps == want.bisection.gbps
        assert len(builds) == 6 and threading.main_thread() not in builds
    finally:
        runner.shutdown()


@pytest.mark.slow
def test_bounds_are_refined_in_the_background_and_an_edit_stops_it(
    qtbot: Any,
) -> None:
    """A 1K-GPU fat tree with uplinks removed: the first report is an interval,
    shown at once; refined reports follow with bounds that only ever tighten, and
    end as the CLI's refined analysis does. After an edit, only the new state's
    reports arrive."""
    from designer.core.document import Document
    from designer.core.link_commands import RemoveLinks
    from tests.analysis.builders import perturbed_fat_tree

    design = perturbed_fat_tree(1024, 0)
    doc = Document(design)
    runner = AnalysisRunner(doc, None)
    reports: list[Any] = []
    runner.report_ready.connect(reports.append)
    try:
        runner.run_now()
        qtbot.waitUntil(lambda: bool(reports) and runner.refined >= 1, timeout=60_000)
        assert reports[0].bisection.exact is False
        qtbot.waitUntil(lambda: not runner.refining, timeout=60_000)
        first, last = reports[0].bisection, reports[-1].bisection
        assert last.lower_gbps > first.lower_gbps or last.upper_gbps < first.upper_gbps
        assert last.upper_gbps <= first.upper_gbps
        assert last.lower_gbps >= first.lower_gbps
        for before, after in itertools.pairwise(reports):
            assert after.bisection.lower_gbps >= before.bisection.lower_gbps
            assert after.bisection.upper_gbps <= before.bisection.upper_gbps
        reports.clear()
        doc.execute(RemoveLinks([doc.design.links.id[-1]]))
        qtbot.waitUntil(lambda: bool(reports), timeout=60_000)
        qtbot.wait(200)
        assert all(r.cables == reports[0].cables for r in reports)
        assert reports[0].cables["compute"] == want_cables(design)
    finally:
        runner.shutdown()


def want_cables(design: Any) -> int:
    """Compute-fabric cables of the design as it is now."""
    return sum(link.cables for link in design.links if link.fabric.value == "compute")


@pytest.mark.slow
def test_snapshot_keeps_the_physical_block_of_its_state() -> None:
    """The live report of a placed design has lengths; a later rack move does
    not reach a snapshot taken before it."""
    from designer.core.physical_commands import EditRacks
    from designer.generate import superpod
    from designer.physical import place

    design = place(superpod("dgx-h100", 1))
    assert design.physical is not None
    light, _ = snapshot(design)
    assert light.physical is not None and light.physical == design.physical
    rack = design.physical.racks[0]
    EditRacks({rack.id: {"slot": rack.slot + 500}}).do(design)
    assert light.physical.racks[0].slot == rack.slot
