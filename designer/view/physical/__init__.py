"""The physical views without Qt: rack elevations and the floor plan, in the
editor (pixels) and in the PDF (points)."""
