from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, FrozenSet, Iterator, Optional

from .._lazy import cst
from ..analysis.body import scope_body
from ..analysis.order_free import builtin_name, is_log_call
from ..analysis.kinds import (
    FOLLOW_DEPTH, MAYBE_TEXT, NUMBER, OBJECT, TEXT, Place, singular, argument_kind, callee_is_sorting, element_kind,
    is_string, name_words, sorted_items,
)
from ..analysis.nodes import code_children, dotted_name, self_attribute
from ..analysis.scopes import enclosing_class, lookup
from ..tables import data_order as T
from ..tables.seeding import ENTROPY_CALLS, ENTROPY_PREFIXES
from .common.base import Report, Rule
from .common.seeding import seed_argument

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

# What the hash decides (the ends of its way through the code).
SPLIT = "the split or bucket it picks changes every run"
FILE = "the file name made from it changes every run (what one run caches, the next never finds)"
SORT = "the order it sorts into changes every run"
SEED = "the seed made from it changes every run"
IDENTIFIER = "the value made from it (an id, a bucket, a feature, a name) changes every run"

# How far the value is followed: through variables, returns to callers, attributes (as kinds.py).
_QUIET, _LEAVES = object(), object()
_REDUCED, _RAW, _NAMED = "reduced", "raw", "named"
# A file name in a string's literal part: a folder separator or an extension.
_FILE_SHAPE = re.compile(r"[/\\]|\.[A-Za-z][A-Za-z0-9]{0,5}$|\.[A-Za-z][A-Za-z0-9]{0,5}[^A-Za-z0-9]")
# Text next to the hash in an f-string that makes it a file name: an extension after it
# (``{h}.pkl``, ``{h}_v2.json``) or a folder separator on either side.
_EXTENSION_AFTER = re.compile(r"^[\w.-]*\.[A-Za-z][A-Za-z0-9]{0,5}(?![A-Za-z0-9])|^[/\\]")
_SEPARATOR_BEFORE = re.compile(r"[/\\][\w.-]*$")
# Text no file name holds (markup, sentences, quoted values): the string is something else.
_NOT_A_FILE_NAME = re.compile(r"[\s<>\"'=:;,]")


