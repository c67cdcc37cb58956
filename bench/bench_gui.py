"""GUI benchmark: open + first paint, repaints, and edit-to-metrics latency.

Run: ``.venv/bin/python bench/bench_gui.py`` (offscreen; prints a table);
``--sizes 1K`` times one design only, ``--repeats N`` takes the median of N
runs of each edit (this machine's timings drift by up to 2x within minutes:
compare two trees by alternating short runs of each).
Targets on 2 cores: open <= 3 s; full-view repaint <= 100 ms; zoomed <= 30 ms;
edit to metrics on screen <= 50 ms at 100K GPUs and <= 15 ms at 1K, and at
100K GPUs at least 8x faster than the naive baseline below (the comparison
table says "MISS" where an edit is not).

Naive baseline, same run and same window: the runner analyses each edit from
scratch, as an editor without the column store would: the worker re-reads the
links as strings and codes them again, with no carried bisection bound.

The GUI CPU column is the CPU time the GUI thread spent from the edit to the
metrics on screen (median; ``time.thread_time``): the scene, the panels and the
paint, which take the interpreter lock from the worker while it analyses the
edit. Unlike the wall-clock columns it hardly moves with the machine's load,
so it compares two trees' GUI work in one short run.

The faults column counts the process's minor page faults from the edit to the
metrics (median): on a machine whose kernel pages cold memory out between
edits (this one runs DAMON pageout), each costs microseconds, and an edit
that touches memory paged out since the last is slower by that much; the
column tells those runs apart from a slower analysis.

The opening is timed from a collected heap (``gc.collect()`` first): this
process holds both generated designs, which a user's editor would not, and a
full collection falling due in the 1K open would rescan the 100K one (~130 ms).
The editor itself freezes an opened design's objects after the first paint
(:mod:`designer.qt.heap`), so the edits are timed as a user meets them.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop, QStandardPaths, QTimer

from designer.core.commands import Command, SetSettings
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.link_commands import RemoveLinks, UpdateLink
from designer.core.model import Design, Device, Purpose
from designer.generate import fat_tree
from designer.io import save_design

try:
    import resource  # (Unix: the page faults column)
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

REPEATS = 5
NAIVE_REPEATS = 3
EDITS: tuple[str, ...] = (
    "change a link's cables",
    "delete a link",
    "undo delete (re-insert)",
    "move a device",
    "change settings",
    "drop a device (palette)",
    "delete a device + links",
    "undo delete device",
    "swap a device's model",
)
TARGETS = {
    "open": {"1K": 3.0, "100K": 3.0},
    "full": {"1K": 0.100, "100K": 0.100},
    "zoomed": {"1K": 0.030, "100K": 0.030},
    **{kind: {"1K": 0.015, "100K": 0.050} for kind in EDITS},
}
SPEEDUP = 8.0
"""At 100K GPUs an edit is to reach its metrics this many times faster than
the naive baseline."""


def _faults() -> int:
    """Minor page faults of this process so far (0 where not counted)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource else 0


def _median(run: Callable[[], float], repeats: int = REPEATS) -> float:
    return statistics.median(run() for _ in range(repeats))


def _wait_report(window: object, timeout_ms: int = 60_000) -> None:
    loop = QEventLoop()
    window.report_shown.connect(loop.quit)  # type: ignore[attr-defined]
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    window.report_shown.disconnect(loop.quit)  # type: ignore[attr-defined]


