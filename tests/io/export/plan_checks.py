"""An independent check of a cabling plan: ports, lanes, cages, modules, cables.

Reads only the CSV the plan writes and the catalog (never the plan's own
layout code): every end's port must be a NetBox interface of its port group,
used once whole or as distinct lanes of one breakout; a cage holds one module
type; the cages holding a module, counted kind by kind, must be the report's
transceivers, and the cable classes the BOM's cable lines.
"""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from designer.analysis import analyze
from designer.catalog import Catalog, default_catalog, effective_ports
from designer.core.model import Design
from designer.io.export import write_bom_csv, write_cabling_csv


@dataclass
class PlanFacts:
    """What a plan claims, recounted from its rows."""

    rows: list[dict[str, str]]
    modules: Counter[str] = field(default_factory=Counter)
    cables: Counter[str] = field(default_factory=Counter)
    unassigned: list[dict[str, str]] = field(default_factory=list)


def plan_rows(design: Design, catalog: Catalog | None = None) -> list[dict[str, str]]:
    """The cabling CSV of ``design`` as dict rows."""
    buf = io.StringIO()
    n = write_cabling_csv(design, buf, catalog)
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert n == len(rows) == sum(design.links.cables)
    return rows


def check_plan(design: Design, catalog: Catalog | None = None) -> PlanFacts:
    """Assert the plan of ``design`` books no port twice; return its counts."""
    cat = catalog or default_catalog()
    devices = design.device_map()
    rows = plan_rows(design, cat)
    facts = PlanFacts(rows)
    whole: Counter[tuple[str, str]] = Counter()
    lanes: dict[tuple[str, str], list[tuple[int, int, int]]] = defaultdict(list)
    cage_modules: dict[tuple[str, str, int], set[str]] = defaultdict(set)
    owner: dict[tuple[str, str], str] = {}
    for row in rows:
        facts.cables[row["cable_id"]] += 1
        speed = int(row["speed_gbps"])
        for end in ("from", "to"):
            dev_id, group, port = (
                row[f"{end}_{k}"] for k in ("device", "port_group", "port")
            )
            if not port:
                assert row["note"].startswith("no free port"), row
                facts.unassigned.append(row)
                continue
            dev = devices[dev_id]
            entry = cat[dev.catalog_id]
            iface = entry.interface(group)
            assert iface is not None, (dev_id, group)
            base, sep, lane_text = port.partition(":")
            count = effective_ports(entry, dev.ports, group)
            names = [iface.port_name(i) for i in range(count)]
            assert base in names, f"{dev_id} {port!r} is not a port of {group}"
            # one physical port name belongs to one group of a device
            assert owner.setdefault((dev_id, base), group) == group, (dev_id, base)
            split = max(1, iface.split(speed))
            if sep:
                lane = int(lane_text)
                assert split > 1 and 1 <= lane <= split, (dev_id, port, speed)
                lanes[(dev_id, base)].append((lane, split, speed))
            else:
                assert split == 1, f"{dev_id} {port} runs {speed}G as a whole port"
                whole[(dev_id, base)] += 1
            module = row[f"{end}_transceiver"]
            if module:
                cage = names.index(base) // iface.ports_per_cage
                cage_modules[(dev_id, group, cage)].add(module)
    for key, n in whole.items():
        assert n == 1, f"{key} carries {n} whole-port cables"
        assert key not in lanes, f"{key} is a whole port and breakout lanes at once"
    for key, used in lanes.items():
        assert len({lane for lane, _, _ in used}) == len(used), f"{key} lane twice"
        assert len({(s, v) for _, s, v in used}) == 1, f"{key} mixes breakouts"
    for key, mods in cage_modules.items():
        assert len(mods) == 1, f"cage {key} holds {mods}"
        facts.modules[next(iter(mods))] += 1
    return facts


def check_against_report(design: Design, catalog: Catalog | None = None) -> PlanFacts:
    """:func:`check_plan`, plus: modules = report transceivers, cables = BOM."""
    cat = catalog or default_catalog()
    facts = check_plan(design, cat)
    report = analyze(design, cat)
    assert not facts.unassigned, facts.unassigned[:2]
    assert dict(facts.modules) == report.transceivers_by_type
    assert sum(facts.modules.values()) == report.transceivers
    bom = io.StringIO()
    write_bom_csv(report, bom, cat)
    cable_ids = {c.id for c in cat.optics.cables}
    lines = {
        r["catalog_id"]: int(r["quantity"])
        for r in csv.DictReader(io.StringIO(bom.getvalue()))
        if r["catalog_id"] in cable_ids
    }
    assert dict(facts.cables) == lines
    return facts
