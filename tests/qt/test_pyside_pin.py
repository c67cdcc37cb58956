"""PySide6 6.12.0 corrupts the refcount of None on CPython 3.11 (none_dealloc abort)."""

from __future__ import annotations

import sys

import PySide6
import pytest
from PySide6.QtGui import QPainterPath


@pytest.mark.slow
def test_installed_pyside_is_not_the_broken_release() -> None:
    assert PySide6.__version__ != "6.12.0", (
        "PySide6 6.12.0 aborts CPython 3.11 (Fatal Python error: none_dealloc); "
        "pyproject pins PySide6-Essentials!=6.12.0"
    )


@pytest.mark.slow
def test_painter_path_calls_leave_none_refcount_alone() -> None:
    path = QPainterPath()
    before = sys.getrefcount(None)
    for i in range(10_000):
        path.lineTo(float(i), float(i % 7))
    after = sys.getrefcount(None)
    assert abs(after - before) < 50, f"refcount(None) moved by {after - before}"
    assert path.elementCount() >= 10_000


@pytest.mark.slow
def test_pyproject_excludes_the_broken_release() -> None:
    import tomllib
    from pathlib import Path

    from packaging.requirements import Requirement

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    deps = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    (pyside,) = [
        Requirement(d) for d in deps if d.lower().startswith("pyside6-essentials")
    ]
    assert not pyside.specifier.contains("6.12.0")
    assert pyside.specifier.contains("6.11.3")
