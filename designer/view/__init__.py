"""What the editor shows, without Qt, in one subpackage per thing shown.

``canvas`` (geometry, quotient, selection, labels, tooltips, edits and the
right-click menu of the design canvas), ``catalog`` (the palette's search and the
one-line specs of an entry), ``physical`` (rack elevations and the floor plan),
``workload`` (the Workload panel's fields and answers, the compare dialog's
table) and ``pages`` (paper size, an SU cut into strips for a printed page).

``designer.qt`` draws these; the tests check them without a window.
"""
