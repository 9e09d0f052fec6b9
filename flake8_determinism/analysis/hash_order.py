"""Does a module's text take an order from a set or hash a string? (DET207's pre-check, DET208)

Text shapes only, no tree: cheap enough for a pre-check, and a yes is confirmed by the rules.
"""

from __future__ import annotations

import re

# Pre-check shapes.  Each search is anchored on a literal (``in``, ``(``, ``=``)
# and confirmed by a short look-behind: Python's ``re`` is slow with patterns
# that start with alternatives or ``\b``.
_SET_AFTER = re.compile(r"(in|\()[\s(]*(?:\{|(?:set|frozenset)\s*\()")  # in set(..., list({...
_TAKER_BEFORE = re.compile(r"\b(?:list|tuple|enumerate|zip|iter|join)$")
_FOR_BEFORE = re.compile(r"\bfor\b[^:]*$")
_SET_ASSIGNED = re.compile(r"=[ \t]*(?:set|frozenset)[ \t]*\(")
_NAME_BEFORE = re.compile(r"(\w+)\s*(?::[^=\n]*)?:?$")
_TAKEN_NAME = re.compile(r"(?:list|tuple|enumerate|zip|iter|join)\(\s*(\w+)\s*[,)]")
_LOOPED_NAME = re.compile(r"for [^\n:]*? in (\w+)\s*:")


def set_in_order_taking_place(text: str) -> bool:
    """``list(set(...))``, ``"".join({...})``, ``for x in set(...)``, comprehension over a set."""
    for match in _SET_AFTER.finditer(text):
        start = match.start()
        if match.group(1) == "(":
            if _TAKER_BEFORE.search(text, max(0, start - 12), start):
                return True
        elif (start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_")) and _FOR_BEFORE.search(
            text, max(0, start - 300), start
        ):
            return True
    return False


def set_variable_taken(text: str) -> bool:
    """``unique = set(...)`` and ``list(unique)`` or ``for x in unique:`` somewhere."""
    holders = set()
    for match in _SET_ASSIGNED.finditer(text):
        name = _NAME_BEFORE.search(text, max(0, match.start() - 120), match.start())
        if name:
            holders.add(name.group(1))
    return bool(holders) and not (
        holders.isdisjoint(_TAKEN_NAME.findall(text)) and holders.isdisjoint(_LOOPED_NAME.findall(text)))


_HASH_CALL = re.compile(r"(?<![\w.])hash\s*\(")
_VIEW_ALGEBRA = re.compile(r"\.keys\(\)\s*[&|^-]")  # ``a.keys() & b.keys()``: a set


def set_of_dict_keys(text: str) -> bool:
    """``a.keys() & b.keys()`` somewhere: dict views combined into a set."""
    return bool(_VIEW_ALGEBRA.search(text))


def may_depend_on_hash_order(text: str) -> bool:
    """Iterates a set in order or calls ``hash()``: what ``PYTHONHASHSEED`` changes."""
    return bool(_HASH_CALL.search(text)) or set_in_order_taking_place(text) or set_variable_taken(text) \
        or set_of_dict_keys(text)
