"""Pure exports of a design and its report: BOM CSV, cabling plan CSV, Slurm topology.

No Qt here; the PDF and image exports live in ``designer.qt.export``.
"""

from __future__ import annotations

from designer.io.export._common import ExportCancelled
from designer.io.export.bom import BOM_COLUMNS, bom_rows, write_bom_csv
from designer.io.export.cabling import (
    CABLING_COLUMNS,
    cabling_rows,
    cabling_summary,
    write_cabling_csv,
)
from designer.io.export.slurm import (
    compress_hostlist,
    hostnames,
    slurm_topology,
    write_slurm_topology,
)

__all__ = [
    "BOM_COLUMNS",
    "CABLING_COLUMNS",
    "ExportCancelled",
    "bom_rows",
    "cabling_rows",
    "cabling_summary",
    "compress_hostlist",
    "hostnames",
    "slurm_topology",
    "write_bom_csv",
    "write_cabling_csv",
    "write_slurm_topology",
]
