"""generate layer."""
