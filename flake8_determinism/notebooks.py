"""Jupyter notebooks as one run: the code cells, in order, are the run's statements.

``determinism-fix`` reads a notebook as a script (``to_script``): each code cell follows
a marker line, IPython's magics and shell lines become comments (a ``pass`` where a block
needs a statement), so the linter and the codemod see plain Python.  ``from_script`` puts
the fixed script back into the cells; ``dump`` writes the JSON as the file was formatted,
with outputs and metadata as they were.  Only the standard library: notebooks are JSON.
"""

import json
import re
from typing import Dict, List, NamedTuple, Optional, Tuple

SUFFIX = ".ipynb"
_CELL = "# <determinism-fix cell %d>"
_CELL_LINE = re.compile(r"^# <determinism-fix cell (\d+)>$")
_MAGIC = "# <determinism-fix magic %d>"
_MAGIC_LINE = re.compile(r"^[ \t]*(?:pass  )?# <determinism-fix magic (\d+)>$")
# Cell magics whose body is Python (IPython runs it); any other ``%%`` cell is not Python.
PYTHON_CELL_MAGICS = frozenset(("time", "timeit", "capture", "prun", "python", "python3", "debug"))
# ``!ls``, ``%cd x``, ``files = !ls``, ``x = %who_ls``, ``obj?``, ``??obj``.
_SHELL_OR_MAGIC = re.compile(r"^[ \t]*(?:[!%]|\?\??[\w.]|[\w.]+[ \t]*=[ \t]*[!%]|[\w.]+\?\??[ \t]*$)")


class NotebookError(Exception):
    """Not a notebook this tool can read: one line for the user."""


class OtherLanguage(Exception):
    """A notebook whose kernel is not Python: valid, and none of ours (skipped, not an error)."""


class Notebook(NamedTuple):
    text: str  # the file as read
    code_cells: List[int]  # indices into the JSON's "cells" of the code cells, in order
    sources: List[str]  # each code cell's source as one string


class Script(NamedTuple):
    text: str
    magics: Dict[int, str]  # magic number -> the original line


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


def read(text: str) -> Notebook:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise NotebookError("is not valid JSON (%s): not a notebook this tool can read" % error) from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("has no list of cells: not a Jupyter notebook (nbformat 4)")
    language = _language(data)
    if language and language != "python":
        raise OtherLanguage("a %s notebook, not Python" % language)
    cells = data["cells"]
    code = [i for i, cell in enumerate(cells) if isinstance(cell, dict) and cell.get("cell_type") == "code"]
    sources = []
    for index in code:
        source = cells[index].get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotebookError("has a code cell whose source is not text (cell %d)" % (len(sources) + 1))
        sources.append(source)
    return Notebook(text, code, sources)


def _language(data: dict) -> str:
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key) if isinstance(metadata.get(key), dict) else {}
        if isinstance(value.get(field), str):
            return value[field].lower()
    return ""


def _style(text: str, data: dict) -> Optional[dict]:
    """The ``json.dumps`` keywords under which ``data`` comes out as ``text`` (Jupyter and
    nbformat write one space of indent, keys as they are, non-ASCII as it is, a final newline)."""
    indents = [1, 2, 4, None, "\t"]
    first = re.search(r"\n([ \t]+)\S", text)
    if first:
        indents.insert(0, len(first.group(1)) if first.group(1).strip(" ") == "" else first.group(1))
    for indent in indents:
        for ensure_ascii in (False, True):
            for sort_keys in (False, True):
                style = {"indent": indent, "ensure_ascii": ensure_ascii, "sort_keys": sort_keys}
                if indent is not None:
                    style["separators"] = (",", ": ")
                dumped = json.dumps(data, **style)
                if text in (dumped, dumped + "\n", dumped + "\r\n"):
                    return dict(style, end=text[len(dumped):])
    return None


