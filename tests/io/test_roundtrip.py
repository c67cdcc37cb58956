"""Whatever the program builds saves and reopens identically (issue 9, item 2).

Random edit sequences go through the real commands and edit builders with
hostile values (labels past the limit, coordinates of 1e308, infinities and
NaN, huge prices, counts out of range, objects that skipped validation). Each
command either applies or is refused without changing the design; after every
step the saved text loads back to the same design (``model_dump`` equal and the
same text, so order is included), and the report is strict JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import designer.io.validator as validator_module
from designer.analysis import analyze
from designer.catalog import default_catalog
from designer.core.commands import Command, SetGroups, SetSettings
from designer.core.connect import suggest_link
from designer.core.device_commands import (
    AddDevices,
    RemoveDevices,
    UpdateDevices,
    move_devices,
)
from designer.core.document import Document
from designer.core.edits import (
    add_group,
    copy_selection,
    duplicate,
    paste,
    rename_device,
    rename_group,
    set_group_collapsed,
)
from designer.core.errors import ConnectionRefused
from designer.core.limits import COORD_LIMIT, LABEL_MAX, MAX_PRICE_USD
from designer.core.link_commands import AddLinks, RemoveLinks, UpdateLinks
from designer.core.model import Design, Device, Group, GroupKind
from designer.io import dumps_design, loads_design
from tests.hypo import examples

CATALOG = default_catalog()
MODELS = ["dgx-h100", "qm9700", "generic-switch", "sn5600"]
MODELS = [m for m in MODELS if m in CATALOG]

NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**30), 10**30),
    st.sampled_from(
        [COORD_LIMIT, -COORD_LIMIT, COORD_LIMIT + 1, 1e308, -1e308, 0.1, -0.0]
    ),
    st.floats(-2000, 2000),
)
LABELS = st.one_of(
    st.text(max_size=8),
    st.text(min_size=LABEL_MAX - 6, max_size=LABEL_MAX + 6),
    st.just("x" * LABEL_MAX),
)
PRICES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1.0, MAX_PRICE_USD, MAX_PRICE_USD * 1.01, 1e308, -1.0]),
)


def _ids(design: Design) -> list[str]:
    return [d.id for d in design.devices]


def _pick(draw: st.DrawFn, items: list[Any]) -> Any:
    return draw(st.sampled_from(items)) if items else None


def _command(draw: st.DrawFn, design: Design) -> Command | str | None:
    """One random edit (or "undo"/"redo"); None when it cannot even be built."""
    devices, groups = _ids(design), [g.id for g in design.groups]
    kind = draw(
        st.sampled_from(
            [
                "add", "add_unchecked", "move", "label", "rename_device",
                "group", "rename_group", "group_copy", "collapse", "connect",
                "cables", "duplicate", "paste", "delete", "unlink", "settings",
                "undo", "redo",
            ]
        )
    )  # fmt: skip
    if kind in ("undo", "redo"):
        return kind
    if kind in ("add", "add_unchecked"):
        model = draw(st.sampled_from(MODELS))
        fields: dict[str, Any] = {
            "id": f"d{len(design.devices)}-{draw(st.integers(0, 999))}",
            "catalog_id": model,
            "label": draw(LABELS),
            "x": draw(NUMBERS),
            "y": draw(NUMBERS),
        }
        if model == "generic-switch":
            fields["ports"] = {"ports": draw(st.integers(-2, 5000))}
        if kind == "add_unchecked":  # as a builder that skips validation would
            return AddDevices([Device.model_construct(**fields)])
        try:
            return AddDevices([Device(**fields)])
        except ValidationError:
            return None
    if not devices:
        return None
    if kind == "move":
        chosen = draw(st.lists(st.sampled_from(devices), min_size=1, max_size=3))
        return move_devices({d: (draw(NUMBERS), draw(NUMBERS)) for d in chosen})
    if kind == "label":
        return UpdateDevices({_pick(draw, devices): {"label": draw(LABELS)}})
    if kind == "rename_device":
        return rename_device(design, _pick(draw, devices), draw(LABELS))
    if kind == "group":
        members = draw(st.lists(st.sampled_from(devices), max_size=4))
        try:
            group = Group(
                id=f"g{len(groups)}-{draw(st.integers(0, 99))}",
                label=draw(LABELS),
                kind=draw(st.sampled_from(list(GroupKind))),
                parent=_pick(draw, [None, *groups]),
            )
        except ValidationError:
            return None
        return add_group(design, group, members)
    if not groups and kind in ("rename_group", "group_copy", "collapse"):
        return None
    if kind == "rename_group":
        return rename_group(design, _pick(draw, groups), draw(LABELS))
    if kind == "group_copy":  # a view editing a label without the builder
        gid = _pick(draw, groups)
        return SetGroups(
            [
                g.model_copy(update={"label": draw(LABELS)}) if g.id == gid else g
                for g in design.groups
            ]
        )
    if kind == "collapse":
        return set_group_collapsed(design, _pick(draw, groups), draw(st.booleans()))
    if kind == "connect":
        a, b = _pick(draw, devices), _pick(draw, devices)
        link = suggest_link(design, a, b, CATALOG)
        return AddLinks([link], lookup=CATALOG)  # as the editor makes links
    if kind == "cables":
        links = list(design.links.id)
        if not links:
            return None
        field = draw(st.sampled_from(["cables", "speed_gbps", "rail"]))
        value = draw(st.one_of(st.integers(-5, 200_000), st.none(), NUMBERS))
        return UpdateLinks({_pick(draw, links): {field: value}}, lookup=CATALOG)
    if kind in ("duplicate", "paste"):
        chosen = devices  # all: full groups are copied too (with "copy" labels)
        if draw(st.booleans()):
            chosen = draw(st.lists(st.sampled_from(devices), min_size=1, max_size=5))
        offset = (draw(NUMBERS), draw(NUMBERS))
        if kind == "duplicate":
            return duplicate(design, chosen, offset)
        return paste(design, copy_selection(design, chosen), offset)
    if kind == "delete":
        return RemoveDevices(draw(st.lists(st.sampled_from(devices), max_size=2)))
    if kind == "unlink":
        links = list(design.links.id)
        if not links:
            return None
        return RemoveLinks(draw(st.lists(st.sampled_from(links), max_size=2)))
    settings_update: dict[str, Any] = {"name": draw(LABELS)}
    if draw(st.booleans()):
        settings_update["price_overrides"] = {_pick(draw, MODELS): draw(PRICES)}
    return SetSettings(design.settings.model_copy(update=settings_update))


def reopen_check(design: Design) -> None:
    """Save, load, compare (model and text), also with the validator that big
    files get (each array stops at its first bad entry: same result)."""
    text = dumps_design(design)
    again = loads_design(text, "roundtrip.json", catalog=CATALOG)
    assert again.model_dump() == design.model_dump()
    assert dumps_design(again) == text
    real = validator_module.FULL_CHECK_BYTES
    validator_module.FULL_CHECK_BYTES = 0
    try:
        big_way = loads_design(text, "roundtrip.json", catalog=CATALOG)
    finally:
        validator_module.FULL_CHECK_BYTES = real
    assert dumps_design(big_way) == text


def strict_report(design: Design) -> None:
    report = analyze(design)
    json.dumps(report.model_dump(mode="json"), allow_nan=False)
    assert math.isfinite(report.cost_usd.total)


@pytest.mark.slow
@settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_random_edit_sequences_save_and_reopen_identically(
    drawn: st.DataObject,
) -> None:
    doc = Document(Design())
    for _ in range(drawn.draw(st.integers(1, 25))):
        try:
            command = _command(drawn.draw, doc.design)
        except (ValueError, ConnectionRefused):
            continue  # the builder refused: nothing to run
        if command is None:
            continue
        before = doc.design.model_dump()
        if command == "undo":
            doc.undo()
        elif command == "redo":
            doc.redo()
        else:
            assert isinstance(command, Command)
            try:
                doc.execute(command)
            except (ValueError, ConnectionRefused):
                assert doc.design.model_dump() == before  # refused: unchanged
        reopen_check(doc.design)
    strict_report(doc.design)
