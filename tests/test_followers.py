"""docs/architecture.md names every follower of a document's events: the table
equals the classes that subscribe in the code and the followers a main window
really has, with their stages."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\s*\| `(\w+)` \| `([\w/]+\.py)` \| (\w+) \| (.*) \|\s*$")


def _documented() -> dict[str, tuple[str, str, bool]]:
    """Follower -> (module, stage, only while open) from the docs' table."""
    text = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    rows = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            name, module, stage, what = m.groups()
            rows[name] = (module, stage, what.startswith("(while open)"))
    return rows


def _subscribers_in_code() -> dict[str, tuple[str, str]]:
    """Class -> (module, stage) of every ``*.subscribe(listener[, Stage.X])``."""
    found: dict[str, tuple[str, str]] = {}
    for path in (ROOT / "designer").rglob("*.py"):
        text = path.read_text("utf-8")
        if "subscribe" not in text:  # no such call to find: not worth parsing
            continue
        tree = ast.parse(text)
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for call in (n for n in ast.walk(cls) if isinstance(n, ast.Call)):
                f = call.func
                if not (isinstance(f, ast.Attribute) and f.attr == "subscribe"):
                    continue
                stage = "PANELS"  # Document.subscribe's default
                if len(call.args) > 1 and isinstance(call.args[1], ast.Attribute):
                    stage = call.args[1].attr
                module = path.relative_to(ROOT / "designer").as_posix()
                found[cls.name] = (module, stage)
    return found


def test_the_docs_list_every_subscriber_in_the_code() -> None:
    documented = {k: (m, s) for k, (m, s, _) in _documented().items()}
    assert len(documented) >= 10
    assert documented == _subscribers_in_code()


def test_the_docs_list_the_followers_of_a_main_window(qtbot: Any) -> None:
    from designer.core.document import Stage
    from designer.qt.main_window import MainWindow

    window = MainWindow(persist=False, autosave=False)
    try:
        live = {
            type(listener.__self__).__name__: stage.name
            for stage, listener in window.document._listeners
        }
        rows = _documented()
        always = {k: s for k, (_, s, optional) in rows.items() if not optional}
        assert live == always
        # the table is in Stage order: the order the document calls them in
        stages = [Stage[s] for _, s, _ in rows.values()]
        assert stages == sorted(stages)
    finally:
        window.document.mark_clean()
        window.close()


STEP_FOLLOWERS = {
    "PropertiesPanel",
    "HistoryPanel",
    "MainWindow",
    "Autosaver",
    "CompareDialog",
}
"""Followers that act on every step whatever it changed (re-read, reschedule):
they have no table of event kinds."""


def test_every_follower_that_reads_events_says_what_it_does_with_each_kind(
    qtbot: Any,
) -> None:
    """A follower either acts on every step alike, or holds a ``Reads`` table
    naming every kind of event (built when the follower is, so a new kind of
    event stops each one that does not say what it does with it)."""
    from designer.core.events import EVENT_TYPES, Reads
    from designer.qt.main_window import MainWindow

    window = MainWindow(persist=False, autosave=False)
    try:
        followers = {
            type(listener.__self__).__name__: listener.__self__
            for _, listener in window.document._listeners
        }
        readers = {n: f for n, f in followers.items() if n not in STEP_FOLLOWERS}
        # the compare dialog follows only while it is open
        assert set(followers) - set(readers) == STEP_FOLLOWERS - {"CompareDialog"}
        assert set(readers) == {
            "AnalysisRunner",
            "EstimateRunner",
            "SceneFollower",
            "CanvasView",
            "WorkloadPanel",
            "PhysicalDocks",
        }
        for name, follower in readers.items():
            reads = getattr(follower, "reads", None)
            assert isinstance(reads, Reads), f"{name} has no table of event kinds"
            for kind in EVENT_TYPES:
                assert callable(reads.handler(kind))
    finally:
        window.document.mark_clean()
        window.close()
