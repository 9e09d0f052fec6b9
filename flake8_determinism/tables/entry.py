"""What makes a module an entry module (RULES.md "Entry module").

A module-level call statement means the module runs something when executed,
like a script -- except calls that only configure or build tables, which
library modules make at import time too.
"""

DECLARATIVE_PREFIXES = ("warnings.", "logging.", "sys.path.", "__all__.", "os.environ.")
DECLARATIVE_WORDS = ("register", "add_docstr", "setattr", "filterwarnings", "simplefilter",
                     "getLogger", "basicConfig", "setLevel", "addHandler", "_log_api_usage")
TABLE_BUILDING_METHODS = frozenset({"append", "extend", "update", "add", "setdefault", "insert"})


def is_declarative_call(dotted_callee: str, method: str) -> bool:
    """``dotted_callee``: ``a.b.c`` spelling of the callee ('' if not a plain chain);
    ``method``: the called attribute's name ('' if not an attribute call)."""
    if method in TABLE_BUILDING_METHODS:
        return True
    if not dotted_callee:
        return False
    return dotted_callee.startswith(DECLARATIVE_PREFIXES) or any(w in dotted_callee for w in DECLARATIVE_WORDS)