def to_script(notebook: Notebook) -> Script:
    """The code cells as one Python script (see the module's docstring)."""
    lines: List[str] = []
    magics: Dict[int, str] = {}
    for number, source in enumerate(notebook.sources, 1):
        lines.append(_CELL % number)
        cell_lines = source.split("\n")
        if source.endswith("\n"):
            cell_lines.pop()
        opaque = _is_foreign_cell(cell_lines)
        for at, line in enumerate(cell_lines, 1):
            continued = at > 1 and cell_lines[at - 2].rstrip().endswith("\\") and _is_masked(lines[-1])
            if opaque or continued or (at == 1 and line.startswith("%%")) or _SHELL_OR_MAGIC.search(line):
                magics[len(magics)] = line
                # A magic inside a block stands for a statement; its continuation lines are comments.
                indent = _block_indent(cell_lines[:at - 1], line) if not (opaque or continued) else ""
                line = (indent + "pass  " if indent else "") + _MAGIC % (len(magics) - 1)
            lines.append(line)
    return Script("\n".join(lines) + "\n", magics)


def _block_indent(before: List[str], line: str) -> str:
    """The indent a magic line keeps: its own inside a block (the last line of code above opens
    one or is as deep), none at the cell's top level (IPython takes `` !ls`` there too)."""
    indent = line[:len(line) - len(line.lstrip())]
    code = [text for text in before if text.strip() and not text.lstrip().startswith(("#", "%", "!"))]
    if not indent or not code:
        return ""
    above = code[-1]
    depth = len(above) - len(above.lstrip())
    return indent if (depth < len(indent) and above.rstrip().endswith(":")) or 0 < depth <= len(indent) else ""


def _is_foreign_cell(cell_lines: List[str]) -> bool:
    """A ``%%bash``, ``%%html``, ``%%writefile`` ... cell: not Python, kept whole."""
    first = cell_lines[0].strip() if cell_lines else ""
    return first.startswith("%%") and first[2:].split(" ", 1)[0] not in PYTHON_CELL_MAGICS


def _is_masked(line: str) -> bool:
    return bool(_MAGIC_LINE.match(line))


def from_script(notebook: Notebook, script: Script, fixed: str) -> List[str]:
    """Each code cell's new source from the fixed script.  Lines before the first marker
    (imports the codemod put at the top) open the first cell."""
    cells: List[List[str]] = [[]]
    seen = []
    for line in fixed.split("\n"):
        marker = _CELL_LINE.match(line)
        if marker:
            seen.append(int(marker.group(1)))
            cells.append([])
            continue
        magic = _MAGIC_LINE.match(line)
        cells[-1].append(script.magics[int(magic.group(1))] if magic else line)
    if seen != list(range(1, len(notebook.sources) + 1)):
        raise NotebookError("cell boundaries were lost while fixing; left as it is")
    head = cells.pop(0)
    if cells:
        cells[0] = [line for line in head if line] + cells[0]
    sources = []
    for original, cell in zip(notebook.sources, cells):
        while cell and cell[-1] == "" and len(cell) > 1:
            cell.pop()
        text = "\n".join(cell)
        if original.endswith("\n"):
            text += "\n"
        sources.append(original if text.rstrip("\n") == original.rstrip("\n") else text)
    return sources


def dump(notebook: Notebook, sources: List[str]) -> str:
    """The notebook's JSON with these code cell sources: the rest, and the formatting, kept."""
    data = json.loads(notebook.text)  # a fresh copy
    # Found only now, when writing: it takes trial dumps of a file that may hold MBs of outputs.
    style = _style(notebook.text, data) or {"indent": 1, "ensure_ascii": False, "sort_keys": True,
                                            "separators": (",", ": "), "end": "\n"}
    for index, source, old in zip(notebook.code_cells, sources, notebook.sources):
        if source == old:
            continue
        cell = data["cells"][index]
        cell["source"] = source.splitlines(True) if isinstance(cell.get("source"), list) else source
    end = style.pop("end")
    return json.dumps(data, **style) + end


def place(text: str, line: int) -> Tuple[int, int]:
    """(code cell from 1, line in that cell from 1) of line ``line`` of a script (before or
    after fixing, as ``from_script`` splits it); a marker line counts as its cell's first line."""
    lines = text.split("\n")
    head = 0  # lines above the first marker open the first cell
    while head < len(lines) and not _CELL_LINE.match(lines[head]):
        head += 1
    if line <= head:
        return 1, max(1, line)
    cell, at, shift = 1, 1, sum(1 for text_line in lines[:head] if text_line)
    for number in range(head, min(line, len(lines))):
        marker = _CELL_LINE.match(lines[number])
        if marker:
            cell, at = int(marker.group(1)), 0 if number + 1 < line else 1
        else:
            at += 1
    return cell, max(1, at + (shift if cell == 1 else 0))


