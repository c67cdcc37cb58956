"""Autosave benchmark: what a recovery copy costs the GUI thread, and in the background.

Run: ``.venv/bin/python bench/bench_autosave.py [--sizes 1000,16000,100000]``
(offscreen; prints a table). Designs: ``fat_tree("dgx-h100", GPUs / 8, "qm9700")``.

For each size, with the real :class:`~designer.qt.autosave.Autosaver` of a
document that has one unsaved move:

* ``snapshot``: GUI-thread time of :meth:`Autosaver.write_now` (the snapshot of
  the design, the manifest, handing the job to the writer thread); median;
* ``write``: the writer thread's time for one copy (links rebuilt from the
  column state, serialised, written, fsynced, renamed); median;
* ``stall``: the longest gap a 2 ms GUI-thread timer saw while that write ran
  (the writer holds the GIL while pydantic or ``json`` serialise a large
  piece), next to the longest gap with no write (``idle``);
* ``naive``: the baseline, same run: the GUI thread serialises and writes the
  copy itself (``save_design``), so the window is frozen for all of it.

Target (issue 9): the GUI-thread cost a few ms at 100K GPUs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, QTimer

from designer.core.device_commands import move_devices
from designer.core.document import Document
from designer.generate import fat_tree
from designer.io import save_design

REPEATS = 7
WRITES = 3
TICK_MS = 2


def _gaps_while(start: object, done: object, timeout_ms: int = 120_000) -> float:
    """Run the event loop from ``start()`` until ``done`` fires; longest tick gap."""
    loop = QEventLoop()
    clock = QElapsedTimer()
    longest = [0.0]
    last = [0]

    def tick() -> None:
        now = clock.nsecsElapsed()
        longest[0] = max(longest[0], (now - last[0]) / 1e9)
        last[0] = now

    ticker = QTimer()
    ticker.setInterval(TICK_MS)
    ticker.timeout.connect(tick)
    done.connect(loop.quit)  # type: ignore[attr-defined]
    QTimer.singleShot(timeout_ms, loop.quit)
    clock.start()
    ticker.start()
    QTimer.singleShot(0, start)  # type: ignore[arg-type]
    loop.exec()
    ticker.stop()
    done.disconnect(loop.quit)  # type: ignore[attr-defined]
    return longest[0]


def bench(gpus: int, folder: Path) -> dict[str, float]:
    """Measure one size; seconds per metric."""
    from designer.qt import autosave
    from designer.qt.autosave import Autosaver, Delays

    design = fat_tree("dgx-h100", gpus // 8, "qm9700")
    document = Document(design)
    saver = Autosaver(document, delays=Delays(3600.0, 3600.0))  # written by hand
    first = design.devices[0]

    def edit(step: int) -> None:  # one unsaved move: a copy is due
        document.execute(move_devices({first.id: (first.x + 40.0 * step, first.y)}))

    snapshot: list[float] = []
    for step in range(REPEATS):
        edit(step + 1)
        t = time.perf_counter()
        saver.write_now()
        snapshot.append(time.perf_counter() - t)
        saver.flush()
        QCoreApplication.processEvents()

    writes: list[float] = []
    stalls: list[float] = []
    for step in range(WRITES):
        edit(step + 1)
        stalls.append(_gaps_while(saver.write_now, saver.written))
        assert saver.last_seconds is not None
        writes.append(saver.last_seconds)

    quiet = QTimer()
    quiet.setSingleShot(True)
    idle = _gaps_while(lambda: quiet.start(1000), quiet.timeout)

    naive: list[float] = []
    for _ in range(WRITES):
        t = time.perf_counter()
        save_design(document.design, folder / "naive.design.json")
        naive.append(time.perf_counter() - t)
    size = (saver.copy_path or folder).stat().st_size
    saver.shutdown()
    autosave.end_session()
    return {
        "devices": len(design.devices),
        "links": len(design.links),
        "mb": size / 1e6,
        "snapshot": statistics.median(snapshot),
        "write": statistics.median(writes),
        "stall": max(stalls),
        "idle": idle,
        "naive": statistics.median(naive),
    }


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,16000,100000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    app = QCoreApplication(sys.argv[:1])
    from designer.qt import autosave

    with tempfile.TemporaryDirectory() as tmp:
        autosave.use_directory(Path(tmp) / "recovery")
        print(
            f"{'GPUs':>8} {'devices':>8} {'links':>8} {'copy MB':>8} "
            f"{'snapshot':>9} {'write':>8} {'stall':>8} {'idle':>8} "
            f"{'naive':>8} {'naive/snap':>10}"
        )
        for gpus in sizes:
            r = bench(gpus, Path(tmp))
            print(
                f"{gpus:>8,} {r['devices']:>8,.0f} {r['links']:>8,.0f} "
                f"{r['mb']:>8.1f} {r['snapshot'] * 1e3:>7.2f}ms "
                f"{r['write'] * 1e3:>6.0f}ms {r['stall'] * 1e3:>6.0f}ms "
                f"{r['idle'] * 1e3:>6.0f}ms {r['naive'] * 1e3:>6.0f}ms "
                f"{r['naive'] / r['snapshot']:>9,.0f}x"
            )
        autosave.use_directory(None)
    print(
        "snapshot: GUI-thread cost of a copy; write: writer thread; stall: longest "
        f"{TICK_MS} ms-timer gap on the GUI thread during a write (idle: without); "
        "naive: serialise + write on the GUI thread (baseline)."
    )
    del app


if __name__ == "__main__":
    main()
