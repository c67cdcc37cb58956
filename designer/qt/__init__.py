"""The desktop editor (the only package that imports PySide6 and pyqtgraph).

Entry point: :func:`designer.qt.app.run_gui`. The window lives in
:mod:`designer.qt.main_window`, the canvas in :mod:`designer.qt.canvas`, exports
in :mod:`designer.qt.export`.
"""
