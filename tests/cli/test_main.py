"""``cluster-designer``: parsing, schema, gui and export dispatch, exit codes."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from designer.cli import main as cli
from designer.cli.main import main
from designer.core.model import SCHEMA_VERSION
from designer.io import design_json_schema


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("generate", "validate", "schema", "export", "gui"):
        assert command in out


def test_unknown_option_exits_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate"]) == 2
    assert "the following arguments are required: FILE" in capsys.readouterr().err


def test_schema_prints_the_design_json_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema == design_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert {
        "schema_version",
        "settings",
        "workload",
        "physical",
        "groups",
        "devices",
        "links",
    } == set(schema["properties"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["generate", "superpod", "--system", "dgx-a100", "--sus", "1", "-o", "x"],
         "invalid choice: 'dgx-a100'"),
        (["generate", "superpod", "--system", "dgx-h100", "--sus", "0", "-o", "x"],
         "expected a number >= 1, got 0"),
        (["generate", "fat-tree", "--compute", "dgx-h100", "--nodes", "4",
          "--switch", "qm9700", "--oversubscription", "2,x", "-o", "x"],
         "expected ratios like 1 or 2,1"),
        (["generate", "fat-tree", "--compute", "dgx-h100", "--nodes", "4",
          "--switch", "qm9700", "--oversubscription", "0.5", "-o", "x"],
         "each ratio must be >= 1"),
        (["generate", "fat-tree", "--compute", "dgx-h100", "--nodes", "4",
          "--switch", "qm9700", "--tiers", "4", "-o", "x"],
         "expected auto, 2 or 3, got '4'"),
        (["generate", "k-ary", "--k", "four", "-o", "x"],
         "expected a whole number, got 'four'"),
        (["generate", "k-ary", "--k", "4"], "required: -o/--output"),
    ],
)  # fmt: skip
def test_generate_argument_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_fat_tree_options_reach_the_generator(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}

    def fake_fat_tree(compute: str, nodes: int, switch: str, **kw: Any) -> Any:
        from designer.core.model import Design

        seen.update(compute=compute, nodes=nodes, switch=switch, **kw)
        return Design()

    import designer.generate as generate

    monkeypatch.setattr(generate, "fat_tree", fake_fat_tree, raising=False)
    out = tmp_path / "ft.json"
    argv = ["generate", "fat-tree", "--compute", "hgx-h100", "--nodes", "48",
            "--switch", "sn5600", "--su-size", "16", "--no-rail-optimized",
            "--oversubscription", "2,1.5", "--tiers", "3", "-o", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert seen == {
        "compute": "hgx-h100",
        "nodes": 48,
        "switch": "sn5600",
        "su_size": 16,
        "rail_optimized": False,
        "oversubscription": (2.0, 1.5),
        "tiers": 3,
    }
    assert out.exists()
    seen.clear()
    assert main([*argv[:8], "-o", str(out)]) == 0
    assert seen["rail_optimized"] is True
    assert seen["oversubscription"] == (1.0,) and seen["tiers"] is None


def test_generator_errors_are_messages(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def impossible(k: int, **kw: Any) -> Any:
        raise ValueError("k must be even, got 5")

    import designer.generate as generate

    monkeypatch.setattr(generate, "k_ary", impossible, raising=False)
    assert main(["generate", "k-ary", "--k", "5", "-o", "x.json"]) == 2
    err = capsys.readouterr().err
    assert err == "cluster-designer: cannot generate k-ary: k must be even, got 5\n"


def test_unwritable_output_is_a_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import designer.generate as generate
    from designer.core.model import Design

    monkeypatch.setattr(generate, "k_ary", lambda k, **kw: Design(), raising=False)
    target = tmp_path / "missing-dir" / "x.json"
    assert main(["generate", "k-ary", "--k", "4", "-o", str(target)]) == 2
    assert capsys.readouterr().err == (
        f"cluster-designer: {target}: cannot write (No such file or directory)\n"
    )


@pytest.mark.parametrize(
    "content",
    [None, "{not json", '{"schema_version": 99}', b"\x00\x01binary"],
)
def test_validate_unreadable_file_exits_two(
    content: str | bytes | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, bytes):
        path.write_bytes(content)
    assert main(["validate", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"cluster-designer: {path}: ")
    assert "Traceback" not in captured.err
    assert "expected" in captured.err


@pytest.fixture
def fake_gui(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, str | None]]:
    """Replace designer.qt.app with a recorder (no Qt in this process)."""
    calls: list[tuple[str | None, str | None]] = []
    module = types.ModuleType("designer.qt.app")

    def run_gui(path: str | None, screenshot: str | None) -> int:
        calls.append((path, screenshot))
        return 0

    module.run_gui = run_gui  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "designer.qt.app", module)
    return calls


@pytest.mark.parametrize(
    ("argv", "call"),
    [
        ([], (None, None)),
        (["design.json"], ("design.json", None)),
        (["gui"], (None, None)),
        (["gui", "d.json"], ("d.json", None)),
        (["gui", "d.json", "--screenshot", "out.png"], ("d.json", "out.png")),
        (["d.json", "--screenshot", "s.png"], ("d.json", "s.png")),
    ],
)
def test_gui_dispatch(
    argv: list[str],
    call: tuple[str | None, str | None],
    fake_gui: list[tuple[str | None, str | None]],
) -> None:
    assert main(argv) == 0
    assert fake_gui == [call]


def test_gui_unavailable_is_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "designer.qt.app", None)  # import fails
    assert main(["gui"]) == 2
    assert "the desktop editor is not available" in capsys.readouterr().err


def test_export_delegates_to_export_cmd(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[Any] = []
    module = types.ModuleType("designer.cli.export_cmd")

    def add_arguments(parser: Any) -> None:
        parser.add_argument("file")
        parser.add_argument("--bom")

    def run(args: Any) -> int:
        seen.append((args.file, args.bom))
        return 0

    module.add_arguments = add_arguments  # type: ignore[attr-defined]
    module.run = run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "designer.cli.export_cmd", module)
    assert main(["export", "d.json", "--bom", "b.csv"]) == 0
    assert seen == [("d.json", "b.csv")]


def test_export_missing_module(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = cli.importlib.import_module

    def missing(name: str) -> Any:
        if name == "designer.cli.export_cmd":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name)

    monkeypatch.setattr(cli.importlib, "import_module", missing)
    assert main(["export", "d.json", "--pdf", "x.pdf"]) == 2
    assert capsys.readouterr().err == (
        "cluster-designer: export is not available in this build "
        "(designer.cli.export_cmd)\n"
    )


def test_validate_lists_each_problem_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two.json"
    path.write_text(
        f'{{"schema_version": {SCHEMA_VERSION}, "devices": [{{"id": "a", '
        '"catalog_id": "dgx-h100",'
        ' "x": "1"}], "links": {"id": ["x"]}}',
        encoding="utf-8",
    )
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"cluster-designer: {path}: devices[0].x: expected a number, found the "
        "string '1'",
        f"cluster-designer: {path}: links: column 'a' has 0 entries, expected 1 "
        "(one per link id)",
    ]
