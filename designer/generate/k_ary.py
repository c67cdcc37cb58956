"""Al-Fares k-ary fat tree (SIGCOMM 2008) with generic k-port switches."""

from __future__ import annotations

from fractions import Fraction

from designer.catalog import Category
from designer.core.model import Design, Purpose
from designer.generate.fat_tree import fabric_design
from designer.generate.parts import CatalogLike, check_speed, entry, port_group, resolve
from designer.generate.plan import GeneratorError

HOST_ID = "generic-host"
SWITCH_ID = "generic-switch"
MAX_K = 96
"""k = 96 already means 221,184 hosts and 11,520 switches."""


def k_ary(
    k: int, *, speed_gbps: int = 400, catalog: CatalogLike | None = None
) -> Design:
    """The k-ary fat tree: k pods of k/2 edge + k/2 aggregation, (k/2)^2 cores.

    k^3/4 single-NIC ``generic-host`` hosts and 5k^2/4 ``generic-switch``
    switches whose ``Device.ports`` is ``{"ports": k}``; every link runs at
    ``speed_gbps``. Edge switches are the leaf tier (one per scalable unit of
    k/2 hosts), aggregation the spine tier (one pod group per pod), cores on top.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 2 or k % 2:
        raise GeneratorError(f"k must be an even whole number >= 2, got {k!r}")
    if k > MAX_K:
        raise GeneratorError(
            f"k = {k} means {k**3 // 4:,} hosts; the generator stops at k = {MAX_K}"
        )
    if (
        isinstance(speed_gbps, bool)
        or not isinstance(speed_gbps, int)
        or speed_gbps < 1
    ):
        raise GeneratorError(
            f"speed_gbps must be a positive whole number, got {speed_gbps!r}"
        )
    cat = resolve(catalog)
    host = entry(cat, HOST_ID, Category.COMPUTE, "k-ary host")
    switch = entry(cat, SWITCH_ID, Category.SWITCH, "k-ary switch")
    check_speed(port_group(host, "compute"), HOST_ID, speed_gbps)
    check_speed(port_group(switch, "ports"), SWITCH_ID, speed_gbps)
    half = k // 2
    nic = port_group(host, "compute")
    design, plan = fabric_design(
        compute=host,
        switch=switch,
        su_nodes=(half,) * (k * half),
        su_size=half,
        rail_optimized=False,
        ratios=(Fraction(1), Fraction(1)),
        tiers=3,
        name=f"k-ary fat tree, k = {k} ({k**3 // 4:,} hosts, {5 * k * k // 4:,} "
        "switches)",
        purpose=Purpose.DEVELOPMENT,
        notes=(
            "Al-Fares, Loukissas, Vahdat, 'A Scalable, Commodity Data Center "
            "Network Architecture', SIGCOMM 2008.",
        ),
        radix=k,
        speed_gbps=speed_gbps,
        compute_ports=None if nic.count == 1 else 1,
    )
    expected = (k, half, half, half * half)
    got = (plan.pods, plan.sus_per_pod, plan.spines_per_pod, plan.cores)
    if got != expected:  # the general planner must reproduce Al-Fares exactly
        raise GeneratorError(f"k-ary plan {got} differs from Al-Fares {expected}")
    return design
