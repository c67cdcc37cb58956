"""Canvas fixtures: a shown CanvasView over a document, and mouse helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from pytestqt.qtbot import QtBot

from designer.catalog import Catalog, default_catalog
from designer.core.document import Document
from designer.core.model import Design
from designer.qt.canvas import CanvasView


@pytest.fixture
def catalog() -> Catalog:
    """The shipped catalog."""
    return default_catalog()


@pytest.fixture
def make_view(qtbot: QtBot, catalog: Catalog) -> Iterator[Callable[..., CanvasView]]:
    """Factory: a 1000x700 view at scale 1 centred on (0, 0), over a design."""
    views: list[CanvasView] = []

    def make(design: Design | None = None) -> CanvasView:
        view = CanvasView(Document(design or Design()), catalog)
        qtbot.addWidget(view)
        view.resize(1000, 700)
        view.show()
        qtbot.waitExposed(view)
        view.resetTransform()
        view.centerOn(0, 0)
        views.append(view)
        return view

    yield make
    for view in views:
        view.design_scene.detach()
