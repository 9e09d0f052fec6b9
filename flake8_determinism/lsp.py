"""python-lsp-server plugin (``pip install 'flake8-determinism[lsp]'``): the linter in the editor,
with ``determinism-fix`` behind quick fixes.

- Diagnostics (``pylsp_lint``): our findings, with a link to the rule's page.  When pylsp's
  own flake8 plugin is on, flake8 already shows them (this package is a flake8 plugin), so
  ours stay quiet unless the ``lint`` setting says otherwise.
- Code actions (``pylsp_code_actions``), for the findings in the requested range: the
  finding's own fix, computed by ``determinism-fix`` on the unsaved text (unsafe ones say
  so and are never preferred); "silence with ``# noqa: DETnnn``", offered only when the
  edited text really silences it; and a ``source.fixAll`` action that applies safe fixes
  only, as ``determinism-fix`` does without ``--unsafe-fixes``.

pylsp loads this module through the ``pylsp`` entry point, as it loads python-lsp-ruff.
Configuration is flake8's, read by the same code as ``determinism-fix``: the
``setup.cfg``/``tox.ini``/``.flake8`` flake8 finds from the workspace root, or the ``config``
setting; so ``extend-ignore``, ``per-file-ignores`` and ``# noqa`` decide here as in flake8.
"""

import difflib
import logging
import os
import re
import tokenize
from functools import lru_cache
from io import StringIO
from typing import List, NamedTuple, Optional, Sequence

from pylsp import hookimpl

from . import RULE_DOCS_URL

PLUGIN = "flake8_determinism"  # the entry point's name: pylsp's settings key for this plugin
SOURCE = "flake8-determinism"
QUICKFIX = "quickfix"
FIX_ALL = "source.fixAll.flake8-determinism"
WARNING = 2  # LSP DiagnosticSeverity
log = logging.getLogger(__name__)
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")  # LSP's lines: only \n, \r\n and \r end one


class View(NamedTuple):
    """One version of a document, linted as flake8 would lint it."""

    uri: str
    source: str
    lines: List[str]
    filename: str  # as flake8 sees it: relative to the workspace root
    path: str  # where it is on disk: its project's other modules are read from there
    settings: object  # ``Settings``
    codes: frozenset  # the codes flake8's configuration selects for this file
    noqa: dict
    seed: int
    problems: list  # ``transform.Problem``: what the user sees, each with its fix
    context: object  # the linted file (``FileContext``): fixes start from it, not from a second lint


@hookimpl
def pylsp_settings():
    return {"plugins": {PLUGIN: {"enabled": True, "lint": None, "config": None, "seed": 0}}}


@hookimpl
def pylsp_lint(config, workspace, document):
    settings = config.plugin_settings(PLUGIN, document_path=document.path)
    lint = settings.get("lint")
    if lint is None:  # auto: flake8, when pylsp runs it, shows our codes already
        lint = not config.plugin_settings("flake8", document_path=document.path).get("enabled", False)
    if not lint:
        return []
    # A lint request follows an edit, maybe of another module: read the project anew (its
    # summaries are cached on disk, so this costs a stat per module the file's runs reach).
    _forget_project()
    _linted.cache_clear()
    view = _view(workspace, document, settings)
    return [_diagnostic(view, problem) for problem in view.problems] if view else []


def _forget_project() -> None:
    from .analysis.project.views import forget

    forget()


@hookimpl
def pylsp_code_actions(config, workspace, document, range, context):  # noqa: A002 - pylsp's hook signature
    only = (context or {}).get("only")
    view = _view(workspace, document, config.plugin_settings(PLUGIN, document_path=document.path))
    if view is None:
        return []
    first, last = range["start"]["line"] + 1, range["end"]["line"] + 1
    here = [p for p in view.problems if first <= p.finding.line <= last]
    actions = []
    if _wanted(only, QUICKFIX):
        for problem in here:
            if problem.fix is not None:
                actions.append(_fix_action(view, problem))
            actions.append(_noqa_action(view, problem))
    # "Fix all" beside the quick fixes of a finding, or when the editor asks for it (on save).
    if _wanted(only, FIX_ALL) and (here or only) and any(p.fix and p.fix.safe for p in view.problems):
        actions.append(_fix_all_action(view))
    return [action for action in actions if action is not None]


