"""Test setup: Qt runs offscreen and in test mode; pure tests never import Qt.

Qt's test-mode settings and data folders live under the user's home; each test
run gets a home of its own, so two runs on one machine (or a run beside the
user's own editor) never read or write each other's settings.
"""

from __future__ import annotations

import os
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_QUICK_BACKEND", "software")

_HOME = tempfile.mkdtemp(prefix="designer-tests-home-")
for _name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
    os.environ[_name] = (
        _HOME if _name == "HOME" else os.path.join(_HOME, _name.lower()[4:-5])
    )

import tests.hypo  # noqa: E402,F401  (registers and loads the Hypothesis profile)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that run a real outside tool (slurmctld, ibsim + OpenSM, NetBox) are
    slow by nature: the fast tier (``-m "not slow"``) leaves them to the full run."""
    for item in items:
        if any(item.get_closest_marker(m) for m in ("slurm", "ib", "netbox")):
            item.add_marker(pytest.mark.slow)
