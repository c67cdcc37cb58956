"""What the Workload panel, its Serving tab, the report pages and the compare
dialog say about an estimate, without Qt: the input fields, the summary lines,
the chart points and the compare table."""