def bench_design(label: str, design: Design, folder: Path) -> dict[str, float]:
    """Measure one design; return seconds per metric."""
    from PySide6.QtWidgets import QApplication

    from designer.qt.app import SCREENSHOT_SIZE, wait_for_report
    from designer.qt.main_window import MainWindow

    path = folder / f"{label}.json"
    save_design(design, path)
    window = MainWindow()
    window.resize(*SCREENSHOT_SIZE)
    window.show()
    wait_for_report(window)
    QApplication.processEvents()
    canvas = window.canvas
    out: dict[str, float] = {}

    gc.collect()  # see the module doc
    start = time.perf_counter()
    assert window.open_path(path)
    canvas.fit_all()
    canvas.viewport().repaint()
    out["open"] = time.perf_counter() - start
    wait_for_report(window)
    QApplication.processEvents()

    def repaint() -> float:
        t = time.perf_counter()
        canvas.viewport().repaint()
        return time.perf_counter() - t

    canvas.fit_all()
    QApplication.processEvents()
    out["full"] = _median(repaint)
    compute = next(d for d in window.document.design.devices if d.tier is None)
    canvas.select_ids([compute.id], center=True)
    canvas.select_ids([], center=False)
    for _ in range(40):
        if canvas.transform().m11() >= 1.0:
            break
        canvas.zoom_in()
    QApplication.processEvents()
    out["zoomed"] = _median(repaint)

    doc = window.document
    link_id = doc.design.links.id[0]
    # Deletions take another link (device) each time: the analysis keeps the
    # last few states' fabrics, so deleting one link again after its undo
    # would time a state it has seen rather than a new edit.
    spine_links = [
        lid
        for lid, a in zip(doc.design.links.id, doc.design.links.a, strict=True)
        if a.startswith("leaf")
    ][:32]
    mover = compute.id
    victims = [d.id for d in doc.design.devices if d.tier is None and d.id != mover][
        :32
    ]
    deleted = [0, 0]
    step = [0]

    def cables() -> Command:
        link = doc.design.links.get(link_id)
        assert link is not None
        return UpdateLink(link_id, {"cables": link.cables % 4 + 1})

    def delete() -> Command:
        deleted[0] += 1
        return RemoveLinks([spine_links[deleted[0] % len(spine_links)]])

    def move() -> Command:
        step[0] += 1
        d = next(x for x in doc.design.devices if x.id == mover)
        return move_devices({mover: (d.x + 20 * (-1) ** step[0], d.y)})

    def settings() -> Command:
        purpose = doc.design.settings.purpose
        other = (
            Purpose.INFERENCE if purpose is not Purpose.INFERENCE else Purpose.TRAINING
        )
        return SetSettings(doc.design.settings.model_copy(update={"purpose": other}))

    drops = [0]

    def drop() -> Command:
        drops[0] += 1
        return AddDevices(
            [Device(id=f"bench-drop-{drops[0]}", catalog_id="qm9700", x=0.0, y=0.0)]
        )

    def delete_device() -> Command:
        deleted[1] += 1  # a compute node and its links
        return RemoveDevices([victims[deleted[1] % len(victims)]])

    def swap() -> Command:
        d = next(x for x in doc.design.devices if x.id == mover)
        other = "dgx-h200" if d.catalog_id == "dgx-h100" else "dgx-h100"
        return UpdateDevices({mover: {"catalog_id": other}})

    worker: list[float | None] = [None]
    faults = [0]
    gui = [0.0]
    naive = [False]

    def timed(act: Callable[[], object]) -> float:
        # A lone edit, as a user makes it (a burst of edits is debounced ~100 ms).
        pause = QEventLoop()
        QTimer.singleShot(250, pause.quit)
        pause.exec()
        window.runner.last_seconds = None
        window.runner.from_scratch = naive[0]
        before = _faults()
        cpu = time.thread_time()
        t = time.perf_counter()
        act()
        _wait_report(window)
        window.validator_panel.repaint()
        window.statusBar().repaint()
        took = time.perf_counter() - t
        gui[0] = time.thread_time() - cpu
        faults[0] = _faults() - before
        worker[0] = window.runner.last_seconds  # None: the last report was reused
        return took

    def edit(make: Callable[[], Command]) -> float:
        return timed(lambda: doc.execute(make()))

    def delete_then_undo() -> float:
        value = edit(delete)
        doc.undo()
        _wait_report(window)
        return value

    def undo_delete() -> float:
        doc.execute(delete())
        _wait_report(window)
        return timed(doc.undo)

    def then_undo(make: Callable[[], Command]) -> Callable[[], float]:
        def run() -> float:
            value = edit(make)
            doc.undo()
            _wait_report(window)
            return value

        return run

    def undo_delete_device() -> float:
        doc.execute(delete_device())
        _wait_report(window)
        return timed(doc.undo)

    runs: dict[str, Callable[[], float]] = {
        EDITS[0]: lambda: edit(cables),
        EDITS[1]: delete_then_undo,
        EDITS[2]: undo_delete,
        EDITS[3]: lambda: edit(move),
        EDITS[4]: lambda: edit(settings),
        EDITS[5]: then_undo(drop),
        EDITS[6]: then_undo(delete_device),
        EDITS[7]: undo_delete_device,
        EDITS[8]: lambda: edit(swap),
    }
    edit(cables)  # warm-up
    for kind, run in runs.items():
        samples = []
        analysed: list[float] = []
        faulted: list[int] = []
        on_gui: list[float] = []
        for _ in range(REPEATS):
            samples.append(run())
            faulted.append(faults[0])
            on_gui.append(gui[0])
            if worker[0] is not None:
                analysed.append(worker[0])
        out[kind] = statistics.median(samples)
        out[f"worker {kind}"] = statistics.median(analysed) if analysed else 0.0
        out[f"faults {kind}"] = statistics.median(faulted)
        out[f"gui {kind}"] = statistics.median(on_gui)
    naive[0] = True
    for kind, run in runs.items():
        out[f"naive {kind}"] = _median(run, NAIVE_REPEATS)
    naive[0] = False
    window.document.mark_clean()
    window.close()
    return out


