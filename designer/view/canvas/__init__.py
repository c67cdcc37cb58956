"""What the design canvas shows, without Qt: device and link geometry, the
quotient (group blocks and trunks), sizes and grid, the selection, device and
cable labels, hover texts, the edit builders and the right-click actions.

``designer.qt.canvas`` draws these and runs the edits.
"""
