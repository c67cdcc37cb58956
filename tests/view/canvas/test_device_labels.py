"""Device label forms and fitting (no Qt: text measured at a fixed advance)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from designer.view.canvas.device_labels import (
    MAX_LABEL_PX,
    MIN_LABEL_PX,
    LabelForms,
    fit_label,
    label_forms,
    label_px,
    label_range,
    split_two,
)


class Mono:
    """Every character ``advance`` wide (detail text 5/6 of it), lines ``line``."""

    def __init__(self, advance: float = 6.0, line: float = 10.0) -> None:
        self.advance = advance
        self.line = line

    def width(self, text: str, detail: bool = False) -> float:
        return len(text) * self.advance * (5 / 6 if detail else 1.0)

    def line_height(self, detail: bool = False) -> float:
        return self.line * (0.9 if detail else 1.0)


M = Mono()


def _forms(label: str, did: str, grouped: bool = True) -> LabelForms:
    return label_forms(label, did, grouped=grouped, detail=("DGX H100 · leaf", ""))


def test_forms_of_generated_names() -> None:
    dgx = _forms("DGX H100 #127", "dgx-0127")
    assert dgx.full == "DGX H100 #127"
    assert dgx.shorter == ("dgx-0127", "#127", "127")
    assert dgx.detail == ("DGX H100 · leaf",)
    leaf = _forms("Leaf SU1 rail 0", "leaf-su01-r0")
    assert leaf.shorter == ("leaf-su01-r0", "rail 0", "0")
    # the number alone only where the group's frame says which unit it is in
    assert _forms("DGX H100 #127", "dgx-0127", grouped=False).shorter == (
        "dgx-0127",
        "#127",
    )
    # no label: the id is the label; no digits: no number form
    assert _forms("", "filer").full == "filer"
    assert _forms("NFS filer", "nfs").shorter == ("nfs",)
    # a longer id is no shorter form
    assert _forms("Spine 2", "spine-switch-0002").shorter == ("2",)


def test_fit_prefers_the_whole_label_with_the_model_under_it() -> None:
    forms = _forms("DGX H100 #127", "dgx-0127")
    wide = fit_label(forms, 200, 40, M)
    assert (wide.lines, wide.detail, wide.form) == (
        ("DGX H100 #127",),
        "DGX H100 · leaf",
        "full",
    )
    # one line high: no model line
    assert fit_label(forms, 200, 12, M).detail == ""


def test_fit_wraps_before_it_shortens() -> None:
    forms = _forms("DGX H100 #127", "dgx-0127")
    # 13 chars = 78 wide; "DGX H100" = 48 fits a 50-wide box on two lines
    fit = fit_label(forms, 50, 24, M)
    assert (fit.lines, fit.form) == (("DGX H100", "#127"), "wrapped")
    # one line high: the id (48) is the best whole form
    assert fit_label(forms, 50, 12, M).lines == ("dgx-0127",)
    assert fit_label(forms, 30, 12, M).lines == ("#127",)
    assert fit_label(forms, 18, 12, M).lines == ("127",)
    nothing = fit_label(forms, 17, 12, M)
    assert not nothing.shown and nothing.form == "none"
    assert not fit_label(forms, 200, 9, M).shown  # lower than one line


def test_split_two_breaks_after_hyphens_and_balances_lines() -> None:
    assert split_two("gpu-node-0127", 60, M) == ("gpu-node-", "0127")
    assert split_two("Leaf SU1 rail 0", 60, M) == ("Leaf SU1", "rail 0")
    assert split_two("Leaf SU1 rail 0", 40, M) is None
    assert split_two("x", 100, M) is None


@given(
    words=st.lists(
        st.text(alphabet="abcXYZ019#-", min_size=1, max_size=9), min_size=1, max_size=4
    ),
    did=st.text(alphabet="abc-019", min_size=1, max_size=14),
    width=st.integers(0, 160),
    height=st.integers(0, 40),
    grouped=st.booleans(),
)
@example(words=["-00000000"], did="0", width=48, height=20, grouped=False)
def test_a_fit_never_cuts_and_never_drops_a_label_that_had_room(
    words: list[str], did: str, width: int, height: int, grouped: bool
) -> None:
    """Every line shown is whole and fits; the whole label is shown whenever it
    fits on one line or wrapped to two (the oracle tries every break)."""
    label = " ".join(words)
    forms = label_forms(label, did, grouped=grouped, detail=("model",))
    fit = fit_label(forms, width, height, M)
    for line in fit.lines:
        assert M.width(line) <= width
    used = len(fit.lines) * M.line + (0.9 * M.line if fit.detail else 0.0)
    assert used <= height
    if fit.shown:
        joined = "".join(fit.lines).replace(" ", "")
        options = [forms.full, *forms.shorter]
        assert any(joined == o.replace(" ", "") for o in options)
    full = forms.full
    one = M.width(full) <= width and M.line <= height
    breaks = (
        [
            (full[:i].rstrip(), full[i + 1 :].lstrip())
            for i, c in enumerate(full)
            if c == " "
        ]
        + [  # after a hyphen inside the text (a leading one is a sign, not a break)
            (full[: i + 1], full[i + 1 :])
            for i, c in enumerate(full)
            if c == "-" and 0 < i < len(full) - 1
        ]
    )
    two = 2 * M.line <= height and any(
        a and b and M.width(a) <= width and M.width(b) <= width for a, b in breaks
    )
    if one or two:
        assert fit.form in ("full", "wrapped")


def test_label_size_follows_the_zoom_between_floor_and_ceiling() -> None:
    assert label_px(1.0) == 10.0
    assert label_px(0.25) == MIN_LABEL_PX
    assert label_px(0.25, floor=8.0) == 8.0
    assert label_px(4.0) == MAX_LABEL_PX


def test_label_range() -> None:
    names = [f"DGX H100 #{k}" for k in range(1, 33)]
    assert label_range(names) == "DGX H100 #1 – #32"
    assert label_range(["Leaf SU1 rail 0", "Leaf SU1 rail 7"]) == (
        "Leaf SU1 rail 0 – 7"
    )
    assert label_range(["dgx-0001", "dgx-0032"]) == "dgx-0001 – 0032"
    assert label_range(["a"]) == "a" and label_range([]) == ""
    assert label_range(["alpha", "beta"]) == "alpha – beta"
