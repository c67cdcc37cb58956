"""Where the shipped ``resources/`` folder (catalog, icons, style sheet) lives.

From a source checkout (or an editable install) it sits beside the ``designer``
package. A PyInstaller bundle unpacks its data under ``sys._MEIPASS`` and its
spec (``packaging/cluster-designer.spec``) puts the folder there as
``resources/``; asking for the bundle first keeps the answer right even when
modules are not laid out as files in the bundle.
"""

from __future__ import annotations

import sys
from pathlib import Path

RESOURCES = "resources"


def resources_dir() -> Path:
    """The ``resources/`` folder of this run: in the frozen bundle or the checkout."""
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and isinstance(bundle, str):
        return Path(bundle) / RESOURCES
    return Path(__file__).resolve().parents[2] / RESOURCES


__all__ = ["RESOURCES", "resources_dir"]
