"""Physical views of the editor: rack elevations and the floor plan, as docks."""

from designer.qt.physical.docks import PhysicalDocks, add_physical_docks

__all__ = ["PhysicalDocks", "add_physical_docks"]
