"""Al-Fares k-ary fat tree: k^3/4 hosts, 5k^2/4 switches, every switch uses k ports."""

from __future__ import annotations

from collections import Counter

import pytest

from designer.core.model import Design, GroupKind
from designer.generate import GeneratorError, k_ary
from tests.generate.fabric_checks import check_invariants, device_counts


@pytest.mark.parametrize("k", [4, 6, 8, 16])
def test_k_ary_counts(k: int) -> None:
    d = k_ary(k)
    counts = device_counts(d)
    assert counts["node"] == k**3 // 4
    assert counts["leaf"] + counts["spine"] + counts["core"] == 5 * k * k // 4
    assert (counts["leaf"], counts["spine"], counts["core"]) == (
        k * k // 2,
        k * k // 2,
        (k // 2) ** 2,
    )
    used: Counter[str] = Counter()
    for a, b, c in zip(d.links.a, d.links.b, d.links.cables, strict=True):
        used[a] += c
        used[b] += c
    switches = [x for x in d.devices if x.tier is not None]
    assert all(x.catalog_id == "generic-switch" for x in switches)
    assert all(x.ports == {"ports": k} for x in switches)
    assert {used[x.id] for x in switches} == {k}
    hosts = [x for x in d.devices if x.tier is None]
    assert {x.catalog_id for x in hosts} == {"generic-host"}
    assert {used[x.id] for x in hosts} == {1}
    assert set(d.links.speed_gbps) == {400}
    assert set(d.links.cables) == {1}
    assert len([g for g in d.groups if g.kind is GroupKind.POD]) == k
    check_invariants(d)


def test_k_ary_pod_structure_is_al_fares() -> None:
    """Each edge reaches every aggregation switch of its pod, aggregation
    switch j of every pod reaches core group j (k/2 cores)."""
    k = 6
    d = k_ary(k)
    dev = d.device_map()
    agg_of_edge: dict[str, set[str]] = {}
    cores_of_agg: dict[str, set[str]] = {}
    for a, b in zip(d.links.a, d.links.b, strict=True):
        ta, tb = dev[a].tier, dev[b].tier
        if ta is not None and ta.value == "leaf":
            agg_of_edge.setdefault(a, set()).add(b)
            assert dev[b].group is not None
            assert dev[b].group == d.group_map()[dev[a].group or ""].parent
        if ta is not None and ta.value == "spine":
            assert tb is not None and tb.value == "core"
            cores_of_agg.setdefault(a, set()).add(b)
    assert {len(v) for v in agg_of_edge.values()} == {k // 2}
    groups = {frozenset(v) for v in cores_of_agg.values()}
    assert len(groups) == k // 2  # disjoint core groups of k/2
    assert all(len(g) == k // 2 for g in groups)


def test_k_ary_speed_and_round_trip() -> None:
    d = k_ary(4, speed_gbps=100)
    assert set(d.links.speed_gbps) == {100}
    assert Design.model_validate_json(d.model_dump_json()) == d


@pytest.mark.parametrize(
    ("k", "speed", "message"),
    [
        (5, 400, "even"),
        (0, 400, "even"),
        (True, 400, "even"),
        (200, 400, "stops at"),
        (4, 123, "not 123G"),
        (4, 0, "positive"),
    ],
)
def test_k_ary_bad_input(k: int, speed: int, message: str) -> None:
    with pytest.raises(GeneratorError, match=message):
        k_ary(k, speed_gbps=speed)