def main() -> int:
    """Print the benchmark table; exit 1 when a target is missed."""
    global REPEATS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1K,100K", help="1K, 100K or both")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args()
    REPEATS = args.repeats
    QStandardPaths.setTestModeEnabled(True)
    from designer.qt.app import ensure_app

    ensure_app(offscreen=True)
    nodes = {"1K": 128, "100K": 12500}
    labels = [x for x in args.sizes.split(",") if x in nodes]
    designs = {x: fat_tree("dgx-h100", nodes[x], "qm9700") for x in labels}
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, design in designs.items():
            results[label] = bench_design(label, design, Path(tmp))
    names = {
        "open": "open + first paint",
        "full": "full-view repaint",
        "zoomed": "zoomed repaint",
        **{kind: f"edit -> metrics: {kind}" for kind in EDITS},
    }
    missed = 0
    print("edit to metrics on screen".ljust(44), end="")
    print("".join(f" {label + ' GPUs':>16}" for label in labels))
    for key, name in names.items():
        cells = []
        for label in labels:
            value = results[label][key]
            ok = value <= TARGETS[key][label]
            missed += not ok
            cells.append(f"{value * 1000:9.1f} ms {'ok' if ok else 'MISS':>4}")
        print(f"{name:44}" + "".join(f" {c:>16}" for c in cells))
    print()
    print("edit to metrics on screen, ours vs naive (analysed from scratch), same run")
    big = labels[-1]  # the speed-up target and the worker's columns: the largest
    print(f"{'edit':32}", end="")
    print("".join(f" {label + ': ours':>11} {'naive':>9} {'x':>6}" for label in labels))
    target = f">={SPEEDUP:.0f}x at {big}"
    print(f"{'':32} {target:>12} {'(our worker)':>13} {'faults':>7} {'GUI CPU':>9}")
    for kind in EDITS:
        row = f"{kind:32}"
        for label in labels:
            ours, slow = results[label][kind], results[label][f"naive {kind}"]
            row += f" {ours * 1000:8.1f} ms {slow * 1000:6.1f} ms {slow / ours:5.1f}x"
        ours, slow = results[big][kind], results[big][f"naive {kind}"]
        fast = slow / ours >= SPEEDUP
        if big == "100K":  # (the target is set at 100K GPUs only)
            missed += not fast
        row += f" {('ok' if fast else 'MISS') if big == '100K' else '-':>12}"
        work = results[big][f"worker {kind}"]
        row += f" {work * 1000:10.1f} ms" if work else f" {'reused':>13}"
        row += f" {results[big][f'faults {kind}']:7.0f}"
        row += f" {results[big][f'gui {kind}'] * 1000:6.1f} ms"
        print(row)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
