"""Benchmark of the physical layer: placement, cable lengths and media (issue 12).

Plain script, not part of the test run::

    .venv/bin/python bench/bench_physical.py [--sizes 1000,16000,100000]

For each size (GPUs; DGX H100 rail-optimized fat tree on QM9700, the 100K row is
the 12,500-node design of bench_analysis.py) it prints, median of 3 runs:

- ``place``: :func:`designer.physical.place` against a naive Python placement
  of the same rules (links walked one by one into dicts to find each switch's
  SU, every device copied with ``model_copy``, the design re-validated whole);
- ``lengths + media``: the vectorised routing, medium choice and cage sharing
  of :func:`designer.analysis.lengths.link_media` against a per-link Python
  loop (route by hand, ``Optics.cable_for_length`` per link);
- the whole index build of the placed design, and of the unplaced one (the
  analysis pays for lengths only when a design is placed).

Target: place + lengths/media of the 100K-GPU design <= 1 s. The naive
lengths must equal the vectorised ones, and no cage sharing may give a link a
shorter reach than its own length needs (checked on every run).

Then, in the editor (offscreen window, the Racks and Floor plan docks on
screen; ``--gui-sizes``, default the 100K design; ``--gui-sizes ''`` skips
it), the edit-to-metrics time of a rack edit, median of 5: from the command
being executed to

- ``command``: ``Document.execute`` returned (the command's own checks, and
  every follower of the document);
- ``docks``: the rack elevation and the floor plan repainted with the new
  kW, colours and places;
- ``metrics``: the validator showing the new analysis report (the worker's
  analysis of the placed design: lengths, media, findings).

Edits: a device dropped in another rack (the elevation's drop,
``PlaceDevices``) and a rack moved to another floor slot (``EditRacks``).
Naive baseline, same run and window: the docks rebuild everything on every
edit (rack state, elevation and floor plan read again; still cheaper than a
fresh ``PhysicalView`` with every rack's view) and the analysis runs from
scratch (as in bench_gui.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis import build_index
from designer.analysis.lengths import link_media, physical_index
from designer.catalog import Category, Media, default_catalog
from designer.core.model import Design, Placement
from designer.core.physical import RACK_UNIT_M
from designer.generate import fat_tree
from designer.physical import place

CAT = default_catalog()


def _median(fn: Any, runs: int = 3) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def naive_place(design: Design) -> Design:
    """The placement rules in plain Python (one rack type, SU rows, 4 per rack)."""
    entries = {d.id: CAT.get(d.catalog_id) for d in design.devices}
    su: dict[str, str] = {}
    for d in design.devices:
        e = entries[d.id]
        if e is not None and e.category is Category.COMPUTE:
            su[d.id] = d.group or "su"
    peers: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for link in design.links:  # row by row
        for x, y in ((link.a, link.b), (link.b, link.a)):
            if x not in su and y in su:
                peers[x][su[y]] += link.cables
    racks: dict[str, list[tuple[str, int]]] = defaultdict(list)
    used: dict[str, int] = defaultdict(int)
    count: dict[str, int] = defaultdict(int)

    def put(prefix: str, device: str, h: int, per: int | None) -> None:
        rack = f"{prefix}-{count[prefix]:02d}"
        if used[rack] + h > 48 or (per is not None and len(racks[rack]) >= per):
            count[prefix] += 1
            rack = f"{prefix}-{count[prefix]:02d}"
        racks[rack].append((device, used[rack] + 1))
        used[rack] += h

    for d in design.devices:
        e = entries[d.id]
        if e is None:
            continue
        h = max(1, int(-(-e.u_height // 1)))
        if d.id in su:
            put(f"{su[d.id]}-c", d.id, h, 4)
        elif peers[d.id]:
            best = max(peers[d.id].items(), key=lambda kv: kv[1])[0]
            put(f"{best}-n", d.id, h, None)
        else:
            put("spine", d.id, h, None)
    where = {dev: (rack, u) for rack, devs in racks.items() for dev, u in devs}
    devices = [
        d.model_copy(
            update={"placement": Placement(rack=where[d.id][0], u=where[d.id][1])}
        )
        if d.id in where
        else d
        for d in design.devices
    ]
    return Design.model_validate(
        {
            "settings": design.settings,
            "groups": design.groups,
            "devices": devices,
            "links": design.links,
        }
    )


def naive_lengths(design: Design) -> tuple[list[float], list[float]]:
    """Per link, by hand: (routed length, reach of the medium it picks)."""
    physical = design.physical
    assert physical is not None
    f = physical.facility
    types = physical.rack_type_map()
    rows = {r.id: r for r in physical.rows}
    halls = {h.id: h for h in physical.halls}
    centre: dict[str, tuple[float, float, float]] = {}
    for r in physical.racks:
        row, kind = rows[r.row], types[r.type]
        hall = halls[row.hall]
        x = hall.x_m + row.x_m + r.slot * 0.6 + kind.width_mm / 2000
        y = hall.y_m + row.y_m + kind.depth_mm / 2000
        centre[r.id] = (x, y, kind.u * RACK_UNIT_M)
    port: dict[str, tuple[str, float]] = {}
    layer: dict[tuple[str, str], Media] = {}
    for d in design.devices:
        e = CAT[d.catalog_id]
        p = d.placement
        if p is not None and p.rack is not None and p.u is not None:
            port[d.id] = (p.rack, (p.u - 1 + e.u_height / 2) * RACK_UNIT_M)
        for g in e.interfaces:
            layer[(d.id, g.name)] = g.media
    lengths: list[float] = []
    reach: list[float] = []
    for link in design.links:
        (ra, za), (rb, zb) = port[link.a], port[link.b]
        if ra == rb:
            length = abs(za - zb) + f.slack_m
        else:
            xa, ya, ta = centre[ra]
            xb, yb, tb = centre[rb]
            up = (ta - za) + (tb - zb) + 2 * f.tray_m
            length = up + abs(xa - xb) + abs(ya - yb) + f.slack_m
        lengths.append(length)
        c = CAT.optics.cable_for_length(
            link.speed_gbps, layer[(link.a, link.a_port)], length
        )
        reach.append(c.reach_m if c is not None else float("inf"))
    return lengths, reach


def run(gpus: int) -> dict[str, float]:
    """One row of the table."""
    design = fat_tree("dgx-h100", -(-gpus // 8), "qm9700")
    t_place, placed = _median(lambda: place(design, CAT))
    t_naive_place, _ = _median(lambda: naive_place(design), runs=1)
    index = build_index(design, CAT)  # the unplaced index: no lengths
    placed_index = build_index(placed, CAT)
    phys = physical_index(placed_index)
    assert phys is not None
    t_media, media = _median(lambda: link_media(placed_index, phys))
    t_naive_media, (naive_len, naive_reach) = _median(
        lambda: naive_lengths(placed), runs=1
    )
    assert np.allclose(media.length_m, naive_len)
    chosen = np.array([CAT.optics.cables[int(c)].reach_m for c in media.cable])
    assert (chosen >= np.array(naive_reach)).all()  # cage sharing never shortens
    t_index, _ = _median(lambda: build_index(placed, CAT))
    t_index0, _ = _median(lambda: build_index(design, CAT))
    del index
    return {
        "gpus": gpus,
        "devices": len(design.devices),
        "links": len(design.links),
        "racks": len(placed.physical.racks),  # type: ignore[union-attr]
        "place": t_place,
        "naive_place": t_naive_place,
        "media": t_media,
        "naive_media": t_naive_media,
        "index": t_index,
        "index0": t_index0,
    }


GUI_REPEATS = 5


def gui_edits(gpus: int) -> dict[str, float]:
    """Edit-to-metrics of rack edits in the window (see module doc), seconds."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QStandardPaths, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    QStandardPaths.setTestModeEnabled(True)
    from designer.core.commands import Command
    from designer.core.physical_commands import EditRacks
    from designer.qt.app import ensure_app, wait_for_report
    from designer.qt.main_window import MainWindow

    ensure_app(offscreen=True)
    design = place(fat_tree("dgx-h100", -(-gpus // 8), "qm9700"), CAT)
    window = MainWindow(persist=False, autosave=False)
    window.resize(1600, 1000)
    window.show()
    window.adopt_generated(design)
    wait_for_report(window)
    docks = window.physical_docks
    # both docks on screen: the elevation under the canvas, the floor plan right
    window.charts_dock.hide()
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, docks.elevation_dock)
    window.resizeDocks([docks.elevation_dock], [420], Qt.Orientation.Vertical)
    docks.floor_dock.raise_()
    QApplication.processEvents()
    assert docks.elevation.isVisible() and docks.floor.isVisible()
    doc = window.document
    live = docks.live
    mover = next(d.id for d in design.devices if d.catalog_id == "dgx-h100")
    home = live.rack_of(mover)
    assert home is not None
    docks.elevation.show_row_of(home)
    target = next(
        r
        for r in live.rack_ids
        if r != home and live.rack(r).role.value == "network" and live.rack(r).free
    )
    u = live.rack(target).free[-1][1] - live.height(mover) + 1
    physical = doc.design.physical
    assert physical is not None
    rack = physical.racks[0]
    empty_slot = 1 + max(r.slot for r in physical.racks if r.row == rack.row)

    def drop() -> Command:
        return live.place_command(mover, target, u)

    def move_rack() -> Command:
        return EditRacks({rack.id: {"slot": empty_slot}})

    def wait_report() -> None:
        loop = QEventLoop()
        window.report_shown.connect(loop.quit)
        QTimer.singleShot(120_000, loop.quit)
        loop.exec()
        window.report_shown.disconnect(loop.quit)

    def one(make: Any) -> tuple[float, float, float]:
        pause = QEventLoop()
        QTimer.singleShot(250, pause.quit)  # a lone edit, as a user makes it
        pause.exec()
        t = time.perf_counter()
        doc.execute(make())
        t_command = time.perf_counter() - t
        docks.flush()
        docks.elevation.view.viewport().repaint()
        docks.floor.view.viewport().repaint()
        t_docks = time.perf_counter() - t
        wait_report()
        window.validator_panel.repaint()
        t_metrics = time.perf_counter() - t
        doc.undo()
        docks.flush()
        wait_report()
        return t_command, t_docks, t_metrics

    out: dict[str, float] = {}
    for naive in (False, True):
        docks.rebuild_always = naive
        window.runner.from_scratch = naive
        for name, make in (("drop", drop), ("rack", move_rack)):
            one(make)  # warm-up
            runs = [one(make) for _ in range(GUI_REPEATS)]
            key = f"{'naive ' if naive else ''}{name}"
            out[f"{key} command"] = statistics.median(r[0] for r in runs)
            out[f"{key} docks"] = statistics.median(r[1] for r in runs)
            out[f"{key} metrics"] = statistics.median(r[2] for r in runs)
    docks.rebuild_always = False
    window.runner.from_scratch = False
    out["racks"] = len(live.rack_ids)
    out["devices"] = len(doc.design.devices)
    doc.mark_clean()
    window.close()
    return out


def print_gui(gpus: int) -> None:
    """Print the edit-to-metrics table of one size."""
    r = gui_edits(gpus)
    print()
    print(
        f"edit -> metrics on screen, {gpus:,} GPUs ({r['devices']:,.0f} devices, "
        f"{r['racks']:,.0f} racks), median of {GUI_REPEATS}, ours vs naive"
    )
    head = (
        f"{'edit':28} | {'command':>8} | {'docks':>8} {'naive':>8} {'x':>6} | "
        f"{'metrics':>8} {'naive':>8} {'x':>6}"
    )
    print(head)
    print("-" * len(head))
    for name, title in (
        ("drop", "device to another rack"),
        ("rack", "rack to another floor slot"),
    ):
        d, nd = r[f"{name} docks"], r[f"naive {name} docks"]
        m, nm = r[f"{name} metrics"], r[f"naive {name} metrics"]
        c = r[f"{name} command"]
        print(
            f"{title:28} | {c * 1000:6.1f}ms | "
            f"{d * 1000:6.1f}ms {nd * 1000:6.1f}ms {nd / d:5.1f}x | "
            f"{m * 1000:6.1f}ms {nm * 1000:6.1f}ms {nm / m:5.1f}x"
        )
    print(
        "command: Document.execute returned (the command's own checks and every "
        "follower); docks: + elevation and floor plan repainted; metrics: + the "
        "validator showing the new report (all from the same start)"
    )


def main() -> None:
    """Print the tables."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,16000,100000")
    ap.add_argument("--gui-sizes", default="100000")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    head = (
        f"{'GPUs':>8} {'devices':>8} {'links':>8} {'racks':>6} | {'place':>7} "
        f"{'naive':>7} {'x':>5} | {'len+media':>9} {'naive':>7} {'x':>6} | "
        f"{'place+media':>11} | {'index placed':>12} {'unplaced':>9}"
    )
    print(head)
    print("-" * len(head))
    for n in sizes:
        r = run(n)
        print(
            f"{r['gpus']:>8,.0f} {r['devices']:>8,.0f} {r['links']:>8,.0f} "
            f"{r['racks']:>6,.0f} | {r['place']:>6.3f}s {r['naive_place']:>6.2f}s "
            f"{r['naive_place'] / r['place']:>4.1f}x | {r['media']:>8.3f}s "
            f"{r['naive_media']:>6.2f}s {r['naive_media'] / r['media']:>5.0f}x | "
            f"{r['place'] + r['media']:>10.3f}s | {r['index']:>11.3f}s "
            f"{r['index0']:>8.3f}s"
        )
    print("target: place + lengths/media of 100K GPUs <= 1 s")
    for n in [int(s) for s in args.gui_sizes.split(",") if s]:
        print_gui(n)


if __name__ == "__main__":
    main()
