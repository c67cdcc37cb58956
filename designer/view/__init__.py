"""What the canvas shows, without Qt: geometry of devices and links, the
quotient (group blocks and trunks), sizes and grid, and the canvas's edit builders.

``designer.qt.canvas`` draws these; the tests check them without a window.
"""
