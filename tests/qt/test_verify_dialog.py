"""*File > Verify As-Built...*: the real dialog on a fabric with mistakes.

The discovered file is the design's own export with cables pulled, swapped
and added (as :mod:`tests.io.test_asbuilt` makes them); the dialog lists the
same items as ``verify``, marks their links and devices on the canvas and
saves the punch list as CSV and PDF.
"""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from designer import generate
from designer.io import save_design
from designer.io.asbuilt import verify_fabric
from designer.io.export.ib_fabric import IbEnd, IbLink, ib_fabrics
from designer.io.export.ibnetdiscover import ibnetdiscover_text
from designer.io.ibdiscovered import parse_ibnetdiscover
from designer.qt.verify_dialog import VerifyDialog, open_verify_dialog

SHOTS = os.environ.get("CLUSTER_DESIGNER_SHOTS")  # folder to keep the PNGs in


def mistaken(design):
    (fab,) = ib_fabrics(design)
    n = fab.nodes
    up = [x for x in fab.links if n[x.a.node].is_switch and n[x.b.node].is_switch]
    a = up[0]
    b = next(x for x in up if x.a.node != a.a.node and x.b.node != a.b.node)
    pulled = up[7]
    leaves = [s for s in fab.switches if s.rank == 0][:2]
    used = {(e.node, e.port) for x in fab.links for e in (x.a, x.b)}
    free = [
        min(p for p in fab.port_names[s.desc] if (s.desc, p) not in used)
        for s in leaves
    ]
    bad = copy.copy(fab)
    bad.links = [x for x in fab.links if x not in (a, b, pulled)] + [
        IbLink(a.a, b.b, 4, "NDR", "", 0),
        IbLink(b.a, a.b, 4, "NDR", "", 0),
        IbLink(
            IbEnd(leaves[0].desc, free[0], leaves[0].device, ""),
            IbEnd(leaves[1].desc, free[1], leaves[1].device, ""),
            4,
            "NDR",
            "",
            0,
        ),
    ]
    return ibnetdiscover_text(bad), {a.link, b.link, pulled.link}


@pytest.fixture
def opened(main_window, tmp_path: Path):
    design = generate.fat_tree("dgx-h100", 12, "qm9700")
    path = tmp_path / "tree.json"
    save_design(design, path)
    window = main_window()
    assert window.open_path(path)
    text, links = mistaken(window.document.design)
    found = tmp_path / "ibnetdiscover.txt"
    found.write_text(text)
    return window, found, links


def test_menu_has_verify_as_built(main_window) -> None:
    window = main_window()
    file_menu = window.menuBar().actions()[0].menu()
    texts = [a.text() for a in file_menu.actions()]
    assert "&Verify As-Built…" in texts


def test_dialog_lists_the_mistakes_and_marks_them(opened, qtbot, tmp_path) -> None:
    window, found, links = opened
    dialog = open_verify_dialog(window, str(found))
    qtbot.addWidget(dialog)
    report = dialog.report
    assert report is not None
    expected = verify_fabric(
        window.document.design, parse_ibnetdiscover(found.read_text(), str(found))
    )
    assert [i.message() for i in report.items] == [i.message() for i in expected.items]
    assert [i.kind for i in report.items] == [
        "missing",
        "swapped",
        "swapped",
        "unexpected",
    ]
    assert dialog.items.count() == 4
    assert "4 differences" in dialog.summary.text()
    # every link the punch list names is selected on the canvas
    selected = set(window.canvas.selected_ids())
    assert links <= selected
    # one item clicked: only its cable and devices
    dialog.items.setCurrentRow(0)
    first = report.items[0]
    assert set(window.canvas.selected_ids()) == {*first.links, *first.devices}
    # shown: only the cabling items, then the (here none) slow links
    dialog.show_kinds.setCurrentText("Links below design rate")
    assert dialog.items.count() == 1 and dialog.items.item(0).text() == "None of these."
    dialog.show_kinds.setCurrentText("Cabling (missing, swapped, unexpected)")
    assert dialog.items.count() == 4
    assert set(window.canvas.selected_ids()) >= links
    # punch list
    csv_path, pdf_path = tmp_path / "punch.csv", tmp_path / "punch.pdf"
    dialog.save_csv(csv_path)
    dialog.save_pdf(pdf_path)
    assert csv_path.read_text().count("\n") == 5
    assert pdf_path.read_bytes().startswith(b"%PDF") and pdf_path.stat().st_size > 2000
    for size in ((1280, 800), (1920, 1080)):
        window.resize(*size)
        dialog.resize(min(1100, size[0] - 100), 560)
        QApplication.processEvents()
        shot = Path(SHOTS or tmp_path) / f"verify-{size[0]}x{size[1]}.png"
        assert window.grab().save(str(tmp_path / "window.png"))
        assert dialog.grab().save(str(shot))
    if (
        SHOTS
        and subprocess.run(["which", "pdftoppm"], capture_output=True).returncode == 0
    ):
        subprocess.run(
            ["pdftoppm", "-png", "-r", "60", str(pdf_path), str(Path(SHOTS) / "punch")],
            check=False,
        )
        assert window.grab().save(str(Path(SHOTS) / "verify-window.png"))


def test_a_bad_file_is_reported_in_the_dialog(opened, qtbot, tmp_path) -> None:
    window, _, _ = opened
    bad = tmp_path / "bad.txt"
    bad.write_text('Switch 4 "S-1" # "x"\nnot a port\n')
    dialog = VerifyDialog(window.document.design, window.catalog, None, window)
    qtbot.addWidget(dialog)
    assert dialog.load(bad) is None
    assert f"{bad}:2" in dialog.error and "Cannot use the file" in dialog.summary.text()
    assert not dialog.csv_button.isEnabled() and not dialog.pdf_button.isEnabled()


def test_a_clean_fabric_says_so(opened, qtbot, tmp_path) -> None:
    window, _, _ = opened
    (fab,) = ib_fabrics(window.document.design)
    good = tmp_path / "good.txt"
    good.write_text(ibnetdiscover_text(fab))
    dialog = VerifyDialog(window.document.design, window.catalog, None, window)
    qtbot.addWidget(dialog)
    report = dialog.load(good)
    assert report is not None and report.ok
    assert "matches the design" in dialog.summary.text()
    assert dialog.items.count() == 1 and not dialog.mark_button.isEnabled()
