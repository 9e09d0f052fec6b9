"""Editors: a real python-lsp-server over stdio shows our codes (through its flake8 plugin and
through ours), and our quick fixes, applied as an editor applies them, make the code lint clean."""

import ast
import textwrap

import pytest

from flake8_determinism.lsp import text_edits
from lsp_client import LanguageServer, apply_edits, changes_for

TRAIN = textwrap.dedent('''\
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, Dataset


    class Noisy(Dataset):
        def __init__(self):
            self.rng = np.random.default_rng(0)

        def __len__(self):
            return 8

        def __getitem__(self, i):
            return self.rng.random()


    def main():
        loader = DataLoader(Noisy(), batch_size=2, shuffle=True, num_workers=2)
        for batch in loader:
            print(batch.sum())
        names = list(set(open("names.txt").read().split()))
        first = names[0]
        print(first)


    if __name__ == "__main__":
        main()
''')
LOADER_LINE = 17  # 0-based: the DataLoader(...) line
SET_LINE = 20  # the list(set(...)) line: DET207, whose fix (sorted over unknown elements) is unsafe
QUIET = {name: {"enabled": False} for name in (
    "pycodestyle", "pyflakes", "mccabe", "pydocstyle", "pylint", "autopep8", "yapf", "rope_autoimport")}


def det(diagnostics):
    return {(d["code"], d["range"]["start"]["line"]) for d in diagnostics if str(d.get("code", "")).startswith("DET")}


@pytest.fixture
def workspace(tmp_path):
    servers = []

    def open_document(settings, text=TRAIN, config=None, config_name="setup.cfg", files=None):
        root = tmp_path / "project"
        root.mkdir()
        if config is not None:
            (root / config_name).write_text(config)
        for name, content in (files or {}).items():
            (root / name).write_text(content)
        path = root / "train.py"
        path.write_text(text)
        # Started elsewhere, as editors may: the configuration is found from the workspace root.
        server = LanguageServer(root, settings, cwd=tmp_path)
        servers.append(server)
        uri = path.as_uri()
        server.notify("textDocument/didOpen",
                      {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
        return server, uri

    yield open_document
    for server in servers:
        server.close()


def test_flake8_in_pylsp_shows_our_codes_at_their_lines(workspace):
    server, uri = workspace({"plugins": {**QUIET, "flake8": {"enabled": True}}})
    diagnostics = server.diagnostics(uri, lambda ds: any(d["source"] == "flake8" for d in ds))
    assert {("DET201", LOADER_LINE), ("DET104", LOADER_LINE)} <= det(diagnostics)
    columns = {d["code"]: d["range"]["start"]["character"] for d in diagnostics}
    assert columns["DET104"] == 13  # flake8 col 14: ``DataLoader`` after ``    loader = ``
    # flake8 shows them already: our plugin stays quiet rather than doubling every report.
    assert not [d for d in diagnostics if d["source"] == "flake8-determinism"]


def test_our_plugin_lints_when_flake8_is_off(workspace):
    server, uri = workspace({"plugins": QUIET})
    diagnostics = server.diagnostics(uri, lambda ds: bool(det(ds)))
    assert det(diagnostics) == {("DET204", 7), ("DET201", LOADER_LINE), ("DET104", LOADER_LINE),
                                ("DET207", SET_LINE)}
    d104 = next(d for d in diagnostics if d["code"] == "DET104")
    assert d104["source"] == "flake8-determinism" and d104["severity"] == 2
    assert d104["codeDescription"]["href"].endswith("/docs/rules/DET104.md")
    assert d104["message"].startswith("torch's RNG is never seeded in this run")


RUN = textwrap.dedent('''\
    import torch

    from helpers import prepare

    if __name__ == "__main__":
        prepare(0)
        model = torch.nn.Linear(2, 1)
        print(model(torch.ones(2)))
''')
SEEDS_TORCH = "import torch\n\n\ndef prepare(seed):\n    torch.manual_seed(seed)\n"


def test_the_unsaved_buffer_is_judged_with_the_project_on_disk(workspace):
    """The run of the buffer reaches helpers.py on disk: its prepare() seeds torch.  Edit the
    buffer (no call) and the report appears; edit helpers.py on disk (seeds nothing) and the
    next lint sees it, without a restart."""
    server, uri = workspace({"plugins": QUIET}, text=RUN, files={"helpers.py": SEEDS_TORCH})
    assert det(server.diagnostics(uri, lambda ds: True)) == set()
    _change(server, uri, RUN.replace("    prepare(0)\n", ""), 2)
    assert det(server.diagnostics(uri, lambda ds: bool(det(ds)))) == {("DET104", 5)}
    (server.root / "helpers.py").write_text("def prepare(seed):\n    print(seed)\n")
    _change(server, uri, RUN, 3)
    assert det(server.diagnostics(uri, lambda ds: bool(det(ds)))) == {("DET104", 6)}


def _actions(server, uri, line, only=None):
    context = {"diagnostics": []}
    if only:
        context["only"] = only
    return server.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
        "context": context,
    })


def _change(server, uri, text, version):
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})


