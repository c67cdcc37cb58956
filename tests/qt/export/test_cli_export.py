"""``cluster-designer export`` writes every format headless, numbers agree."""

from __future__ import annotations

import argparse
import csv
import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pypdf import PdfReader

from designer.analysis import analyze
from designer.cli import export_cmd
from designer.io import save_design
from designer.io.export.summary import money
from tests.io.export.designs import rail_design


def test_every_format(tmp_path: Path) -> None:
    design = rail_design()
    src = tmp_path / "rail.json"
    save_design(design, src)
    outs = {
        "pdf": tmp_path / "r.pdf",
        "svg": tmp_path / "r.svg",
        "png": tmp_path / "r.png",
        "bom": tmp_path / "bom.csv",
        "cabling": tmp_path / "cab.csv",
        "slurm": tmp_path / "topology.conf",
    }
    parser = argparse.ArgumentParser()
    export_cmd.add_arguments(parser)
    argv = [str(src), "--page-size", "Letter"]
    for key, path in outs.items():
        argv += [f"--{key}", str(path)]
    out, err = io.StringIO(), io.StringIO()
    assert export_cmd.run(parser.parse_args(argv), out, err) == 0, err.getvalue()
    report = analyze(design)
    text = " ".join(
        " ".join((p.extract_text() or "").split())
        for p in PdfReader(str(outs["pdf"])).pages
    )
    assert money(report.cost_usd.total) in text
    assert f"{report.gpus:,} in {report.compute_nodes:,} compute nodes" in text
    with outs["bom"].open() as fh:
        rows = list(csv.DictReader(fh))
    assert abs(float(rows[-1]["extended_price_usd"]) - report.cost_usd.total) < 0.01
    assert ET.parse(outs["svg"]).getroot().tag.endswith("svg")
    assert outs["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with outs["cabling"].open() as fh:
        assert len(list(csv.DictReader(fh))) == sum(design.links.cables)
    for key in outs:
        assert f"{key}: " in out.getvalue()


def test_pdf_paper_follows_the_posix_locale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mp = monkeypatch
    src = tmp_path / "rail.json"
    save_design(rail_design(), src)
    parser = argparse.ArgumentParser()
    export_cmd.add_arguments(parser)
    sizes = {}
    for lang in ("en_US.UTF-8", "de_DE.UTF-8"):
        mp.delenv("LC_ALL", raising=False)
        mp.delenv("LC_PAPER", raising=False)
        mp.setenv("LANG", lang)
        pdf = tmp_path / f"{lang}.pdf"
        out, err = io.StringIO(), io.StringIO()
        args = parser.parse_args([str(src), "--pdf", str(pdf)])
        assert export_cmd.run(args, out, err) == 0, err.getvalue()
        box = PdfReader(str(pdf)).pages[-1].mediabox
        sizes[lang] = sorted((round(float(box.width)), round(float(box.height))))
        assert ("Letter" if lang.startswith("en_US") else "A4") in out.getvalue()
    assert sizes == {"en_US.UTF-8": [612, 792], "de_DE.UTF-8": [595, 842]}
