"""Canvas benchmark: open, first paint, full-view and zoomed repaint, edit latency,
and the cost of cable-count and device labels on close-ups (against the same paint
without them).

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_canvas.py``
(``--sizes 12500 128`` picks node counts; ``--no-naive`` skips the baseline;
``--labels-only`` prints only the cable-count and device-label tables).
Designs come from ``designer.generate.fat_tree("dgx-h100", N, "qm9700")``.
The naive baseline, in the same run, is one QGraphicsRectItem per device and
one QGraphicsLineItem per link (NoIndex: a BSP index over 300k long lines does
not finish building, see reference/performance.md §3.2).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QLineF, QRectF
from PySide6.QtGui import QImage, QPainter, QTransform
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
)

from designer.catalog import default_catalog
from designer.core.commands import Command
from designer.core.device_commands import AddDevices, RemoveDevices, move_devices
from designer.core.document import Document
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLinks
from designer.core.model import Design, Device, Fabric, Link, LinkTable
from designer.generate import fat_tree
from designer.qt.canvas import CanvasView
from designer.qt.canvas.scene import DesignScene
from designer.qt.canvas.view import FIT_MARGIN_PX
from designer.view.canvas.sizes import DEVICE_H, DEVICE_W, LOD_CABLE_LABELS

W, H = 1600, 1000
_EDITS = (
    ("move", "move 1 device"),
    ("add_link", "add/undo 1 link"),
    ("remove_device", "delete/undo 1 device"),
    ("burst6", "6 edits in one turn"),
)


def _ms(fn: Callable[[], object], repeat: int = 5) -> float:
    """Median wall time of ``fn`` in milliseconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _render(view: QGraphicsView) -> None:
    image = QImage(W, H, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    view.render(painter)
    painter.end()


def _zoom_rect(design: Design) -> QRectF:
    """A view with devices ~10 px wide, over the middle of the compute row."""
    xs = [d.x for d in design.devices]
    ys = [d.y for d in design.devices]
    scale = 10 / DEVICE_W
    width, height = W / scale, H / scale
    cx = (max(xs) + min(xs)) / 2
    return QRectF(cx - width / 2, max(ys) + 200 - height, width, height)


def _edit_timings(
    doc: Document, view: CanvasView, app: QApplication
) -> dict[str, float]:
    """Edit -> canvas repainted, per kind of edit (each done then undone).

    One sample is ``doc.execute`` (or undo) then ``app.processEvents()``, which
    applies the scene update and repaints the shown view; "canvas share" leaves
    the command itself out.
    """
    design = doc.design
    d = design.devices[len(design.devices) // 2]
    leaf = next(x for x in design.devices if str(x.tier) == "leaf")
    free = next(x for x in design.devices if x.id not in (d.id, leaf.id))
    link = Link(
        id="bench-link",
        a=free.id,
        a_port="compute",
        b=leaf.id,
        b_port="ports",
        cables=1,
        speed_gbps=400,
        fabric=Fabric.COMPUTE,
    )
    flip = [0]
    split: dict[str, list[float]] = {}

    def step(name: str, make: Callable[[], Command]) -> Callable[[], None]:
        def run() -> None:
            flip[0] ^= 1
            if flip[0]:
                doc.execute(make())
            else:
                doc.undo()
            t1 = time.perf_counter()
            app.processEvents()
            split.setdefault(name, []).append((time.perf_counter() - t1) * 1000)

        return run

    out = {
        "move": _ms(
            step("move", lambda: move_devices({d.id: (d.x + 16, d.y)})), repeat=6
        ),
        "add_link": _ms(step("add_link", lambda: AddLinks([link])), repeat=6),
        "remove_device": _ms(
            step("remove_device", lambda: RemoveDevices([d.id])), repeat=6
        ),
    }
    for name, times in split.items():
        out[f"{name}_canvas"] = statistics.median(times)

    def burst() -> None:
        # several edits in one event loop turn (a History jump): one canvas update
        for _ in range(3):
            doc.execute(move_devices({d.id: (d.x + 16, d.y)}))
            doc.undo()
        t1 = time.perf_counter()
        app.processEvents()
        split.setdefault("burst6", []).append((time.perf_counter() - t1) * 1000)

    out["burst6"] = _ms(burst, repeat=3)
    out["burst6_canvas"] = statistics.median(split["burst6"])
    return out


def bench_canvas(design: Design, app: QApplication) -> dict[str, float]:
    """Our CanvasView."""
    out: dict[str, float] = {}
    doc = Document(design)
    t0 = time.perf_counter()
    view = CanvasView(doc, default_catalog())
    view.resize(W, H)
    view.show()
    app.processEvents()
    view.fit_all()
    out["build_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    view.viewport().grab()
    out["first_paint_ms"] = (time.perf_counter() - t1) * 1000
    out["open_s"] = time.perf_counter() - t0
    out["items"] = len(view.scene().items())
    out["overview"] = float(view.design_scene.overview)
    out["full_grab_ms"] = _ms(lambda: view.viewport().grab())
    out["full_render_ms"] = _ms(lambda: _render(view))
    view.zoom_to_rect(_zoom_rect(design))
    app.processEvents()
    view.viewport().grab()
    out["zoom_overview"] = float(view.design_scene.overview)
    out["zoom_grab_ms"] = _ms(lambda: view.viewport().grab())
    out["zoom_render_ms"] = _ms(lambda: _render(view))
    for name, ms in _edit_timings(doc, view, app).items():
        out[f"{name}_zoomed_ms"] = ms
    view.fit_all()
    app.processEvents()
    for name, ms in _edit_timings(doc, view, app).items():
        out[f"{name}_full_ms"] = ms
    view.design_scene.detach()
    view.close()
    view.deleteLater()
    app.processEvents()
    return out


_FLUSH_EDITS = (
    "delete a leaf-spine link",
    "undo (restore the link)",
    "delete a compute node + links",
    "undo (restore node + links)",
    "drop a device",
    "undo (remove it)",
    "set a link's cables",
    "move a device",
)


def bench_flush(design: Design, app: QApplication) -> list[tuple[str, float, float]]:
    """GUI-thread cost of the scene's reaction to each small edit (fit-all view).

    Per edit: ``scene.flush()`` after ``doc.execute`` (or undo), and in the same
    run the naive baseline, a full rebuild of the scene (``_rebuild_all``).
    """
    doc = Document(design)
    view = CanvasView(doc, default_catalog())
    view.resize(W, H)
    view.show()
    app.processEvents()
    view.fit_all()
    app.processEvents()
    scene: DesignScene = view.design_scene
    d = doc.design
    kinds = {x.id: str(x.tier) for x in d.devices}
    t = d.links
    link = next(
        t.id[i]
        for i in range(len(t))
        if {kinds[t.a[i]], kinds[t.b[i]]} == {"leaf", "spine"}
    )
    node = next(x for x in d.devices if x.tier is None)
    extra = Device(id="bench-drop", catalog_id=node.catalog_id, x=node.x, y=node.y)
    steps: list[Callable[[], object]] = [
        lambda: doc.execute(RemoveLinks([link])),
        doc.undo,
        lambda: doc.execute(RemoveDevices([node.id])),
        doc.undo,
        lambda: doc.execute(AddDevices([extra])),
        doc.undo,
        lambda: doc.execute(UpdateLinks({link: {"cables": 3}})),
        lambda: doc.execute(move_devices({node.id: (node.x + 16, node.y)})),
    ]
    ours: dict[str, list[float]] = {}
    for _ in range(3):
        for name, step in zip(_FLUSH_EDITS, steps, strict=True):
            step()
            t0 = time.perf_counter()
            scene.flush()
            ours.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
        doc.undo()
        doc.undo()
        scene.flush()
    rebuild = _ms(scene.rebuild, repeat=3)
    view.design_scene.detach()
    view.close()
    view.deleteLater()
    app.processEvents()
    return [(name, statistics.median(ours[name]), rebuild) for name in _FLUSH_EDITS]


def bench_naive(design: Design, app: QApplication) -> dict[str, float]:
    """Baseline: one QGraphicsItem per device and per link."""
    out: dict[str, float] = {}
    t0 = time.perf_counter()
    scene = QGraphicsScene()
    scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
    pos = {}
    for dv in design.devices:
        pos[dv.id] = (dv.x, dv.y)
        scene.addItem(
            QGraphicsRectItem(
                dv.x - DEVICE_W / 2, dv.y - DEVICE_H / 2, DEVICE_W, DEVICE_H
            )
        )
    t = design.links
    for a, b in zip(t.a, t.b, strict=True):
        (x0, y0), (x1, y1) = pos[a], pos[b]
        scene.addItem(QGraphicsLineItem(QLineF(x0, y0, x1, y1)))
    rect = scene.itemsBoundingRect()
    scene.setSceneRect(rect)
    view = QGraphicsView(scene)
    view.resize(W, H)
    view.show()
    app.processEvents()
    view.fitInView(rect)
    out["build_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    view.viewport().grab()
    out["first_paint_ms"] = (time.perf_counter() - t1) * 1000
    out["open_s"] = time.perf_counter() - t0
    out["items"] = len(scene.items())
    out["full_grab_ms"] = _ms(lambda: view.viewport().grab(), 3)
    out["full_render_ms"] = _ms(lambda: _render(view), 3)
    view.fitInView(_zoom_rect(design))
    out["zoom_grab_ms"] = _ms(lambda: view.viewport().grab(), 3)
    out["zoom_render_ms"] = _ms(lambda: _render(view), 3)
    view.close()
    view.deleteLater()
    scene.clear()
    app.processEvents()
    return out


def _bundled_racks(rows: int = 8, per_row: int = 40, labelled: bool = False) -> Design:
    """Rows of DGX H100, each node one 8-cable bundle to its row's leaf (8 per leaf).

    ``labelled``: devices carry labels as generated designs do ("DGX H100 #17").
    """
    devices: list[Device] = []
    links: list[Link] = []
    for r in range(rows):
        for k in range(per_row):
            node = f"dgx-{r}-{k}"
            leaf = f"leaf-{r}-{k // 8}"
            if k % 8 == 0:
                x = 80.0 * (k + 3.5)
                name = f"Leaf row {r} {k // 8}" if labelled else ""
                devices.append(
                    Device(id=leaf, catalog_id="qm9700", label=name, x=x, y=250.0 * r)
                )
            name = f"DGX H100 #{r * per_row + k + 1}" if labelled else ""
            devices.append(
                Device(
                    id=node,
                    catalog_id="dgx-h100",
                    label=name,
                    x=80.0 * k,
                    y=250.0 * r + 150,
                )
            )
            links.append(
                Link(
                    id=f"{node}--{leaf}",
                    a=node,
                    a_port="compute",
                    b=leaf,
                    b_port="ports",
                    cables=8,
                    speed_gbps=400,
                )
            )
    return Design(devices=devices, links=LinkTable.from_links(links))


def bench_cable_labels(app: QApplication) -> dict[str, float]:
    """Close-up repaint with cable counts against the same view without them.

    Rows of bundles seen at 1.1 x the zoom threshold (the densest view that has
    labels); "after an edit" invalidates the link layer
    first, so the label layout is redone, as after any change of the design.
    """
    import designer.view.canvas.sizes as sizes

    design = _bundled_racks()
    view = CanvasView(Document(design), default_catalog())
    view.resize(W, H)
    view.show()
    app.processEvents()
    x0, y0, x1, y1 = view.design_scene.geometry.bounds()
    # just above the threshold, over the middle: the most labels ever drawn
    scale = 1.1 * LOD_CABLE_LABELS
    vp = view.viewport().rect()
    pad = 2 * FIT_MARGIN_PX
    w, h = (vp.width() - pad) / scale, (vp.height() - pad) / scale
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    view.zoom_to_rect(QRectF(cx - w / 2, cy - h / 2, w, h))
    app.processEvents()
    view.viewport().grab()
    out = {"scale": view.scale_factor()}
    out["labels"] = float(len(view.design_scene.cable_labels()))

    def edited() -> None:
        view.design_scene.invalidate_links()
        view.viewport().grab()

    out["with_ms"] = _ms(lambda: view.viewport().grab(), 7)
    out["with_edit_ms"] = _ms(edited, 7)
    threshold = sizes.LOD_CABLE_LABELS
    sizes.LOD_CABLE_LABELS = float("inf")  # the same paint, labels off
    try:
        view.design_scene.invalidate_links()
        out["without_ms"] = _ms(lambda: view.viewport().grab(), 7)
        out["without_edit_ms"] = _ms(edited, 7)
    finally:
        sizes.LOD_CABLE_LABELS = threshold
    view.design_scene.detach()
    view.close()
    view.deleteLater()
    app.processEvents()
    return out


def _print_cable_labels(app: QApplication) -> None:
    r = bench_cable_labels(app)
    print(
        f"\n## Cable-count labels: close-up at {r['scale']:.2f} px/unit, "
        f"{len(_bundled_racks().links)} bundles in the design, "
        f"{r['labels']:.0f} labels drawn"
    )
    print("| repaint | with labels, ms | without, ms | with/without |")
    print("|---|---|---|---|")
    for name, a, b in (
        ("steady (grab)", r["with_ms"], r["without_ms"]),
        ("after an edit (layout + grab)", r["with_edit_ms"], r["without_edit_ms"]),
    ):
        print(f"| {name} | {a:,.1f} | {b:,.1f} | {a / max(b, 1e-6):.2f}x |")


def bench_device_labels(app: QApplication) -> list[dict[str, float]]:
    """Close-ups of rows of labelled DGX H100 and leaves, with device labels
    against the same paint with them forced off (``scene.device_labels = False``).

    "zoom step" zooms by 1.15 (in, then out) before each grab, so the label
    layout meets a zoom it has not seen: the cost after a wheel step.
    """
    design = _bundled_racks(labelled=True)
    view = CanvasView(Document(design), default_catalog())
    view.resize(W, H)
    view.show()
    app.processEvents()
    g = view.design_scene.geometry
    x0, y0, x1, y1 = g.bounds()
    rows: list[dict[str, float]] = []
    for scale in (0.5, 1.0, 2.5):
        vp = view.viewport().rect()
        view.setTransform(QTransform.fromScale(scale, scale))
        view.centerOn((x0 + x1) / 2, (y0 + y1) / 2)
        app.processEvents()
        view.viewport().grab()
        shown = view.mapToScene(vp).boundingRect()
        out = {"scale": view.scale_factor()}
        out["devices"] = float(len(view.design_scene.device_ids_in_rect(shown)))

        def stepped(flip: list[float] = [1.15]) -> None:  # noqa: B006 (a counter)
            view.scale(flip[0], flip[0])
            flip[0] = 1 / flip[0]
            view.viewport().grab()

        for key, labels in (("with", None), ("without", False)):
            view.design_scene.device_labels = labels
            view.viewport().grab()
            out[f"{key}_ms"] = _ms(lambda: view.viewport().grab(), 7)
            out[f"{key}_step_ms"] = _ms(stepped, 8)
        view.design_scene.device_labels = None
        rows.append(out)
    view.design_scene.detach()
    view.close()
    view.deleteLater()
    app.processEvents()
    return rows


def _print_device_labels(app: QApplication) -> None:
    rows = bench_device_labels(app)
    print(
        "\n## Device labels: close-ups of 8 rows of 40 labelled DGX H100 and their "
        "leaves (without = the same paint, labels forced off)"
    )
    print(
        "| px/unit | devices in view | repaint | with labels, ms | without, ms "
        "| with/without |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        for name, a, b in (
            ("steady (grab)", r["with_ms"], r["without_ms"]),
            ("zoom step (zoom + grab)", r["with_step_ms"], r["without_step_ms"]),
        ):
            print(
                f"| {r['scale']:.2f} | {r['devices']:.0f} | {name} | {a:,.1f} | "
                f"{b:,.1f} | {a / max(b, 1e-6):.2f}x |"
            )


def _fmt_items(v: float) -> str:
    return f"{v:,.0f}"


def _fmt_s(v: float) -> str:
    return f"{v:,.2f}"


def _fmt_ms(v: float) -> str:
    return f"{v:,.1f}"


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[12500, 128])
    parser.add_argument("--no-naive", action="store_true")
    parser.add_argument(
        "--flush-only", action="store_true", help="only the edit -> scene table"
    )
    parser.add_argument(
        "--labels-only", action="store_true", help="only the cable-count table"
    )
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    if args.labels_only:
        _print_cable_labels(app)
        _print_device_labels(app)
        return 0
    flush_rows = []
    for nodes in args.sizes:
        design = fat_tree("dgx-h100", nodes, "qm9700")
        flush_rows.append((nodes, bench_flush(design.model_copy(deep=True), app)))
    print("\n## Scene update after one small edit (GUI thread, fit-all view)")
    print(
        "naive = full scene rebuild (`_rebuild_all`) in the same run. Our aim is "
        "<= 15 ms; a drop that creates a block (the first ungrouped device) "
        "rebuilds the blocks and takes ~30 ms at 100K. The issue's budget is the "
        "whole edit to metrics on screen (bench_gui.py)."
    )
    print("| GPUs | edit | scene flush, ms | naive rebuild, ms | naive/flush |")
    print("|---|---|---|---|---|")
    for nodes, table in flush_rows:
        for name, ms, naive_ms in table:
            print(
                f"| {nodes * 8:,} | {name} | {ms:,.1f} | {naive_ms:,.1f} | "
                f"{naive_ms / max(ms, 1e-6):.1f}x |"
            )
    if args.flush_only:
        return 0
    rows = []
    for nodes in args.sizes:
        design = fat_tree("dgx-h100", nodes, "qm9700")
        label = (
            f"{nodes * 8:,} GPUs ({len(design.devices):,} devices, "
            f"{len(design.links):,} links)"
        )
        ours = bench_canvas(design.model_copy(deep=True), app)
        naive = None if args.no_naive else bench_naive(design, app)
        rows.append((label, ours, naive))
    keys = [
        ("open_s", "open (build+fit+first paint), s", 3.0),
        ("first_paint_ms", "first paint, ms", None),
        ("full_grab_ms", "full-view repaint (grab), ms", 100.0),
        ("full_render_ms", "full-view render to QImage, ms", 100.0),
        ("zoom_grab_ms", "zoomed repaint (grab), ms", 30.0),
        ("zoom_render_ms", "zoomed render to QImage, ms", 30.0),
        *[
            (key, f"edit -> canvas repainted: {what} ({where}){part}, ms", None)
            for kind, what in _EDITS
            for where in ("zoomed", "full")
            for key, part in (
                (f"{kind}_{where}_ms", ""),
                (f"{kind}_canvas_{where}_ms", ", canvas share"),
            )
        ],
        ("items", "QGraphicsItems in scene", None),
    ]
    for label, ours, naive in rows:
        print(
            f"\n## {label}  (overview at fit: {bool(ours['overview'])}, "
            f"when zoomed: {bool(ours['zoom_overview'])})"
        )
        print("| metric | canvas | naive | naive/canvas | target |")
        print("|---|---|---|---|---|")
        for key, name, target in keys:
            a = ours.get(key)
            b = naive.get(key) if naive else None
            ratio = f"{b / a:.1f}x" if a and b else "-"
            fmt = (
                _fmt_items
                if key == "items"
                else _fmt_s
                if key.endswith("_s")
                else _fmt_ms
            )
            print(
                f"| {name} | {fmt(a) if a is not None else '-'} | "
                f"{fmt(b) if b is not None else '-'} | {ratio} | "
                f"{'<= ' + str(target) if target else ''} |"
            )
    _print_cable_labels(app)
    _print_device_labels(app)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
