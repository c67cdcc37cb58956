"""Design model: exact JSON round trip, LinkTable behaviour, reference validation."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from designer.core.model import (
    LINK_COLUMNS,
    Design,
    Device,
    Fabric,
    Group,
    GroupKind,
    Link,
    LinkTable,
    Placement,
    Purpose,
    Settings,
    Tier,
)
from tests.hypo import examples


def sample() -> Design:
    """A little of everything: nested groups, placement, ports, rails."""
    d = Design(
        settings=Settings(
            name="Row A",
            purpose=Purpose.INFERENCE,
            scheduler="slurm",
            monitoring=["dcgm"],
            price_overrides={"qm9700": 41000.0},
        ),
        groups=[
            Group(id="pod-1", label="Pod 1", kind=GroupKind.POD),
            Group(id="su-1", label="SU 1", kind=GroupKind.SU, parent="pod-1"),
        ],
        devices=[
            Device(id="dgx-1", catalog_id="dgx-h100", x=10.5, y=400, group="su-1"),
            Device(
                id="leaf-1",
                catalog_id="qm9700",
                tier=Tier.LEAF,
                placement=Placement(row="A", rack="A01", u=42),
            ),
            Device(id="gs-1", catalog_id="generic-switch", ports={"ports": 8}),
        ],
    )
    d.links.append(
        Link(
            id="l1",
            a="dgx-1",
            a_port="compute",
            b="leaf-1",
            b_port="ports",
            speed_gbps=400,
            rail=0,
        )
    )
    d.links.append(
        Link(
            id="l2",
            a="leaf-1",
            a_port="ports",
            b="gs-1",
            b_port="ports",
            cables=4,
            speed_gbps=400,
            fabric=Fabric.STORAGE,
        )
    )
    return d


def test_json_round_trip_is_exact() -> None:
    d = sample()
    text = d.model_dump_json()
    back = Design.model_validate_json(text)
    assert back == d
    assert back.model_dump() == d.model_dump()
    assert back.model_dump_json() == text
    # Links are stored column-wise in the file.
    raw = json.loads(text)
    assert raw["links"]["id"] == ["l1", "l2"]
    assert raw["links"]["cables"] == [1, 4]
    assert raw["links"]["rail"] == [0, None]


def test_linktable_equality_ignores_cached_columns() -> None:
    a, b = sample(), sample()
    assert a.links.a == ["dgx-1", "leaf-1"]  # a cached list on one side only
    assert a.links == b.links
    assert a == b
    assert set(a.links.model_dump()) == set(LINK_COLUMNS)
    assert json.loads(a.model_dump_json())["links"].keys() == set(LINK_COLUMNS)


def test_linktable_inequality_on_any_column() -> None:
    a, b = sample(), sample()
    b.links.replace(1, b.links.row(1).model_copy(update={"rail": 3}))
    assert a.links != b.links
    assert a != b


def test_linktable_rows_and_index() -> None:
    t = sample().links
    assert len(t) == 2
    assert t.get("l2") == t.row(1)
    assert t.get("nope") is None
    assert [link.id for link in t] == ["l1", "l2"]
    assert t.positions(t.id) == {"l1": 0, "l2": 1}
    t.insert(0, t.row(1).model_copy(update={"id": "l0"}))
    assert t.positions(t.id) == {"l0": 0, "l1": 1, "l2": 2}
    assert t.pop(0).id == "l0"
    assert t.positions(t.id) == {"l1": 0, "l2": 1}


def test_linktable_bulk_delete_restore_extend_truncate() -> None:
    rows = [
        Link(id=f"x{i}", a="a", a_port="p", b="b", b_port="p", speed_gbps=100 + i)
        for i in range(10)
    ]
    t = LinkTable.from_links(rows)
    before = t.model_dump()
    removed = t.delete([0, 3, 4, 9])
    assert removed.id == ["x0", "x3", "x4", "x9"]
    assert t.id == ["x1", "x2", "x5", "x6", "x7", "x8"]
    assert t.position("x5") == 2
    t.restore([0, 3, 4, 9], removed)
    assert t.model_dump() == before
    t.extend(
        LinkTable.from_links(
            [r.model_copy(update={"id": f"y{i}"}) for i, r in enumerate(rows[:2])]
        )
    )
    assert t.position("y1") == 11
    t.truncate(10)
    assert t.model_dump() == before
    assert t.position("y1") is None and not t.has("y1")


def test_linktable_from_columns_checks_lengths() -> None:
    cols = {name: [] for name in LINK_COLUMNS}
    assert len(LinkTable.from_columns(cols)) == 0
    cols["id"] = ["z"]
    with pytest.raises(ValueError, match="unequal length"):
        LinkTable.from_columns(cols)


def test_columns_of_unequal_length_are_rejected() -> None:
    raw = sample().model_dump(mode="json")
    raw["links"]["cables"].pop()
    with pytest.raises(ValidationError, match="column 'cables' has 1 entries"):
        Design.model_validate(raw)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda r: r["devices"].append(dict(r["devices"][0])),
            "duplicate device id 'dgx-1'",
        ),
        (
            lambda r: r["groups"].append(dict(r["groups"][0])),
            "duplicate group id 'pod-1'",
        ),
        (
            lambda r: r["links"]["b"].__setitem__(0, "ghost"),
            "links.b[0]: unknown device 'ghost'",
        ),
        (lambda r: r["links"]["id"].__setitem__(1, "l1"), "duplicate link id 'l1'"),
        (
            lambda r: r["devices"][0].__setitem__("group", "su-9"),
            "unknown group 'su-9'",
        ),
        (
            lambda r: r["groups"][0].__setitem__("parent", "su-1"),
            "parent chain has a cycle",
        ),
        (
            lambda r: r["groups"][1].__setitem__("parent", "row-9"),
            "unknown group 'row-9'",
        ),
        (
            lambda r: r["links"]["b"].__setitem__(0, "dgx-1"),
            "cannot join 'dgx-1' to itself",
        ),
    ],
)
def test_reference_problems_are_reported(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    raw = sample().model_dump(mode="json")
    mutate(raw)
    with pytest.raises(ValidationError) as info:
        Design.model_validate(raw)
    assert message in str(info.value)


def test_unknown_fields_and_bad_values_are_refused() -> None:
    raw = sample().model_dump(mode="json")
    raw["devices"][0]["colour"] = "green"
    with pytest.raises(ValidationError, match="colour"):
        Design.model_validate(raw)
    with pytest.raises(ValidationError):
        Device(id="has space", catalog_id="x")
    with pytest.raises(ValidationError):
        Link(id="l", a="a", a_port="p", b="b", b_port="p", speed_gbps=0)


def _rows(prefix: str, n: int) -> list[Link]:
    return [
        Link(id=f"{prefix}{i}", a="a", a_port="p", b="b", b_port="p", speed_gbps=400)
        for i in range(n)
    ]


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_linktable_lookups_stay_exact_across_splices(data: st.DataObject) -> None:
    """Deletes, undos, inserts and appends: every look-up gives the true
    position (oracle: a plain list of ids), and a state read before an edit is
    never changed by it (views and the worker keep reading old arrays)."""
    table = LinkTable.from_links(_rows("x", data.draw(st.integers(0, 60))))
    undo: list[tuple[list[int], LinkTable]] = []
    fresh = iter(range(10_000))
    for _ in range(data.draw(st.integers(1, 25))):
        op = data.draw(st.sampled_from(["delete", "undo", "insert", "append"]))
        n = len(table)
        state, ids_then = table.arrays, list(table.id)
        if op == "delete" and n:
            k = data.draw(st.integers(1, min(n, 80)))
            picked = data.draw(st.sets(st.integers(0, n - 1), min_size=k, max_size=k))
            positions = sorted(picked)
            undo.append((positions, table.delete(positions)))
        elif op == "undo" and undo:
            positions, rows = undo.pop()
            table.restore(positions, rows)
        elif op == "insert":
            at = data.draw(st.integers(-n - 2, n + 2))  # as list.insert reads it
            table.insert(at, _rows(f"n{next(fresh)}-", 1)[0])
            undo.clear()  # positions recorded before are stale now
        elif op == "append":
            table.extend(_rows(f"e{next(fresh)}-", data.draw(st.integers(1, 3))))
            undo.clear()
        assert state.ids.tolist() == ids_then
        assert not state.a.flags.writeable
        oracle = {lid: i for i, lid in enumerate(table.id)}
        probe = data.draw(st.lists(st.sampled_from([*table.id, "ghost"]), max_size=12))
        for lid in probe:
            assert table.position(lid) == oracle.get(lid)
            assert table.has(lid) == (lid in oracle)
            assert (lid in table.id_set()) == (lid in oracle)
        assert table.positions(probe) == {i: oracle[i] for i in probe if i in oracle}
        assert table.positions(table.id) == oracle
        assert [link.id for link in table] == table.id


def test_linktable_copy_is_independent() -> None:
    """A copy shares the arrays but not the edits (ReplaceDesign relies on it)."""
    rows = _rows("x", 30)
    t = LinkTable.from_links(rows)
    c = t.copy()
    t.delete([0, 5])
    c.extend(_rows("y", 2))
    assert t.id == [r.id for r in rows if r.id not in ("x0", "x5")]
    assert c.id == [r.id for r in rows] + ["y0", "y1"]
    assert c.position("x5") == 5 and t.position("x5") is None


def test_the_tier_order_is_defined_once_on_the_tier_type() -> None:
    from designer.analysis.index import TIER_RANK
    from designer.analysis.metrics import TIER_NAMES
    from designer.core.model import Tier

    assert [t.rank for t in Tier] == [1, 2, 3]
    assert [Tier.of_rank(r) for r in range(5)] == [
        None,
        Tier.LEAF,
        Tier.SPINE,
        Tier.CORE,
        None,
    ]
    names = ["other", "core", "storage", "leaf", "spine"]
    assert sorted(names, key=Tier.order_key) == [
        "leaf",
        "spine",
        "core",
        "other",
        "storage",
    ]
    assert TIER_NAMES == {1: "leaf", 2: "spine", 3: "core"}
    assert TIER_RANK == {Tier.LEAF: 1, Tier.SPINE: 2, Tier.CORE: 3}


def test_devices_and_groups_are_replaced_never_mutated() -> None:
    import pydantic
    import pytest

    from designer.core.model import Device, Group

    device = Device(id="a", catalog_id="dgx-h100")
    group = Group(id="su01", label="SU 1")
    with pytest.raises(pydantic.ValidationError):
        device.x = 10.0  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError):
        group.label = "SU 2"  # type: ignore[misc]
    moved = device.model_copy(update={"x": 10.0})
    assert (device.x, moved.x) == (0.0, 10.0)


@settings(max_examples=examples(60), deadline=None)
@given(
    cables=st.lists(st.integers(0, 5), max_size=40),
    picks=st.lists(st.integers(0, 40), max_size=20),
)
def test_pin_starts_are_the_running_sum_of_cables(
    cables: list[int], picks: list[int]
) -> None:
    """A few rows' pin starts (summed row by row) and many rows' (from the
    running sum) are where each link's pins start."""
    from designer.core.link_arrays import LinkArrays

    rows = [
        Link(
            id=f"l{i}",
            a="a",
            a_port="p",
            b="b",
            b_port="p",
            cables=c or 1,
            speed_gbps=400,
        )
        for i, c in enumerate(cables)
    ]
    state = LinkTable.from_links(rows).arrays
    assert isinstance(state, LinkArrays)
    at = [p for p in picks if p <= len(rows)]
    want = [sum(r.cables for r in rows[:p]) for p in at]
    assert state.pin_starts(at).tolist() == want
    assert state.pin_starts(at * 3).tolist() == want * 3  # past the few-rows way
