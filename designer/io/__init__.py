"""Design files: load (with clear errors and migrations), atomic save, JSON Schema."""

from __future__ import annotations

from designer.io.diagnose import MAX_DEPTH
from designer.io.errors import DesignFileError, Problem
from designer.io.load import MAX_BYTES, load_design, loads_design
from designer.io.migrate import migrate
from designer.io.save import dumps_design, remove_stale_temps, save_design, snapshot
from designer.io.schema import design_json_schema

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "DesignFileError",
    "Problem",
    "design_json_schema",
    "dumps_design",
    "load_design",
    "loads_design",
    "migrate",
    "remove_stale_temps",
    "save_design",
    "snapshot",
]
