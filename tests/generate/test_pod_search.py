"""Three-tier pod search: every pod size is tried, checked against an enumeration.

The oracle here enumerates, with plain loops and none of the generator's
helpers, every pod size q (1..SUs), every spine count s and every core group
size c for which a pod of q scalable units wires equally to s spines at the
spine ratio, and the pods to cores; the generator must find a fabric whenever
one exists, with the fewest pods.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.generate import GeneratorError, fat_tree
from designer.generate.plan import plan_fabric, su_template
from tests.generate.fabric_checks import check_invariants, device_counts, up_down
from tests.hypo import examples


def three_tier_options(
    leaves: int, up: int, radix: int, r2: Fraction, sus: int
) -> list[tuple[int, int, int, int]]:
    """Every (pods, pod size, spines, cores per group) that builds the fabric."""
    out = []
    for q in range(1, sus + 1):
        pods = -(-sus // q)
        for s in range(1, up + 1):
            if up % s:
                continue
            down = q * leaves * (up // s)  # each leaf gives each spine up/s cables
            spine_up = Fraction(down) / r2
            if spine_up.denominator != 1 or down + spine_up > radix:
                continue
            sup = int(spine_up)
            for c in range(1, sup + 1):
                # each spine gives each core of its group sup/c cables, one
                # set per pod: a core needs pods x sup/c ports
                if sup % c == 0 and pods * (sup // c) <= radix:
                    out.append((pods, q, s, c))
    return out


@pytest.mark.slow
def test_the_7_to_1_roce_fabric_is_found() -> None:
    """Issue case: 3,072 HGX H100 on 64-port 400G at 1:1 / 7:1 (a 7-SU pod)."""
    r2 = Fraction(7)
    t = su_template(32, 8, 64, Fraction(1), True)
    options = three_tier_options(t.leaves, t.leaf_up, 64, r2, 96)
    assert options and not [o for o in options if o[1] < 7]  # 1-6 SU pods fail
    assert min(o[0] for o in options) == 14
    design = fat_tree(
        "hgx-h100", 3072, "generic-400g-64", oversubscription=(1, 7), tiers=3
    )
    counts = device_counts(design)
    assert (counts["leaf"], counts["spine"], counts["core"]) == (768, 14 * 32, 64)
    check_invariants(design, (1.0, 7.0))
    ups, down = up_down(design)
    # a full pod's spine: 56 leaves x 1 cable down, 8 up (7:1 exactly)
    spine = next(d for d in ups if d.startswith("spine"))
    assert (down[spine], sum(ups[spine].values())) == (56, 8)


@settings(max_examples=examples(120), deadline=None)
@given(
    su_size=st.integers(1, 40),
    ports=st.sampled_from([1, 2, 4, 8]),
    radix=st.sampled_from([16, 24, 32, 40, 48, 64]),
    r1=st.sampled_from([Fraction(1), Fraction(2), Fraction(3)]),
    r2=st.sampled_from(
        [Fraction(1), Fraction(2), Fraction(3), Fraction(5), Fraction(7)]
    ),
    sus=st.integers(1, 60),
    rail=st.booleans(),
)
def test_pod_search_matches_the_enumeration(
    su_size: int,
    ports: int,
    radix: int,
    r1: Fraction,
    r2: Fraction,
    sus: int,
    rail: bool,
) -> None:
    try:
        t = su_template(su_size, ports, radix, r1, rail)
    except GeneratorError:
        return  # no leaf of this switch at this ratio: not the pod search's business
    options = three_tier_options(t.leaves, t.leaf_up, radix, r2, sus)
    kwargs = {
        "su_nodes": (su_size,) * sus,
        "su_size": su_size,
        "ports": ports,
        "radix": radix,
        "ratios": (r1, r2),
        "rail_optimized": rail,
        "tiers": 3,
        "planes": 1,
    }
    if not options:
        with pytest.raises(GeneratorError):
            plan_fabric(**kwargs)  # type: ignore[arg-type]
        return
    plan = plan_fabric(**kwargs)  # type: ignore[arg-type]
    fewest = min(o[0] for o in options)
    assert plan.pods == fewest
    assert (plan.pods, plan.sus_per_pod, plan.spines_per_pod) in {
        (p, q, s) for p, q, s, _ in options
    }
    # the smallest pod that gives the fewest pods, so they are balanced
    assert plan.sus_per_pod == min(q for p, q, _, _ in options if p == fewest)
    assert plan.pods == ceil(sus / plan.sus_per_pod)
    assert plan.spine_down + plan.spine_up <= radix
    assert Fraction(plan.spine_down, plan.spine_up) == r2
