"""The physical layer above the analysis: auto-placement and what the rack views read.

``place`` puts any design into racks, rows and a data hall the way NVIDIA's
reference architectures do (:mod:`designer.physical.place`);
:mod:`designer.physical.views` answers the rack elevation and the floor plan
(U occupancy, hall coordinates, kW and cooling per rack, longest cables).
Pure: no Qt, layered above ``designer.analysis`` and ``designer.generate``.
"""

from designer.physical.place import PlacementError, PlaceOptions, place

__all__ = ["PlaceOptions", "PlacementError", "place"]
