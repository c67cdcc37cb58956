"""The packaging scripts are plain modules in packaging/, not part of designer."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGING = Path(__file__).resolve().parents[2] / "packaging"
if str(PACKAGING) not in sys.path:
    # appended, so no module of the packaging folder shadows an installed one
    sys.path.append(str(PACKAGING))