def _wanted(only: Optional[Sequence[str]], kind: str) -> bool:
    """LSP's ``only`` filter: kinds are hierarchical (``source`` covers ``source.fixAll.x``)."""
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _view(workspace, document, settings: dict) -> Optional[View]:
    path = os.path.abspath(document.path) if document.path else ""
    root = workspace.root_path or os.path.dirname(path) or os.getcwd()
    filename = os.path.relpath(path, root) if path.startswith(os.path.join(root, "")) else path
    try:
        config_file = settings.get("config") or _find_config(root)
        toml = _pyproject(root)
        stamps = tuple(os.stat(f).st_mtime_ns for f in (config_file, toml) if f)
        return _linted(document.uri, document.source, path, filename, config_file, toml, stamps,
                       int(settings.get("seed") or 0))
    except Exception as error:  # noqa: BLE001 - a bad configuration must not break the editor
        log.warning("flake8-determinism: cannot lint %s: %s", document.uri, error)
        return None


# Editors ask for code actions at every cursor move: lint each version of a document once.
@lru_cache(maxsize=4)
def _linted(uri: str, source: str, path: str, filename: str, config_file: Optional[str], toml: Optional[str],
            stamps: tuple, seed: int) -> View:
    from .checker import ParseFailure
    from .fix.transform import lint

    config = _flake8_config(config_file, toml, stamps)
    lint_settings = config.settings(None, None)
    codes, noqa = config.codes_for(path or filename, "", ""), config.noqa_options()
    try:
        # The editor's unsaved text is this file; the project's other modules come from disk.
        context, found = lint(source, lint_settings, codes, noqa, filename, path=path or None)
    except (ParseFailure, RecursionError):
        context, found = None, []  # flake8 or pyflakes reports the syntax error
    return View(uri, source, _LINES.findall(source), filename, path, lint_settings, codes, noqa, seed, found,
                context)


def _find_config(root: str) -> Optional[str]:
    """The configuration flake8 would read when run from ``root`` (pylsp's flake8 plugin runs
    it there).  flake8 has no public API for this search; without it, we read none."""
    try:
        from flake8.options.config import _find_config_file
    except ImportError:
        return None
    return _find_config_file(root)


def _pyproject(root: str) -> Optional[str]:
    """``pyproject.toml`` at the root, when Flake8-pyproject is installed to read it: it looks in
    the working directory, which is not the project's in a long-lived server, unless told."""
    path = os.path.join(root, "pyproject.toml")
    if not os.path.isfile(path):
        return None
    try:
        import flake8p  # noqa: F401 - only whether it is there
    except ImportError:
        return None
    return path


@lru_cache(maxsize=8)
def _flake8_config(config_file: Optional[str], toml: Optional[str], stamps: tuple):
    from .fix.config import Flake8Config

    extra = ["--toml-config", toml] if toml else []
    # Without a file flake8 would search the server's working directory: read none instead.
    return Flake8Config(config_file, extra=extra) if config_file else Flake8Config(isolated=True, extra=extra)


def _diagnostic(view: View, problem) -> dict:
    finding = problem.finding
    line = view.lines[finding.line - 1] if finding.line <= len(view.lines) else ""
    fix = problem.fix
    return {
        "source": SOURCE,
        "code": finding.code,
        "codeDescription": {"href": RULE_DOCS_URL.format(code=finding.code)},
        "range": {
            "start": {"line": finding.line - 1, "character": _utf16(line[:finding.column])},
            "end": {"line": finding.line - 1, "character": _utf16(line.rstrip("\r\n"))},
        },
        "message": finding.message[len(finding.code):].strip(),
        "severity": WARNING,
        "data": {"fix": None if fix is None else "safe" if fix.safe else "unsafe"},
    }


