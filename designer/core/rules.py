"""Connection rules: one rule for every entry point, with typed errors.

A link is valid when both devices exist and differ, both port groups exist,
each port group's role fits the link's fabric (``any`` fits every fabric), the
two groups share a link layer (InfiniBand or Ethernet, VPI alternatives
included), both run the link speed, and both have enough free native ports.
Hardware comes from a *lookup* (see :mod:`designer.core.specs`); pass the
loaded catalog directly.

Entry points and the function each calls (all raise :class:`ConnectionRefused`
with the same reason for the same bad edit):

- canvas connect: :func:`plan_connection` (port choice, all free ports or one
  cable, a status-bar description; checked by :func:`check_links`);
- bulk wiring (:mod:`designer.core.wiring`): :func:`check_links` on the batch;
- paste (:func:`designer.core.edits.paste` with a lookup): :func:`check_links`
  with the pasted devices;
- Properties edits of a link: :func:`check_link_update` /
  :func:`check_link_updates` before ``UpdateLink``; :func:`link_limits` bounds
  the widgets;
- the validator and CLI: :func:`check_design`, the same checks on a design.

The parts live in :mod:`designer.core.checks` (checks) and
:mod:`designer.core.connect` (port choice); everything is re-exported here.
"""

from __future__ import annotations

from designer.core.checks import (
    LinkLimits,
    check_design,
    check_link,
    check_link_update,
    check_link_updates,
    check_links,
    free_links,
    link_limits,
    pair_check,
    resolve,
)
from designer.core.connect import (
    Connection,
    PortChoice,
    choose_ports,
    describe_link,
    fabric_hint,
    plan_connection,
    suggest_link,
)
from designer.core.errors import (
    ConnectionRefused,
    FabricMismatch,
    InvalidLink,
    MediaMismatch,
    NoCompatiblePorts,
    NothingToWire,
    PortBudgetExceeded,
    RailMismatch,
    RailsTaken,
    SelfLink,
    SpeedMismatch,
    UnknownCatalogEntry,
    UnknownDevice,
    UnknownLink,
    UnknownPortGroup,
)
from designer.core.specs import (
    DeviceSpec,
    Lookup,
    PortGroupSpec,
    PortUsage,
    as_lookup,
    effective_count,
    ports_in_use,
    spec_from_entry,
)

__all__ = [
    "Connection",
    "ConnectionRefused",
    "DeviceSpec",
    "FabricMismatch",
    "InvalidLink",
    "LinkLimits",
    "Lookup",
    "MediaMismatch",
    "NoCompatiblePorts",
    "NothingToWire",
    "PortBudgetExceeded",
    "PortChoice",
    "PortGroupSpec",
    "PortUsage",
    "RailMismatch",
    "RailsTaken",
    "SelfLink",
    "SpeedMismatch",
    "UnknownCatalogEntry",
    "UnknownDevice",
    "UnknownLink",
    "UnknownPortGroup",
    "as_lookup",
    "check_design",
    "check_link",
    "check_link_update",
    "check_link_updates",
    "check_links",
    "choose_ports",
    "describe_link",
    "effective_count",
    "fabric_hint",
    "free_links",
    "link_limits",
    "pair_check",
    "plan_connection",
    "ports_in_use",
    "resolve",
    "spec_from_entry",
    "suggest_link",
]
