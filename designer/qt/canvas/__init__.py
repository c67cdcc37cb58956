"""The design canvas: a QGraphicsView editor that mirrors the document's design."""

from designer.qt.canvas.scene import DesignScene
from designer.qt.canvas.view import CATALOG_MIME, CanvasView

__all__ = ["CATALOG_MIME", "CanvasView", "DesignScene"]