class HashDecidesResult(Rule):
    """DET209: ``hash()`` of a str or bytes (or of a tuple holding one) decides a result.

    What it does: reports the builtin ``hash()`` when its argument is (or may well
    be) a ``str``/``bytes`` -- a string literal or f-string, the result of
    ``str()``/``repr()``/``.join()``/``.format()``/``json.dumps()``, a path, a
    tuple holding one, or a variable, parameter or attribute not known to hold a
    number or an object -- and its value decides a result: a split or bucket
    (``hash(name) % 10`` compared, used as an index, stored or returned;
    ``abs(hash(key))`` returned as an id), a file or folder name (the hash
    formatted into a string that reaches ``os.path.join``/``open``/``Path`` or
    looks like a file name), a sort key (``key=hash``, ``key=lambda s: hash(s)``)
    or a seed given to a library (``make_env(name, seed=hash(name))``; the seed of a seeding call
    or RNG constructor, ``random.seed(hash(name))``, is DET105's).  The value is
    followed through local variables, ``self`` attributes and this module's
    callers of the function returning it.  Not reported: hashes of numbers
    (``hash(idx)``, ``hash(x.shape[0])``) and of objects (``hash(self)``),
    ``__hash__``/``__eq__``/``__repr__`` bodies, log lines, in-memory dict and
    set keys, a ``hash()`` whose value is thrown away.

    Why it matters: ``str`` and ``bytes`` hashes are salted with a random value
    per process unless ``PYTHONHASHSEED`` is set before Python starts, so the
    same string hashes differently in every run: the train/validation split
    moves, caches keyed by the hash are never found again, sort orders and
    seeds change.

    Fix: use a stable hash of the bytes: ``zlib.crc32(s.encode())`` or
    ``int(hashlib.md5(s.encode()).hexdigest(), 16)``.
    """

    code = "DET209"
    triggers = frozenset({"hash"})

    def might_fire_in(self, shape, settings) -> bool:
        # ``hash`` is in every ``__hash__`` and ``hashlib`` line: look for a call that can decide something.
        return super().might_fire_in(shape, settings) and (
            _hash_outside(shape.tree, shape.code.text, T.PROTOCOL_METHODS) or _hash_as_key(shape.code.text))
    invalid = (
        "def fold(name: str) -> str:\n    return 'valid' if hash(name) % 10 == 0 else 'train'\n",
        "import os\nimport torch\n\ndef load(cache_dir, key):\n"
        "    path = os.path.join(cache_dir, f'{hash(key)}.pt')\n    return torch.load(path)\n",
        "names = ['a', 'b', 'c']\norder = sorted(names, key=lambda s: hash(s))\n",
    )
    valid = (
        "def bucket(idx: int) -> int:\n    return hash(idx) % 10\n",
        "class Key:\n    def __init__(self, name):\n        self.name = name\n\n"
        "    def __hash__(self):\n        return hash(self.name)\n",
        "import zlib\n\ndef fold(name: str) -> str:\n"
        "    return 'valid' if zlib.crc32(name.encode()) % 10 == 0 else 'train'\n",
        "import logging\nlogging.info('config hash %d', hash('lr=0.1'))\n",
    )
    sources = (
        (
            "``str`` and ``bytes`` hash values are salted with an unpredictable random value: constant "
            "within one Python process, not predictable between repeated invocations.",
            "https://docs.python.org/3/reference/datamodel.html#object.__hash__",
        ),
        (
            "Unless ``PYTHONHASHSEED`` is set (to an integer) before the interpreter starts, a random "
            "value seeds the hashes of ``str`` and ``bytes``.",
            "https://docs.python.org/3/using/cmdline.html#envvar-PYTHONHASHSEED",
        ),
        (
            "ParlAI's Taskmaster-2 teacher split dialogues with ``abs(hash(x)) % 10`` on a string id, "
            "so its valid/test folds changed every run; DGL named its dataset caches "
            "``abs(hash(hash_key))``, so a saved cache was not found by the next process; both "
            "moved to a hashlib digest.",
            "facebookresearch/ParlAI 27851c0; dmlc/dgl b5be4f4 (#1919)",
        ),
    )
    fix_description = (
        "No automatic fix: the stable replacement changes every value (a new split, new cache names), which "
        "only you can accept. Hash the bytes with a function that does not depend on the process: "
        "``zlib.crc32(s.encode())`` for buckets and splits, ``int(hashlib.md5(s.encode()).hexdigest(), 16)`` "
        "or ``hashlib.sha1(repr(key).encode()).hexdigest()`` for cache keys and file names."
    )
    fixed = (
        "import zlib\n\n\ndef fold(name: str) -> str:\n"
        "    return 'valid' if zlib.crc32(name.encode()) % 10 == 0 else 'train'\n"
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        walker = None
        for site in ctx.index.calls:
            call = site.node
            if builtin_name(call, site) == "hash" and len(call.args) == 1 and not call.args[0].star:
                if site.fn is not None and (_protocol_function(ctx, site) or _in_mapping_class(ctx, site)):
                    continue
                what = argument_kind(ctx, call.args[0].value, site.scope, site.order)
                if what in (NUMBER, OBJECT):
                    continue
                walker = walker or _Walker(ctx)
                decided = walker.destination(call, Place.of(site), _RAW, 0)
                if decided == SORT and what == MAYBE_TEXT:
                    continue  # sorting objects by hash for some fixed order within the process
                if decided is not None:
                    yield Report(call, _message(what, decided))
            else:
                yield from self._hash_as_key(ctx, site)

    @staticmethod
    def _hash_as_key(ctx: FileContext, site: CallSite) -> Iterator[Report]:
        """``sorted(names, key=hash)``: the builtin itself as the sort key."""
        call = site.node
        for arg in call.args:
            value = arg.value
            if (
                arg.keyword is not None and arg.keyword.value == "key" and isinstance(value, cst.Name)
                and value.value == "hash" and lookup(site.scope, "hash", site.order) is None
                and site.method_name in T.SORTING_BY_KEY
            ):
                items = sorted_items(call)
                what = element_kind(ctx, items, site.scope, site.order) if items is not None else MAYBE_TEXT
                if what == TEXT:  # objects sorted by hash: some fixed order within the process
                    yield Report(value, _message(what, SORT))


def _message(what: str, decided: str) -> str:
    return (
        "hash() of %s decides a result, but str/bytes hashes are salted per process (PYTHONHASHSEED): %s"
        " — use a stable hash (zlib.crc32(s.encode()), hashlib.md5)" % (what, decided)
    )


def _protocol_function(ctx: FileContext, site: CallSite) -> bool:
    """``def __hash__(self): return hash(self.name)`` (also a lambda assigned to ``X.__hash__``)."""
    fn = site.fn
    if fn.name in T.PROTOCOL_METHODS:
        return True
    if isinstance(fn.node, cst.Lambda):
        for assignment in ctx.index.assignments:
            if assignment.value is fn.node and isinstance(assignment.target, cst.Attribute):
                return assignment.target.attr.value in T.PROTOCOL_METHODS
    return False


def _in_mapping_class(ctx: FileContext, site: CallSite) -> bool:
    """A method of a hash table written here (``class HashTable: def __setitem__ ...``)."""
    klass = enclosing_class(site.scope)
    if klass is None:
        return False
    if {singular(w) for w in name_words(klass.node.name.value)} & T.MAPPING_CLASS_WORDS:
        return True
    return any(
        fn.is_method and fn.parent_scope is klass and fn.name in T.MAPPING_METHODS
        for fn in ctx.index.functions.values()
    )


class _Walker:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    def destination(self, expr, place: Place, state: str, depth: int, file_shaped: bool = False) -> Optional[str]:
        """Where ``expr`` (holding the hash) goes: what it decides, or None (nothing kept)."""
        ctx = self.ctx
        body = scope_body(ctx, place)
        current = expr
        while True:
            parent = body.parents.get(id(current))
            if parent is None:
                fn = place.fn
                if fn is not None and isinstance(fn.node, cst.Lambda) and current is fn.node.body:
                    return self._lambda_result(fn, state, depth, file_shaped)
                return None
            if isinstance(parent, cst.Call):
                found = self._call(parent, current, place, state)
                if found is _QUIET:
                    return None
                if found is _LEAVES:
                    return self._ends(state, file_shaped)
                if isinstance(found, str):
                    return found
                state = found[0]
                file_shaped = file_shaped or found[1]
                current = parent
                continue
            if isinstance(parent, cst.BinaryOperation):
                step = _operation(parent, current, state)
                if step is None:
                    return None
                if step == FILE:
                    return FILE
                state, shaped = step
                file_shaped = file_shaped or shaped
                current = parent
                continue
            if isinstance(parent, cst.UnaryOperation):
                if isinstance(parent.operator, cst.Not):
                    return None
                current = parent
                continue
            if isinstance(parent, cst.FormattedStringExpression):
                current = parent
                continue
            if isinstance(parent, cst.FormattedString):
                if self._unique_by_design(parent.parts, place):
                    return None
                file_shaped = file_shaped or _file_shaped_around(parent, current)
                state = _NAMED
                current = parent
                continue
            if isinstance(parent, (cst.ListComp, cst.GeneratorExp)) and parent.elt is current:
                current = parent  # ``[hash(w) % n for w in words]``: a list of them
                continue
            if isinstance(parent, cst.DictComp) and parent.value is current:
                current = parent
                continue
            if isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List, cst.BooleanOperation)):
                current = parent
                continue
            if isinstance(parent, cst.IfExp):
                if parent.test is current:
                    return None
                current = parent
                continue
            if isinstance(parent, cst.ComparisonTarget):
                return self._compared(parent, body.parents.get(id(parent)), current, state)
            if isinstance(parent, cst.Comparison):
                return self._compared(parent.comparisons[0], parent, current, state)
            if isinstance(parent, (cst.If, cst.While, cst.Assert)):
                return SPLIT if state == _REDUCED and parent.test is current else None
            if isinstance(parent, cst.Index):
                holder = body.parents.get(id(body.parents.get(id(parent))))
                if isinstance(holder, cst.Subscript):
                    return self._indexes(holder, state)
                return None
            if isinstance(parent, (cst.Assign, cst.AnnAssign)):
                return self._assigned(parent, place, state, depth, file_shaped)
            if isinstance(parent, cst.Return):
                return self._returned(place, state, depth, file_shaped)
            if isinstance(parent, cst.Arg):  # not in scope bodies (an argument's parent is its call)
                current = parent
                continue
            # Thrown away (``hash(x)``), a dict display, a set, yield, augmented assignment...
            return None

    # -- steps

    def _call(self, call, argument, place: Place, state: str):
        """The hash (or what holds it) passed to ``call``: a verdict, ``_QUIET`` (decides nothing),
        ``_LEAVES`` (goes where we do not follow), or (state, file_shaped) to follow on with the
        call's value."""
        ctx = self.ctx
        site = self.ctx.site_of(call)
        if site is None:
            return _LEAVES
        if call.func is argument or is_log_call(call, site):
            return _QUIET
        if any(a.keyword is argument for a in call.args):
            return _QUIET
        if _seed_argument(ctx, site) is argument:
            return _QUIET  # the seed of a seeding call or RNG constructor: DET105 reports it
        keyword = next((a.keyword.value for a in call.args if a.value is argument and a.keyword is not None), None)
        if keyword in T.SEED_KEYWORDS:
            return SEED
        name = builtin_name(call, site)
        if name in ("abs", "int"):
            return (_REDUCED if name == "abs" else state, False)
        if name in ("str", "hex", "oct", "bin", "format", "repr"):
            return (_NAMED, False)
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("format", "join"):
            if self._unique_by_design(call.args, place):
                return _QUIET
            return (_NAMED, is_string(func.value) and _file_shaped(_string_text(func.value)))
        if state == _NAMED and (name == "open" or self._takes_path(call, site)):
            return FILE
        return _LEAVES  # passed on to code we do not follow

    def _unique_by_design(self, parts, place: Place) -> bool:
        """``f"{time.time()}-{os.getpid()}-{hash(name)}.json"``: a name meant to differ every run
        (it holds the clock, the pid, a uuid), whatever the hash adds."""
        for part in parts:
            if isinstance(part, cst.FormattedStringText):
                continue
            stack = [part.expression if isinstance(part, cst.FormattedStringExpression) else part.value]
            while stack:
                node = stack.pop()
                if isinstance(node, cst.Call):
                    name = self.ctx.resolver.resolve(node.func, place.scope, place.order) or ""
                    if name.startswith(ENTROPY_PREFIXES) or name in ENTROPY_CALLS:
                        return True
                stack.extend(code_children(node))
        return False

    def _takes_path(self, call, site) -> bool:
        qualname = self.ctx.qualname(site) or ""
        if qualname in T.PATH_CALLS:
            return True
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value in T.PATH_METHODS

    @staticmethod
    def _ends(state: str, file_shaped: bool) -> Optional[str]:
        """The value leaves what we follow (an unknown call, a caller elsewhere, an attribute read
        elsewhere): a hash reduced to a bucket or id is kept for what it decides; a name shaped
        like a file is one."""
        if state == _REDUCED:
            return IDENTIFIER
        if state == _NAMED and file_shaped:
            return FILE
        return None

    def _compared(self, target, comparison, current, state: str) -> Optional[str]:
        if isinstance(target.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)):
            return None
        if comparison is None:
            return None
        operands = [comparison.left] + [t.comparator for t in comparison.comparisons]
        if any(_is_hash_call(o) for o in operands if o is not current):
            return None  # ``hash(a) == hash(b)``: the same process on both sides
        ordering = isinstance(target.operator, (cst.LessThan, cst.LessThanEqual, cst.GreaterThan,
                                                cst.GreaterThanEqual))
        return SPLIT if state == _REDUCED or (state == _RAW and ordering) else None

    @staticmethod
    def _indexes(subscript, state: str) -> Optional[str]:
        """``shards[hash(name) % n]``: a bucket; ``cache[hash(x)]``, ``self._cache[hash(t) % size]``:
        a slot of an in-memory cache."""
        if state != _REDUCED:
            return None
        container = dotted_name(subscript.value).rsplit(".", 1)[-1]
        return None if {singular(w) for w in name_words(container)} & T.MEMORY_WORDS else SPLIT

    def _assigned(self, statement, place: Place, state: str, depth: int, file_shaped: bool) -> Optional[str]:
        targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
        if len(targets) != 1:
            return self._ends(state, file_shaped)
        target = targets[0]
        if isinstance(target, cst.Name):
            if state != _NAMED and "seed" in {singular(w) for w in name_words(target.value)} \
                    and not self._seeds_a_seeding_call(target.value, place):
                return SEED  # ``param_seed = base + hash(name) % 10000``
            if depth >= FOLLOW_DEPTH:
                return self._ends(state, file_shaped)
            return self._variable(target.value, statement, place, state, depth, file_shaped)
        attribute = self_attribute(target)
        if attribute and depth < FOLLOW_DEPTH:
            return self._attribute(attribute, place, state, depth, file_shaped)
        if isinstance(target, cst.Subscript):
            # ``split_of[name] = hash(name) % 10``: a bucket kept per entry; a raw hash or name kept as
            # a value of an in-memory dict decides nothing we can see.
            return SPLIT if state == _REDUCED else None
        return self._ends(state, file_shaped)

    def _seeds_a_seeding_call(self, name: str, place: Place) -> bool:
        """The variable is the seed of a seeding call in the same body: DET105 reports that."""
        for site in self.ctx.index.calls:
            if site.fn is place.fn:
                seed = _seed_argument(self.ctx, site)
                if isinstance(seed, cst.Name) and seed.value == name:
                    return True
        return False

    def _variable(self, name: str, statement, place: Place, state: str, depth: int, file_shaped: bool):
        body = scope_body(self.ctx, place)
        start = body.position.get(id(statement))
        if start is None:
            return self._ends(state, file_shaped)
        for node in body.nodes[start + 1:]:
            if not isinstance(node, cst.Name) or node.value != name or body.inside(node, statement):
                continue
            parent = body.parents.get(id(node))
            if parent is None or isinstance(parent, (cst.AssignTarget, cst.Param)):
                continue
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                continue  # ``obj.h``: an attribute of that name
            found = self.destination(node, place, state, depth + 1, file_shaped)
            if found is not None:
                return found
        return None  # read nowhere here (or only where it decides nothing)

    def _attribute(self, attribute: str, place: Place, state: str, depth: int, file_shaped: bool):
        """``self._hash = ...``: where the class's methods read it."""
        klass = enclosing_class(place.scope)
        if klass is None:
            return self._ends(state, file_shaped)
        read = False
        for fn in self.ctx.index.functions.values():
            if not fn.is_method or fn.parent_scope is not klass:
                continue
            method = Place(fn, fn.scope, 1 << 30)
            body = scope_body(self.ctx, method)
            for node in body.nodes:
                if self_attribute(node) != attribute:
                    continue
                parent = body.parents.get(id(node))
                if isinstance(parent, cst.AssignTarget):
                    continue
                read = True
                found = self.destination(node, method, state, depth + 1, file_shaped)
                if found is not None:
                    return found
        return None if read else self._ends(state, file_shaped)

    def _returned(self, place: Place, state: str, depth: int, file_shaped: bool) -> Optional[str]:
        fn = place.fn
        if fn is None:
            return None
        if self._sort_key_function(fn):
            return SORT
        callers = self.ctx.facts.callers.get(id(fn.node))
        if callers and depth < FOLLOW_DEPTH:
            for caller in callers:
                found = self.destination(caller.node, Place.of(caller), state, depth + 1, file_shaped)
                if found is not None:
                    return found
            return None
        if state == _NAMED and name_words(fn.name) & T.PATH_WORDS:
            # ``def cache_name(self): return f"{self.root}_{hash(key)}"``: a name kept
            return FILE if file_shaped else IDENTIFIER
        return self._ends(state, file_shaped)

    def _lambda_result(self, fn, state: str, depth: int, file_shaped: bool) -> Optional[str]:
        outside = Place.outside(fn)
        body = scope_body(self.ctx, outside)
        parent = body.parents.get(id(fn.node))
        if isinstance(parent, cst.Call):
            keyword = next((a.keyword.value for a in parent.args if a.value is fn.node and a.keyword), None)
            if keyword == "key" and callee_is_sorting(parent):
                return SORT
        return None

    def _sort_key_function(self, fn) -> bool:
        """``def by_hash(s): return hash(s)`` passed as ``key=by_hash`` here."""
        for site in self.ctx.index.calls:
            if not callee_is_sorting(site.node):
                continue
            for arg in site.node.args:
                if arg.keyword is not None and arg.keyword.value == "key" and isinstance(arg.value, cst.Name):
                    binding = lookup(site.scope, arg.value.value, site.order)
                    if binding is not None and binding.node is fn.node:
                        return True
        return False


