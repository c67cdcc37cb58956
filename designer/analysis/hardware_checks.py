"""Findings on the hardware as drawn: catalog ids, port groups, port budgets,
speeds, media and fabric roles of the links, out-of-band rules (the codes are
listed in :mod:`designer.analysis.findings`)."""

from __future__ import annotations

import numpy as np

from designer.analysis.context import (
    MAX_ITEMS,
    Context,
    finding,
    first_listed,
    item_ids,
)
from designer.analysis.index import (
    KIND_UNKNOWN,
    DesignIndex,
)
from designer.analysis.reasons import budget_reason, oob_links, pair_reason
from designer.analysis.report import Finding, Severity
from designer.catalog.ports import device_ports_problems
from designer.core.formatting import plural, verb


def check_hardware(ctx: Context) -> list[Finding]:
    """Catalog ids, port groups, port budgets, speeds, media, roles."""
    out: list[Finding] = []
    idx, ends = ctx.index, ctx.ends
    unknown = np.flatnonzero(idx.kind == KIND_UNKNOWN)
    if len(unknown):
        cids = sorted({idx.catalog_ids[idx.dev_catalog[i]] for i in unknown.tolist()})
        out.append(
            finding(
                "UNKNOWN_CATALOG_ID",
                Severity.ERROR,
                f"{plural(len(unknown), 'device')} {verb(len(unknown), 'uses', 'use')} "
                f"catalog ids the catalog does not have ({', '.join(cids[:10])}); "
                f"{verb(len(unknown), 'it is', 'they are')} left out of every "
                f"number{first_listed(len(unknown))}",
                item_ids(ctx, unknown),
            )
        )
    bad_end = (
        ~ends.known & (idx.kind[ends.dev] != KIND_UNKNOWN)
        if not ends.all_known
        else np.zeros(0, dtype=np.bool_)
    )
    if bad_end.any():
        sel = np.flatnonzero(bad_end)
        names = sorted(
            {
                f"{idx.catalog_ids[idx.dev_catalog[ends.dev[j]]]}:{idx.port_names[ends.port[j]]}"
                for j in sel[:200].tolist()
            }
        )
        out.append(
            finding(
                "UNKNOWN_PORT_GROUP",
                Severity.ERROR,
                f"{plural(len(sel), 'link end')} {verb(len(sel), 'uses', 'use')} "
                "port groups their device does not "
                f"have: {', '.join(names[:8])}",
                [idx.link_ids[i] for i in np.unique(ends.links_of(sel))[:MAX_ITEMS]],
            )
        )
    for i in np.flatnonzero(idx.has_port_override).tolist():
        entry = idx.entries[idx.dev_catalog[i]]
        if entry is None:
            continue
        for problem in device_ports_problems(entry, idx.device_ports[i]):
            out.append(
                finding(
                    "PORT_OVERRIDE_IGNORED",
                    Severity.WARNING,
                    f"{idx.device_ids[i]}: {problem}",
                    [idx.device_ids[i]],
                )
            )
    keys, used, avail = ctx.budget
    over = np.flatnonzero(used > avail + 1e-9)
    over = over[idx.kind[keys[over] // max(len(idx.port_names), 1)] != KIND_UNKNOWN]
    if len(over):
        n_ports = max(len(idx.port_names), 1)
        dev = keys[over] // n_ports
        worst = over[np.argsort(avail[over] - used[over], kind="stable")[:3]]
        said = [
            budget_reason(idx, *divmod(int(keys[k]), n_ports), int(avail[k]))
            or f"{idx.device_ids[int(keys[k]) // n_ports]} port group "
            f"'{idx.port_names[int(keys[k]) % n_ports]}' uses {used[k]:g} of "
            f"{avail[k]:g}"
            for k in worst.tolist()
        ]
        out.append(
            finding(
                "PORT_BUDGET_EXCEEDED",
                Severity.ERROR,
                f"{plural(len(over), 'port group')} "
                f"{verb(len(over), 'carries', 'carry')} more links than "
                f"{verb(len(over), 'it has', 'they have')} "
                f"ports; worst: {'; '.join(said)}"
                f"{first_listed(len(over))}",
                item_ids(ctx, dev),
            )
        )
    bad_oob, _, oob_reason = oob_links(idx)
    if len(bad_oob):
        n = len(bad_oob)
        out.append(
            finding(
                "OOB_LINK_INVALID",
                Severity.ERROR,
                f"{plural(n, 'out-of-band link')} {verb(n, 'makes', 'make')} no "
                f"physical sense and {verb(n, 'manages', 'manage')} nothing; "
                f"e.g. {oob_reason}{first_listed(n)}",
                [idx.link_ids[i] for i in bad_oob[:MAX_ITEMS].tolist()],
            )
        )
    if ends.all_fine:
        return out
    known_both = (
        ends.known
        & ctx.ends.known[
            np.r_[np.arange(idx.n_links, 2 * idx.n_links), np.arange(idx.n_links)]
        ]
    )
    slow = np.flatnonzero(ends.known & ~ends.supported)
    if len(slow):
        links = np.unique(ends.links_of(slow))
        out.append(
            finding(
                "SPEED_MISMATCH",
                Severity.ERROR,
                f"{plural(len(links), 'link')} {verb(len(links), 'runs', 'run')} "
                "at a speed one of their ports cannot; "
                f"e.g. {_reason(idx, int(links[0]), 'speed')}",
                [idx.link_ids[i] for i in links[:MAX_ITEMS]],
            )
        )
    media = np.flatnonzero(known_both & ~ends.media_ok)
    if len(media):
        links = np.unique(ends.links_of(media))
        out.append(
            finding(
                "MEDIA_MISMATCH",
                Severity.ERROR,
                f"{plural(len(links), 'link')} {verb(len(links), 'joins', 'join')} "
                "an InfiniBand port to an Ethernet port; "
                f"{verb(len(links), 'it', 'they')} cannot carry traffic (use a "
                "VPI adapter or a "
                f"matching switch); e.g. {_reason(idx, int(links[0]), 'media')}",
                [idx.link_ids[i] for i in links[:MAX_ITEMS]],
            )
        )
    role = np.flatnonzero(ends.known & ~ends.role_ok)
    if len(role):
        links = np.unique(ends.links_of(role))
        out.append(
            finding(
                "FABRIC_ROLE_MISMATCH",
                Severity.WARNING,
                f"{plural(len(links), 'link')} {verb(len(links), 'is', 'are')} on "
                "a different fabric than their port "
                "group is meant for (e.g. a storage port on the compute fabric); "
                f"e.g. {_reason(idx, int(links[0]), 'role')}",
                [idx.link_ids[i] for i in links[:MAX_ITEMS]],
            )
        )
    return out


def _reason(idx: DesignIndex, link: int, what: str) -> str:
    """The rules' reason for one link, prefixed by its id."""
    text = pair_reason(idx, link, what)
    return f"{idx.link_ids[link]}: {text}" if text else idx.link_ids[link]


__all__ = ["check_hardware"]