def cell_diff(notebook: Notebook, sources: List[str], display: str) -> str:
    """A unified diff per changed code cell, named ``NOTEBOOK:cell_N`` as nbQA names cells."""
    import difflib

    def lines(text: str) -> List[str]:
        return (text if text.endswith("\n") or not text else text + "\n").splitlines(True)

    return "".join(
        "".join(difflib.unified_diff(lines(old), lines(new), "%s:cell_%d" % (display, number),
                                     "%s:cell_%d" % (display, number)))
        for number, (old, new) in enumerate(zip(notebook.sources, sources), 1) if old != new)


# nbQA (``nbqa flake8``) lints a notebook as a temporary ``NAMExxxx_nbqa_ipynb.py`` whose code
# cells each follow a ``# %%NBQA-CELL-SEP`` line, and maps reported lines back to cells.
NBQA_SUFFIX = "_nbqa_ipynb.py"
NBQA_SEPARATOR = "# %%NBQA-CELL-SEP"
_NBQA_MAGIC = re.compile(r"\bhash\((?:0x[0-9A-Fa-f]+|\"[0-9a-f]+\")\)")  # hash(0x1A2B) or hash("1a2b")


def nbqa_separators(filename: str, lines: List[str]) -> List[int]:
    """The separator lines (from 1) of an nbQA temporary file; [] for any other file."""
    if not filename.endswith(NBQA_SUFFIX) or not lines or not lines[0].startswith(NBQA_SEPARATOR):
        return []
    return [number for number, line in enumerate(lines, 1) if line.startswith(NBQA_SEPARATOR)]


def nbqa_placed(found: list, filename: str, lines: List[str]) -> list:
    """Findings of an nbQA file where nbQA can name a cell line: one reported on a separator
    (a whole-run finding, at line 1) moves to the next line of code, and a message's
    ``FILE:N`` becomes ``FILE:cell_K:L`` as nbQA writes positions."""
    separators = nbqa_separators(filename, lines)
    if not separators:
        return found
    name = re.escape(filename) + "|" + re.escape(filename.replace("\\", "/").rsplit("/", 1)[-1])
    cells = _nbqa_cell_numbers(filename, lines, separators)

    def cell_line(match) -> str:
        number = int(match.group(2))
        before = [s for s in separators if s < number]
        if not before or cells is None:
            return match.group(0)
        return "%s:cell_%d:%d" % (match.group(1), cells[len(before) - 1], number - before[-1])

    placed = []
    for line, column, code, message in found:
        if line in separators:
            code_line = next((n for n in range(line + 1, len(lines) + 1)
                              if lines[n - 1].strip() and not lines[n - 1].lstrip().startswith("#")), None)
            if code_line is not None:
                line, column = code_line, len(lines[code_line - 1]) - len(lines[code_line - 1].lstrip())
        placed.append((line, column, code, re.sub(r"(%s):(\d+)" % name, cell_line, message)))
    return placed


def _nbqa_cell_numbers(filename: str, lines: List[str], separators: List[int]) -> Optional[List[int]]:
    """The code cell number (from 1, as nbQA counts) of each chunk of nbQA's file.  nbQA leaves
    out some cells (empty, all magic, ``%%bash``...) but counts them, so each chunk is matched to
    the notebook's cells by its lines of plain code; None when that cannot be done."""
    stem = filename[:-len(NBQA_SUFFIX)]
    notebook = stem[:-8] + SUFFIX  # mkstemp put 8 random characters after the notebook's name
    try:
        with open(notebook, encoding="utf-8") as stream:
            sources = read(stream.read()).sources
    except (OSError, ValueError, NotebookError, OtherLanguage):
        return None

    def plain(chunk: List[str]) -> List[str]:  # nbQA writes a magic as ``hash(0x...)`` or a comment
        return [line.rstrip() for line in chunk if line.strip() and not line.lstrip().startswith("#")
                and not _SHELL_OR_MAGIC.search(line) and not _NBQA_MAGIC.search(line)]

    numbers, cell = [], 0
    for at, start in enumerate(separators):
        end = separators[at + 1] - 1 if at + 1 < len(separators) else len(lines)
        chunk = plain(lines[start:end])
        while cell < len(sources) and plain(sources[cell].split("\n")) != chunk:
            cell += 1
        if cell == len(sources):
            return None
        cell += 1
        numbers.append(cell)
    return numbers