def _seed_argument(ctx: FileContext, site: CallSite):
    """The seed a seeding call or RNG constructor takes (DET105's reading of its arguments)."""
    return seed_argument(ctx, site, ctx.qualname(site))


def _operation(operation, operand, state: str):
    """One arithmetic step: (state, file_shaped), FILE, or None."""
    operator = operation.operator
    other = operation.right if operation.left is operand else operation.left
    if isinstance(operator, cst.Modulo) and operation.right is operand and is_string(operation.left):
        return _NAMED, _file_shaped(_string_text(operation.left))  # ``"%d.pkl" % h``
    if state == _NAMED:
        if isinstance(operator, cst.Divide):
            return FILE  # ``cache_dir / name``: a path
        if isinstance(operator, cst.Add):
            return _NAMED, is_string(other) and _file_shaped(_string_text(other))
        return None
    if isinstance(operator, cst.Add) and is_string(other):
        return None  # ``"x" + hash(...)``: a TypeError, not a result
    if isinstance(operator, (cst.Modulo, cst.FloorDivide, cst.BitAnd, cst.RightShift)) and operation.left is operand:
        return _REDUCED, False
    return state, False


def _is_hash_call(expr) -> bool:
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "abs" and expr.args:
        expr = expr.args[0].value
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "hash"


