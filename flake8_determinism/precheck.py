"""The cheap pre-check: skip files in which no rule can fire, before the libcst parse.

Every report needs the callee's own name in the text (an import alias still
spells the original name in its ``import`` line), so a file whose identifiers
meet none of a rule's trigger words cannot produce that rule's report.
Collecting the identifiers costs a few percent of ``ast.parse``.
"""

import re
from typing import FrozenSet

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def identifiers(source: str) -> FrozenSet[str]:
    return frozenset(_IDENTIFIER.findall(source))


def might_report(source: str, settings, rules) -> bool:
    words = identifiers(source)
    return any(rule.might_fire(words, settings) for rule in rules)
