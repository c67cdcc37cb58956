"""The pure exporters never import Qt."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow
def test_pure_exports_do_not_import_qt() -> None:
    code = (
        "import sys, designer.io.export, designer.io.export.bom, "
        "designer.io.export.cabling, designer.io.export.slurm; "
        "assert not any(m.startswith(('PySide6', 'shiboken6')) for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
