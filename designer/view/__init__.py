"""What the canvas shows, without Qt: geometry of devices and links, the
quotient (group blocks and trunks), sizes and grid, and the canvas's edit builders;
the Workload panel's fields and answers (``workload_fields``, ``workload_summary``).

``designer.qt.canvas`` draws these; the tests check them without a window.
"""
