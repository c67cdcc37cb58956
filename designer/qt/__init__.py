"""qt layer."""
