"""Which links get a cable-count label: threshold, bundles only, cap, no overlaps."""

from __future__ import annotations

import itertools
import random

import numpy as np

from designer.core.model import Design, Device, Link, LinkTable
from designer.view.canvas.cable_labels import cable_label_rows, cable_text
from designer.view.canvas.geometry import Geometry
from designer.view.canvas.sizes import LOD_CABLE_LABELS, MAX_CABLE_LABELS
from tests.qt.canvas.synthetic import node_link

BOX = (24.0, 14.0)


def _geometry(
    pairs: list[tuple[tuple[float, float], tuple[float, float], int]],
) -> Geometry:
    """One link per pair of points, with its cable count."""
    devices: list[Device] = []
    links: list[Link] = []
    for k, (pa, pb, cables) in enumerate(pairs):
        a, b = f"a{k}", f"b{k}"
        devices += [
            Device(id=a, catalog_id="dgx-h100", x=pa[0], y=pa[1]),
            Device(id=b, catalog_id="qm9700", x=pb[0], y=pb[1]),
        ]
        links.append(node_link(f"l{k}", a, b, cables))
    g = Geometry()
    g.rebuild(Design(devices=devices, links=LinkTable.from_links(links)))
    return g


def _all(g: Geometry) -> np.ndarray:
    return np.ones(len(g.link_ids), bool)


VIEW = (-1000.0, -1000.0, 1000.0, 1000.0)


def test_only_bundles_and_only_when_zoomed_in() -> None:
    g = _geometry([((0, 0), (0, 200), 8), ((300, 0), (300, 200), 1)])
    rows = cable_label_rows(g, _all(g), VIEW, 1.0, BOX)
    assert rows.tolist() == [0]  # the single cable has no label
    assert cable_label_rows(g, _all(g), VIEW, LOD_CABLE_LABELS * 0.99, BOX).size == 0
    assert cable_label_rows(g, _all(g), VIEW, LOD_CABLE_LABELS, BOX).tolist() == [0]
    assert cable_text(8) == "×8"


def test_links_not_drawn_or_out_of_view_get_none() -> None:
    g = _geometry([((0, 0), (0, 200), 8), ((5000, 0), (5000, 200), 4)])
    assert cable_label_rows(g, _all(g), VIEW, 1.0, BOX).tolist() == [0]
    hidden = np.array([False, True])
    assert cable_label_rows(g, hidden, VIEW, 1.0, BOX).size == 0
    # a link crossing the whole view with both ends outside: left out
    g = _geometry([((-3000, 0), (3000, 0), 4)])
    assert cable_label_rows(g, _all(g), VIEW, 1.0, BOX).size == 0


def test_never_more_than_the_cap_and_never_overlapping() -> None:
    rng = random.Random(7)
    pairs = []
    for _ in range(4000):
        x, y = rng.uniform(-900, 900), rng.uniform(-900, 900)
        pairs.append(((x, y), (x + rng.uniform(-80, 80), y + 120), rng.randint(1, 9)))
    g = _geometry(pairs)
    scale = 1.0
    rows = cable_label_rows(g, _all(g), VIEW, scale, BOX)
    assert 0 < rows.size <= MAX_CABLE_LABELS
    assert (g.cables[rows] > 1).all()
    mid = (g.xy[g.la[rows]] + g.xy[g.lb[rows]]) / 2 * scale
    for p, q in itertools.combinations(mid.tolist(), 2):
        assert abs(p[0] - q[0]) >= BOX[0] or abs(p[1] - q[1]) >= BOX[1]
    assert cable_label_rows(g, _all(g), VIEW, scale, BOX, limit=5).size == 5


def test_labels_the_same_spot_once_and_prefers_links_seen_whole() -> None:
    # two bundles with the same midpoint: one label; a link with one end out of
    # view comes after every link seen whole, even one farther from the centre
    g = _geometry(
        [
            ((0, 0), (0, 200), 2),
            ((0, 0), (0, 200), 6),
            ((60, 500), (60, -1400), 3),  # midpoint 450 from the centre
            ((900, -900), (900, -700), 4),  # midpoint 1200 from the centre
        ]
    )
    rows = cable_label_rows(g, _all(g), VIEW, 1.0, BOX).tolist()
    assert rows == [0, 3, 2]
