"""Printed pages without Qt: which paper a report uses, and a scalable unit cut
into strips stacked on one page."""