def test_quick_fix_for_det104_makes_it_lint_clean(workspace):
    server, uri = workspace({"plugins": QUIET})
    server.diagnostics(uri, lambda ds: ("DET104", LOADER_LINE) in det(ds))
    actions = _actions(server, uri, LOADER_LINE)
    titles = [a["title"] for a in actions]
    fix = next(a for a in actions if a["title"].startswith("Fix DET104"))
    assert fix["kind"] == "quickfix" and fix["isPreferred"] is True
    assert "Silence DET104 on this line (# noqa: DET104)" in titles
    assert any(a["kind"] == "source.fixAll.flake8-determinism" for a in actions)
    assert not [t for t in titles if "DET207" in t]  # only what lies in the requested range

    fixed = apply_edits(TRAIN, changes_for(fix, uri))
    ast.parse(fixed)
    assert "generator=torch.Generator().manual_seed(" in fixed
    assert "names = list(set(" in fixed  # the quick fix touches only its finding
    _change(server, uri, fixed, 2)
    after = server.diagnostics(uri, lambda ds: "DET104" not in {c for c, _ in det(ds)})
    assert "DET207" in {c for c, _ in det(after)}


def test_noqa_action_silences_only_that_code(workspace):
    server, uri = workspace({"plugins": QUIET})
    server.diagnostics(uri, lambda ds: ("DET104", LOADER_LINE) in det(ds))
    silence = next(a for a in _actions(server, uri, LOADER_LINE) if a["title"].startswith("Silence DET104"))
    silenced = apply_edits(TRAIN, changes_for(silence, uri))
    assert silenced.splitlines()[LOADER_LINE].endswith("num_workers=2)  # noqa: DET104")
    _change(server, uri, silenced, 2)
    after = server.diagnostics(uri, lambda ds: ("DET104", LOADER_LINE) not in det(ds))
    assert ("DET201", LOADER_LINE) in det(after)
    # A second code joins the existing comment.
    again = next(a for a in _actions(server, uri, LOADER_LINE) if a["title"].startswith("Silence DET201"))
    both = apply_edits(silenced, changes_for(again, uri))
    assert both.splitlines()[LOADER_LINE].endswith("  # noqa: DET104,DET201")


def test_fix_all_applies_safe_fixes_only(workspace):
    server, uri = workspace({"plugins": QUIET})
    server.diagnostics(uri, lambda ds: bool(det(ds)))
    (fix_all,) = _actions(server, uri, 0, only=["source.fixAll"])
    assert fix_all["kind"] == "source.fixAll.flake8-determinism"
    assert {d["code"] for d in fix_all["diagnostics"]} == {"DET201", "DET104"}  # what it fixes
    fixed = apply_edits(TRAIN, changes_for(fix_all, uri))
    assert "names = list(set(" in fixed  # DET207's fix is unsafe: never in "fix all"
    _change(server, uri, fixed, 2)
    after = server.diagnostics(uri, lambda ds: not {"DET201", "DET104"} & {c for c, _ in det(ds)})
    assert {c for c, _ in det(after)} == {"DET204", "DET207"}  # DET204 has no fix
    # The unsafe fix is still offered on its own, saying so, never preferred.
    unsafe = next(a for a in _actions(server, uri, fixed.splitlines().index(
        '    names = list(set(open("names.txt").read().split()))')) if a["title"].startswith("Fix DET207"))
    assert "(unsafe" in unsafe["title"] and "isPreferred" not in unsafe
    assert "sorted(set(" in apply_edits(fixed, changes_for(unsafe, uri))


def test_project_configuration_decides_what_is_shown(workspace):
    server, uri = workspace({"plugins": QUIET}, config="[flake8]\nextend-ignore = DET201,DET204\n")
    diagnostics = server.diagnostics(uri, lambda ds: bool(det(ds)))
    assert {c for c, _ in det(diagnostics)} == {"DET104", "DET207"}
    assert not [a for a in _actions(server, uri, LOADER_LINE) if "DET201" in a["title"]]


@pytest.mark.parametrize("old, new", [
    ("a\nb\nc\n", "a\nB\nc\n"),
    ("a\nb", "a\nb\nc"),  # last line without a newline
    ("a\r\nb\r\n", "x\r\na\r\nb\r\n"),
    ("s = '😀'\nx = 1\n", "s = '😀'\nx = 2\n"),
    ("a\x0cb\nc\n", "a\x0cb\nd\n"),  # a form feed does not end an LSP line
    ("", "import random\n"),
])
def test_text_edits_turn_old_into_new(old, new):
    assert apply_edits(old, text_edits(old, new)) == new


def test_text_edits_leave_unchanged_lines_alone():
    (edit,) = text_edits("a\nb\nc\n", "a\nB\nc\n")
    assert edit == {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}},
                    "newText": "B\n"}


def test_pyproject_toml_is_read_through_flake8_pyproject(workspace):
    server, uri = workspace({"plugins": QUIET}, config_name="pyproject.toml",
                            config='[tool.flake8]\nextend-ignore = ["DET104", "DET207"]\n')
    diagnostics = server.diagnostics(uri, lambda ds: bool(det(ds)))
    assert {c for c, _ in det(diagnostics)} == {"DET201", "DET204"}


def test_a_bad_configuration_costs_our_diagnostics_not_the_server(workspace):
    server, uri = workspace({"plugins": QUIET}, config="[flake8]\ndeterminism-torch-version = banana\n")
    assert server.diagnostics(uri, lambda ds: True) == []
    assert _actions(server, uri, LOADER_LINE) == []
    assert "determinism-torch-version" in server.log()  # said why, in the server's log
