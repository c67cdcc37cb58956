"""Hypothesis profiles: ``dev`` for day-to-day runs, ``ci`` for the full suite.

``HYPOTHESIS_PROFILE`` chooses (``scripts/test.sh`` and ``.ci/run`` set ``ci``;
a bare ``pytest`` runs ``dev``). A test that states how many examples it needs
writes ``max_examples=examples(N)``: all N under ``ci``, a third (at least 10)
under ``dev``, so the fast tier stays fast and CI still searches as far as the
test asked. ``ci`` is derandomized, so a CI failure reproduces on the next run.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    deadline=None,
    max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
if PROFILE not in ("ci", "dev"):
    raise RuntimeError(f"HYPOTHESIS_PROFILE={PROFILE!r}: expected 'ci' or 'dev'")
settings.load_profile(PROFILE)


def examples(n: int) -> int:
    """How many examples a test asking for ``n`` runs under this profile."""
    return n if PROFILE == "ci" else max(10, n // 3)
