"""The findings list follows each report row by row: rows whose finding is the
same stay (selected, if they were), the rest show the new report."""

from __future__ import annotations

from designer.analysis import analyze
from designer.analysis.report import Finding, Report, Severity
from designer.generate import fat_tree
from designer.qt.validator import ValidatorPanel


def _report(findings: list[Finding]) -> Report:
    base = analyze(fat_tree("dgx-h100", 4, "qm9700"))
    return base.model_copy(update={"findings": findings})


def _finding(code: str, message: str, items: list[str] | None = None) -> Finding:
    return Finding(
        code=code, severity=Severity.WARNING, message=message, items=items or []
    )


def _rows(panel: ValidatorPanel) -> list[str]:
    return [panel.findings.item(k).text() for k in range(panel.findings.count())]


def test_rows_follow_the_report_and_unchanged_ones_stay(qtbot: object) -> None:
    panel = ValidatorPanel()
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    a, b, c = _finding("A", "a", ["x"]), _finding("B", "b"), _finding("C", "c")
    panel.show_report(_report([a, b, c]))
    assert _rows(panel) == ["a", "b", "c"]
    kept = panel.findings.item(1)
    kept.setSelected(True)
    changed = _finding("A", "a, now with more", ["x", "y"])
    panel.show_report(_report([changed, b, c]))
    assert _rows(panel) == ["a, now with more", "b", "c"]
    assert panel.findings.item(1) is kept and kept.isSelected()
    assert panel.findings.item(0).toolTip() == (
        "[A] a, now with more\n2 items: click to select"
    )
    panel.show_report(_report([b]))
    assert _rows(panel) == ["b"]
    panel.show_report(_report([]))
    assert _rows(panel) == ["No findings: the design checks out."]
    panel.show_report(_report([a, c]))
    assert _rows(panel) == ["a", "c"]
    assert panel.findings_title.text() == "Findings: 0 errors, 2 warnings, 0 notes"


def test_a_new_report_drops_the_none_named_note(qtbot: object) -> None:
    panel = ValidatorPanel()
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    a, b = _finding("A", "a", ["x"]), _finding("B", "b", ["y"])
    panel.show_report(_report([a, b]))
    assert panel.show_items(["nothing-named"]) == 0
    assert _rows(panel)[0] == "No finding names the selected items."
    panel.show_report(_report([a, b]))
    assert _rows(panel) == ["a", "b"]
    assert panel.show_items(["y"]) == 1
    assert [i.text() for i in panel.findings.selectedItems()] == ["b"]
