"""Scenario compare in the editor: *Design > Compare with...* (the dialog, its
chart and the worker that estimates each design)."""

from designer.qt.compare.dialog import CompareDialog

__all__ = ["CompareDialog"]
