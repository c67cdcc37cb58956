"""The analysis must find the closed-form bisection on every generated fat tree.

bisection = (N/2) x injection / worst prefix product of the per-tier down:up
ratios (performance.md §1.3), exact (lower bound = upper bound).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

from designer.core.model import Design
from designer.generate import fat_tree, k_ary, superpod


def _analysis() -> Callable[[Design], object]:
    module = pytest.importorskip(
        "designer.analysis", reason="designer.analysis is not importable"
    )
    analyze = getattr(module, "analyze", None)
    if analyze is None:
        pytest.skip(
            "designer.analysis.analyze does not exist yet (written by the analysis "
            "helper); the closed-form bisection test waits for it"
        )
    return analyze  # type: ignore[no-any-return]


def closed_form(nodes: int, injection_gbps: int, ratios: tuple[float, ...]) -> float:
    """(N/2) x injection / max(1, worst prefix product of the ratios)."""
    worst, product = Fraction(1), Fraction(1)
    for r in ratios:
        product *= Fraction(r).limit_denominator(1000)
        worst = max(worst, product)
    return float(nodes // 2 * injection_gbps / worst)


CASES: list[tuple[str, Callable[[], Design], int, int, tuple[float, ...]]] = [
    ("k-ary k=4", lambda: k_ary(4), 16, 400, ()),
    ("k-ary k=8", lambda: k_ary(8), 128, 400, ()),
    ("B200 2 SU", lambda: superpod("dgx-b200", 2), 64, 3200, ()),
    ("B200 16 SU", lambda: superpod("dgx-b200", 16), 512, 3200, ()),
    ("GB200 1 SU", lambda: superpod("gb200-nvl72", 1), 8, 72 * 400, ()),
    (
        "H100 2:1 leaves",
        lambda: fat_tree("dgx-h100", 128, "qm9700", oversubscription=(2.0,)),
        128,
        3200,
        (2.0,),
    ),
    (
        "B200 2:1 spines",
        lambda: fat_tree("dgx-b200", 512, "qm9700", oversubscription=(1.0, 2.0)),
        512,
        3200,
        (1.0, 2.0),
    ),
    ("H100 Table 4, 1 SU + UFM", lambda: superpod("dgx-h100", 1), 31, 3200, ()),
    ("GB200 4 SU, 3 tiers", lambda: superpod("gb200-nvl72", 4), 32, 72 * 400, ()),
    (
        "H100 2 rail planes",
        lambda: fat_tree("dgx-h100", 512, "qm9700", tiers=2),
        512,
        3200,
        (),
    ),
    (
        "H100 not rail-optimized",
        lambda: fat_tree("dgx-h100", 64, "qm9700", rail_optimized=False),
        64,
        3200,
        (),
    ),
]


@pytest.mark.parametrize(
    ("name", "make", "nodes", "injection", "ratios"), CASES, ids=[c[0] for c in CASES]
)
def test_bisection_equals_closed_form(
    name: str,
    make: Callable[[], Design],
    nodes: int,
    injection: int,
    ratios: tuple[float, ...],
) -> None:
    analyze = _analysis()
    report = analyze(make())
    bisection = report.bisection  # type: ignore[attr-defined]
    expected = closed_form(nodes, injection, ratios)
    assert bisection.exact, (
        f"{name}: bounds {bisection.lower_gbps}..{bisection.upper_gbps}"
    )
    assert bisection.gbps == pytest.approx(expected), name
