"""The canvas selection model, without Qt."""

from __future__ import annotations

from designer.view.canvas.selection import Cut, Selection

DEVICES = {"a", "b", "c"}
LINKS = {"l1", "l2"}


def _select(sel: Selection, ids: list[str], **kw: bool) -> None:
    sel.select(ids, devices=DEVICES, links=LINKS, **kw)


def test_replace_add_toggle_and_unknown_ids() -> None:
    sel = Selection()
    _select(sel, ["a", "l1", "ghost"])
    assert (sel.devices, sel.links) == ({"a"}, {"l1"})
    _select(sel, ["b"], add=True)
    assert sel.devices == {"a", "b"}
    _select(sel, ["a", "l2"], toggle=True)
    assert (sel.devices, sel.links) == ({"b"}, {"l1", "l2"})
    _select(sel, ["c"])
    assert (sel.devices, sel.links) == ({"c"}, set())
    _select(sel, [])
    assert not sel


def test_forget_deleted_and_the_cut() -> None:
    sel = Selection()
    _select(sel, ["a", "b", "l1"])
    assert sel.forget({"b"}, {"l2"})
    assert not sel.forget({"z"}, set())
    assert (sel.devices, sel.links) == ({"a"}, {"l1"})
    sel.set_cut({"a", "b"}, ["l1"])
    assert sel.cut == Cut(frozenset({"a", "b"}), frozenset({"l1"}))
    sel.set_cut(None)
    assert sel.cut is None
    sel.set_cut({"a"})
    sel.clear()
    assert not sel and sel.cut is None
