"""Property: whatever the entry points accept, check_design (and the analysis)
accepts; what they refuse, check_design reports with the same reason."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.analysis import analyze
from designer.catalog.loader import default_catalog
from designer.core.checks import check_design, check_link_update
from designer.core.commands import Command
from designer.core.connect import plan_connection
from designer.core.edits import copy_selection, paste
from designer.core.errors import (
    ConnectionRefused,
    InvalidLink,
    PortBudgetExceeded,
    UnknownLink,
)
from designer.core.link_commands import AddLinks, UpdateLink
from designer.core.model import Design, Device, Fabric
from designer.core.specs import as_lookup
from designer.core.wiring import connect_all_to_all, wire_rail_optimized
from tests.hypo import examples

CATALOG = default_catalog()
LOOK = as_lookup(CATALOG)
KINDS = [
    "dgx-h100",
    "hgx-h100",
    "qm9700",
    "sn5600",
    "sn2201",
    "sn4600c",
    "lustre-appliance",
    "nfs-filer",
    "head-node",
    "generic-switch",
]
NODES = {"dgx-h100", "hgx-h100"}
RULE_CODES = {
    "PORT_BUDGET_EXCEEDED",
    "SPEED_MISMATCH",
    "MEDIA_MISMATCH",
    "UNKNOWN_PORT_GROUP",
    "FABRIC_ROLE_MISMATCH",
}
SPEEDS = [1, 25, 100, 200, 400, 800]


def _reason(message: str) -> str:
    """A refusal's reason as check_design words it for a design that has it."""
    return message.replace(" would be in use", " are in use")


class Edits:
    """Draws one edit through one entry point."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def draw(self, strategy: st.SearchStrategy[Any]) -> Any:
        return self.data.draw(strategy)

    def some(self, ids: list[str], lo: int = 1, hi: int = 3) -> list[str]:
        return self.draw(
            st.lists(st.sampled_from(ids), min_size=lo, max_size=hi, unique=True)
        )

    def edit(self, d: Design) -> tuple[str, Command]:
        """(entry point, command); a refusal raises ConnectionRefused."""
        ids = [x.id for x in d.devices]
        kind = self.draw(
            st.sampled_from(["connect", "update", "bulk", "rails", "paste"])
        )
        if kind == "update" and len(d.links):
            lid = self.draw(st.sampled_from(d.links.id))
            link = d.links.get(lid)
            assert link is not None
            fields: dict[str, object] = {}
            for name in self.some(["cables", "speed_gbps", "fabric", "a_port"], 1, 2):
                if name == "cables":
                    fields[name] = self.draw(st.integers(0, 80))
                elif name == "speed_gbps":
                    fields[name] = self.draw(st.sampled_from(SPEEDS))
                elif name == "fabric":
                    fields[name] = self.draw(st.sampled_from(list(Fabric)))
                else:
                    spec = LOOK(d.device_map()[link.a].catalog_id)
                    assert spec is not None
                    names = [g.name for g in spec.port_groups] + ["nope"]
                    fields[name] = self.draw(st.sampled_from(names))
            try:
                check_link_update(d, lid, fields, CATALOG)
            except (InvalidLink, UnknownLink):
                raise
            except ConnectionRefused as exc:
                _reported_alike(d, UpdateLink(lid, fields), exc)
                raise
            return kind, UpdateLink(lid, fields)
        if kind == "bulk":
            a = self.some(ids)
            b = self.some([i for i in ids if i not in a] or ids)
            cables = self.draw(st.integers(1, 4))
            return kind, connect_all_to_all(d, a, b, cables, CATALOG)
        if kind == "rails":
            dev = d.device_map()
            nodes = self.some([i for i in ids if dev[i].catalog_id in NODES] or ids)
            leaves = self.some([i for i in ids if i not in nodes] or ids, 1, 4)
            replace = self.draw(st.booleans())
            cmd = wire_rail_optimized(d, nodes, leaves, CATALOG, replace=replace)
            return kind, cmd
        if kind == "paste":
            clip = copy_selection(d, self.some(ids, 1, 4))
            if clip["links"] and self.draw(st.booleans()):
                clip = copy.deepcopy(clip)
                clip["links"][0]["cables"] = self.draw(st.integers(1, 80))
            try:
                return kind, paste(d, clip, lookup=CATALOG)
            except ConnectionRefused as exc:
                _reported_alike(d, paste(d, clip), exc)
                raise
        a, b = self.draw(st.permutations(ids))[:2]
        cables = self.draw(st.none() | st.integers(1, 8))
        fabric = self.draw(st.none() | st.sampled_from(list(Fabric)))
        speed = self.draw(st.none() | st.sampled_from(SPEEDS))
        plan = plan_connection(
            d, a, b, CATALOG, fabric=fabric, speed_gbps=speed, cables=cables
        )
        return kind, AddLinks([plan.link])


@pytest.mark.slow
@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_accepted_edits_keep_the_design_valid(data: st.DataObject) -> None:
    kinds = data.draw(st.lists(st.sampled_from(KINDS), min_size=3, max_size=7))
    d = Design(devices=[Device(id=f"d{i}", catalog_id=k) for i, k in enumerate(kinds)])
    edits = Edits(data)
    accepted = 0
    for _ in range(8):
        try:
            kind, command = edits.edit(d)
        except ValueError:
            continue  # refused (ConnectionRefused is a ValueError), or no devices
        command.do(d)
        accepted += 1
        assert check_design(d, CATALOG) == [], kind
    if accepted:
        codes = {f.code for f in analyze(d, CATALOG).findings}
        assert not codes & RULE_CODES


def _reported_alike(d: Design, command: Command, exc: ConnectionRefused) -> None:
    """The refused edit applied anyway: check_design gives the refusal's reason."""
    bad = d.model_copy(deep=True)
    command.do(bad)
    assert _reason(str(exc)) in [str(p) for p in check_design(bad, CATALOG)]


@pytest.mark.slow
@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_refused_updates_are_reported_by_check_design(data: st.DataObject) -> None:
    kinds = data.draw(st.lists(st.sampled_from(KINDS), min_size=3, max_size=5))
    d = Design(devices=[Device(id=f"d{i}", catalog_id=k) for i, k in enumerate(kinds)])
    edits = Edits(data)
    for _ in range(6):  # build a valid design first
        try:
            _, command = edits.edit(d)
        except ValueError:
            continue
        command.do(d)
    if not len(d.links):
        return
    lid = data.draw(st.sampled_from(d.links.id))
    link = d.links.get(lid)
    assert link is not None
    fields: dict[str, object] = {
        "cables": data.draw(st.integers(1, 140)),
        "speed_gbps": data.draw(st.sampled_from(SPEEDS)),
        "fabric": data.draw(st.sampled_from(list(Fabric))),
    }
    applied = d.model_copy(deep=True)
    UpdateLink(lid, fields).do(applied)
    problems = [str(p) for p in check_design(applied, CATALOG)]
    try:
        check_link_update(d, lid, fields, CATALOG)
    except ConnectionRefused as exc:
        assert _reason(str(exc)) in problems
        if not isinstance(exc, PortBudgetExceeded):
            # the validator's finding quotes the same reason
            messages = " ".join(f.message for f in analyze(applied, CATALOG).findings)
            assert str(exc) in messages
    else:
        assert problems == []