def _fix_action(view: View, problem) -> Optional[dict]:
    from .fix.transform import fix_source

    finding, fix = problem.finding, problem.fix
    fixed = fix_source(view.source, view.settings, view.seed, unsafe=not fix.safe, codes=view.codes,
                       noqa=view.noqa, filename=view.filename, only=finding.__eq__,
                       linted=(view.context, view.problems), path=view.path or None)
    if not fixed.changed:
        return None
    return _action(view, "Fix %s%s: %s" % (finding.code, "" if fix.safe else " (unsafe, review it)", fix.what),
                   QUICKFIX, fixed.source, [problem], preferred=fix.safe)


def _noqa_action(view: View, problem) -> Optional[dict]:
    """``# noqa: DETnnn`` on the finding's line, else at the end of its statement; offered only
    when the edited text parses and flake8's noqa rules then silence the finding."""
    from .checker import ParseFailure
    from .fix.transform import lint

    finding = problem.finding
    for number in _comment_lines(view.source, finding.line):
        lines = list(view.lines)
        lines[number - 1] = _with_noqa(lines[number - 1], finding.code)
        source = "".join(lines)
        try:
            _, still = lint(source, view.settings, view.codes, view.noqa, view.filename, path=view.path or None)
        except (ParseFailure, RecursionError):
            continue
        if not any(p.finding.code == finding.code and p.finding.line == finding.line for p in still):
            return _action(view, "Silence %s on this line (# noqa: %s)" % (finding.code, finding.code),
                           QUICKFIX, source, [problem])
    return None


def _fix_all_action(view: View) -> Optional[dict]:
    from .fix.transform import fix_source

    fixed = fix_source(view.source, view.settings, view.seed, unsafe=False, codes=view.codes, noqa=view.noqa,
                       filename=view.filename, linted=(view.context, view.problems), path=view.path or None)
    if not fixed.changed:
        return None
    return _action(view, "Fix all safe flake8-determinism problems", FIX_ALL, fixed.source,
                   [p for p in view.problems if p.fix is not None and p.fix.safe])


def _action(view: View, title: str, kind: str, new_source: str, problems: list, preferred: bool = False) -> dict:
    action = {
        "title": title,
        "kind": kind,
        "diagnostics": [_diagnostic(view, p) for p in problems],
        "edit": {"changes": {view.uri: text_edits(view.source, new_source)}},
    }
    if preferred:
        action["isPreferred"] = True
    return action


def text_edits(old: str, new: str) -> List[dict]:
    """Whole-line ``TextEdit``s turning ``old`` into ``new``, one per changed block, so the editor
    keeps the cursor and folds elsewhere (positions refer to ``old``, as LSP wants)."""
    a, b = _LINES.findall(old), _LINES.findall(new)
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            edits.append({"range": {"start": _position(a, i1), "end": _position(a, i2)},
                          "newText": "".join(b[j1:j2])})
    return edits


def _position(lines: List[str], index: int) -> dict:
    if index < len(lines) or not lines or lines[-1].endswith(("\n", "\r")):
        return {"line": index, "character": 0}
    return {"line": len(lines) - 1, "character": _utf16(lines[-1])}  # the end of a last line without newline


def _utf16(text: str) -> int:
    """LSP counts characters in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _comment_lines(source: str, line: int) -> List[int]:
    """Where a comment for ``line`` may go: the line itself, and the last line of its statement
    (the line may end inside a string)."""
    candidates = [line]
    try:
        for token in tokenize.generate_tokens(StringIO(source).readline):
            if token.type == tokenize.NEWLINE and token.start[0] >= line:
                if token.start[0] != line:
                    candidates.append(token.start[0])
                break
    except (tokenize.TokenError, SyntaxError):
        pass
    return candidates


def _with_noqa(line: str, code: str) -> str:
    from flake8.defaults import NOQA_INLINE_REGEXP

    body = line.rstrip("\r\n")
    ending = line[len(body):]
    match = NOQA_INLINE_REGEXP.search(body)
    if match and match.group("codes"):
        end = match.end("codes")
        while body[end - 1] in ", \t":
            end -= 1
        return body[:end] + "," + code + body[end:] + ending
    return body + "  # noqa: " + code + ending