def _string_text(node) -> str:
    if isinstance(node, cst.SimpleString):
        return node.raw_value
    if isinstance(node, cst.ConcatenatedString):
        return _string_text(node.left) + _string_text(node.right)
    if isinstance(node, cst.FormattedString):
        return "\x00".join(p.value for p in node.parts if isinstance(p, cst.FormattedStringText))
    return ""


def _file_shaped(text: str) -> bool:
    """``"%d.pkl"``, ``"cache/{}"``: literal text shaped like a file name or path."""
    return _FILE_SHAPE.search(text) is not None and not _NOT_A_FILE_NAME.search(text)


def _file_shaped_around(fstring, expression) -> bool:
    """``f"{root}/{h}.pkl"``: the text around the hash's placeholder makes a file name (and the
    string holds nothing a file name would not: spaces, markup, quotes)."""
    parts = list(fstring.parts)
    texts = [p.value for p in parts if isinstance(p, cst.FormattedStringText)]
    if any(_NOT_A_FILE_NAME.search(t) for t in texts):
        return False
    for i, part in enumerate(parts):
        if part is expression:
            before = parts[i - 1] if i > 0 else None
            after = parts[i + 1] if i + 1 < len(parts) else None
            if isinstance(after, cst.FormattedStringText) and _EXTENSION_AFTER.search(after.value):
                return True
            return isinstance(before, cst.FormattedStringText) and bool(_SEPARATOR_BEFORE.search(before.value))
    return False


# -- pre-check (second stage: the text and the ``ast`` tree flake8 built) --
_HASH_CALL = re.compile(r"(?<![\w.])hash\s*\(")


def _hash_outside(tree: ast.Module, text: str, protocol: FrozenSet[str]) -> bool:
    """DET209: a call of ``hash(...)`` (not in a comment) on a line outside the object protocol's
    methods (``__hash__``...), found in the text and placed with the tree's classes only."""
    lines = set()
    for match in _HASH_CALL.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if "#" not in text[start:match.start()]:
            lines.add(text.count("\n", 0, match.start()) + 1)
    if not lines:
        return False
    inside = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            stack.extend(node.body)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in protocol:
            inside.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return not lines <= inside


_HASH_KEY = re.compile(r"\bkey\s*=\s*hash\b")


def _hash_as_key(text: str) -> bool:
    """DET209: ``sorted(names, key=hash)``."""
    return _HASH_KEY.search(text) is not None
