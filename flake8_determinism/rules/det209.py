from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator, Optional

from .._lazy import cst
from ..analysis.args import literal
from ..analysis.body import scope_body
from ..analysis.flow import builtin_name, is_log_call
from ..analysis.nodes import code_children, dotted_name, named_parameters, self_attribute
from ..analysis.scopes import enclosing_class, lookup
from ..tables import data_order as T
from ..tables.seeding import ENTROPY_CALLS, ENTROPY_PREFIXES
from .base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

# What the argument of ``hash()`` is.
TEXT = "a str"
TEXT_TUPLE = "a tuple holding a str"
MAYBE_TEXT = "a value that may be a str"
NUMBER = "number"  # hashed to itself: the same in every process
OBJECT = "object"  # hashed by identity or its own __hash__: not this rule's (RULES.md DET209)

# What the hash decides (the ends of its way through the code).
SPLIT = "the split or bucket it picks changes every run"
FILE = "the file name made from it changes every run (what one run caches, the next never finds)"
SORT = "the order it sorts into changes every run"
SEED = "the seed made from it changes every run"
IDENTIFIER = "the value made from it (an id, a bucket, a feature, a name) changes every run"

# How far the value is followed: through variables, returns to callers, attributes.
_DEPTH = 3
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
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


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
    or a seed (``random.seed(hash(name))``, ``seed=hash(...)``).  The value is
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
                decided = walker.destination(call, _Place.of(site), _RAW, 0)
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
                items = _sorted_items(call)
                what = element_kind(ctx, items, site.scope, site.order) if items is not None else MAYBE_TEXT
                if what == TEXT:  # objects sorted by hash: some fixed order within the process
                    yield Report(value, _message(what, SORT))


def _message(what: str, decided: str) -> str:
    return (
        "hash() of %s decides a result, but str/bytes hashes are salted per process (PYTHONHASHSEED): %s"
        " — use a stable hash (zlib.crc32(s.encode()), hashlib.md5)" % (what, decided)
    )


def _sorted_items(call) -> Optional[cst.CSTNode]:
    """What ``sorted(items, key=hash)`` / ``items.sort(key=hash)`` orders."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "sort":
        return call.func.value
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    return positional[0] if positional else None


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
    if {_singular(w) for w in name_words(klass.node.name.value)} & T.MAPPING_CLASS_WORDS:
        return True
    return any(
        fn.is_method and fn.parent_scope is klass and fn.name in T.MAPPING_METHODS
        for fn in ctx.index.functions.values()
    )


# ---------------------------------------------------------------- what is hashed


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 and not word.endswith("ss") else word


def name_words(name: str) -> set:
    return {w.lower() for w in _WORDS.findall(name)}


def _kind_of_name(name: str) -> Optional[str]:
    words = {_singular(w) for w in name_words(name)}
    if not words:
        return None
    last = _singular(_WORDS.findall(name)[-1].lower())
    if last in T.NUMBER_WORDS or (len(words) == 1 and words & T.NUMBER_WORDS):
        return NUMBER
    if last in T.OBJECT_WORDS:
        return OBJECT
    return None


def argument_kind(ctx: FileContext, expr, scope, order: int, depth: int = 0) -> str:
    """TEXT / TEXT_TUPLE / MAYBE_TEXT / NUMBER / OBJECT for an expression given to ``hash()``."""
    if depth > 2 * _DEPTH + 4:
        return MAYBE_TEXT  # a long chain of operations: stop looking
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return TEXT
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
        return NUMBER
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        kinds = [argument_kind(ctx, e.value, scope, order, depth + 1) for e in expr.elements]
        return _tuple_kind(kinds)
    if isinstance(expr, cst.UnaryOperation):
        return NUMBER  # ``-x``, ``not x``
    if isinstance(expr, cst.BinaryOperation):
        left = argument_kind(ctx, expr.left, scope, order, depth + 1)
        right = argument_kind(ctx, expr.right, scope, order, depth + 1)
        if TEXT in (left, right) or (isinstance(expr.operator, cst.Modulo) and _is_string(expr.left)):
            return TEXT
        if left == right == NUMBER:
            return NUMBER
        return MAYBE_TEXT
    if isinstance(expr, cst.Comparison) or isinstance(expr, cst.BooleanOperation):
        return NUMBER if isinstance(expr, cst.Comparison) else MAYBE_TEXT
    if isinstance(expr, cst.Call):
        return _call_kind(ctx, expr, scope, order, depth)
    if isinstance(expr, cst.Subscript):
        return _subscript_kind(ctx, expr, scope, order, depth)
    if isinstance(expr, cst.Name):
        return _name_kind(ctx, expr.value, scope, order, depth)
    if isinstance(expr, cst.Attribute):
        return _attribute_kind(ctx, expr, scope, order, depth)
    if isinstance(expr, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp, cst.Dict)):
        return OBJECT  # hashed by identity (or unhashable)
    return MAYBE_TEXT


def _tuple_kind(kinds) -> str:
    if any(k in (TEXT, TEXT_TUPLE) for k in kinds):
        return TEXT_TUPLE
    if all(k == NUMBER for k in kinds):
        return NUMBER  # also ``()``
    if all(k in (NUMBER, OBJECT) for k in kinds):
        return OBJECT
    return MAYBE_TEXT


def _is_string(expr) -> bool:
    return isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def _call_kind(ctx: FileContext, call, scope, order: int, depth: int) -> str:
    func = call.func
    if isinstance(func, cst.Name) and lookup(scope, func.value, order) is None:
        name = func.value
        if name in T.TEXT_BUILTINS:
            return TEXT
        if name in T.NUMBER_BUILTINS:
            return NUMBER
        if name in ("tuple", "frozenset") and call.args:
            return _tuple_kind([element_kind(ctx, call.args[0].value, scope, order, depth + 1)])
        return MAYBE_TEXT
    qualname = ctx.resolver.resolve(func, scope, order)
    if qualname in T.TEXT_CALLS:
        return TEXT
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        if method in T.TEXT_METHODS:
            return TEXT
        if method in T.NUMBER_METHODS:
            return NUMBER
    if isinstance(func, cst.Name):
        binding = lookup(scope, func.value, order)
        if binding is not None and binding.kind == "class":
            return OBJECT  # an instance of a class defined here
    return MAYBE_TEXT


def _subscript_kind(ctx: FileContext, expr, scope, order: int, depth: int) -> str:
    """``row['conversation_id']``: the key's name says; ``x.shape[0]``: a number."""
    value = expr.value
    if isinstance(value, cst.Attribute) and value.attr.value in ("shape", "stride"):
        return NUMBER
    if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        index = expr.slice[0].slice.value
        ok, key = literal(index)
        if ok and isinstance(key, str):
            return _kind_of_name(key) or MAYBE_TEXT
        if isinstance(index, cst.Slice):
            return MAYBE_TEXT
    container = argument_kind(ctx, value, scope, order, depth + 1) if depth < _DEPTH else MAYBE_TEXT
    return TEXT if container == TEXT else MAYBE_TEXT


def _name_kind(ctx: FileContext, name: str, scope, order: int, depth: int) -> str:
    if name in ("True", "False", "None"):
        return NUMBER
    binding = lookup(scope, name, order)
    if binding is not None and depth < _DEPTH:
        if binding.kind in ("def", "class", "import"):
            return OBJECT
        if binding.kind == "assign" and binding.value is not None:
            found = argument_kind(ctx, binding.value, binding.scope, binding.order, depth + 1)
            if found != MAYBE_TEXT:
                return found
        elif binding.kind == "assign":
            found = _loop_variable_kind(ctx, binding, depth)
            if found is not None:
                return found
        elif binding.kind == "param":
            found = _parameter_kind(ctx, binding, depth)
            if found is not None:
                return found
    return _kind_of_name(name) or MAYBE_TEXT


def _annotation_kind(annotation) -> Optional[str]:
    names = {n.value for n in _names(annotation)}
    if names & T.TEXT_ANNOTATIONS:
        return TEXT_TUPLE if names & {"Tuple", "tuple", "List", "list", "FrozenSet", "frozenset"} else TEXT
    if names and names <= T.NUMBER_ANNOTATIONS | {"Optional", "Tuple", "tuple", "None"}:
        return NUMBER
    return None


def _names(node):
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            yield current
        elif isinstance(current, cst.Attribute):
            yield current.attr
        else:
            stack.extend(code_children(current))


def _parameter_kind(ctx: FileContext, binding, depth: int) -> Optional[str]:
    """An annotated parameter, one with a literal default, a lambda's ``key=`` parameter."""
    if binding.value is not None:
        found = _annotation_kind(binding.value.annotation)
        if found is not None:
            return found
    fn = binding.scope.function
    if fn is None:
        return None
    for param in named_parameters(fn.node.params):
        if param.name.value == binding.name and param.default is not None:
            ok, value = literal(param.default)
            if ok and isinstance(value, (str, bytes)):
                return TEXT
            if ok and isinstance(value, (int, float)) and not isinstance(value, bool):
                return NUMBER
    if isinstance(fn.node, cst.Lambda):
        # ``sorted(names, key=lambda s: hash(s))``: an element of what is sorted.
        parent = ctx.index.parents.get(id(fn.node)) or scope_body(ctx, _Place.outside(fn)).parents.get(id(fn.node))
        if isinstance(parent, cst.Call) and callee_is_sorting(parent):
            items = _sorted_items(parent)
            if items is not None:
                return element_kind(ctx, items, fn.parent_scope, 1 << 30, depth + 1)
    return None


def callee_is_sorting(call) -> bool:
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in T.SORTING_BY_KEY


def _loop_variable_kind(ctx: FileContext, binding, depth: int) -> Optional[str]:
    """``for name in os.listdir(root):`` -- an element of what the loop goes over."""
    for loop, scope, _, order in ctx.index.loops:
        target = loop.target
        if target is binding.node:
            return element_kind(ctx, loop.iter, scope, order, depth + 1)
        if isinstance(target, cst.Tuple) and any(e.value is binding.node for e in target.elements):
            iterable = loop.iter
            if isinstance(iterable, cst.Call) and dotted_name(iterable.func) == "enumerate":
                if target.elements[0].value is binding.node:
                    return NUMBER
                if iterable.args:
                    return element_kind(ctx, iterable.args[0].value, scope, order, depth + 1)
            return None
    return None


def element_kind(ctx: FileContext, items, scope, order: int, depth: int = 0) -> str:
    """What the elements of ``items`` are."""
    if isinstance(items, (cst.List, cst.Tuple, cst.Set)):
        kinds = [argument_kind(ctx, e.value, scope, order, depth + 1) for e in items.elements]
        if kinds and all(k == NUMBER for k in kinds):
            return NUMBER
        if any(k in (TEXT, TEXT_TUPLE) for k in kinds):
            return TEXT
        return MAYBE_TEXT
    if isinstance(items, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        found = argument_kind(ctx, items.elt, scope, order, depth + 1)
        return TEXT if found in (TEXT, TEXT_TUPLE) else found
    if isinstance(items, cst.Call):
        func = items.func
        if isinstance(func, cst.Name) and lookup(scope, func.value, order) is None:
            if func.value == "range":
                return NUMBER
            if func.value in ("sorted", "list", "set", "tuple", "reversed", "frozenset") and items.args:
                return element_kind(ctx, items.args[0].value, scope, order, depth + 1)
        qualname = ctx.resolver.resolve(func, scope, order) or ""
        if qualname in T.LISTINGS:
            return TEXT
        if isinstance(func, cst.Attribute) and func.attr.value in ("split", "splitlines", "readlines", "keys",
                                                                   "glob", "rglob", "iterdir"):
            return TEXT
        if isinstance(func, cst.Attribute) and func.attr.value == "tolist":
            return NUMBER
    if isinstance(items, cst.Name) and depth < _DEPTH:
        binding = lookup(scope, items.value, order)
        if binding is not None and binding.kind == "assign" and binding.value is not None:
            return element_kind(ctx, binding.value, binding.scope, binding.order, depth + 1)
        if binding is not None and binding.kind == "param" and binding.value is not None:
            found = _annotation_kind(binding.value.annotation)  # ``texts: List[str]``
            if found is not None:
                return TEXT if found in (TEXT, TEXT_TUPLE) else found
        found = _kind_of_name(items.value)
        if found is not None:
            return found
    return MAYBE_TEXT


def _attribute_kind(ctx: FileContext, expr, scope, order: int, depth: int) -> str:
    """``self.name``: what the class assigns it (``self._hash_key = hash_key``), else its name."""
    attribute = expr.attr.value
    if attribute in ("shape",):
        return NUMBER
    if self_attribute(expr) and depth < _DEPTH:
        klass = enclosing_class(scope)
        kinds = []
        for assignment in ctx.index.assignments:
            if self_attribute(assignment.target) != attribute or assignment.value is None:
                continue
            if enclosing_class(assignment.scope) is not klass:
                continue
            kinds.append(argument_kind(ctx, assignment.value, assignment.scope, assignment.order, depth + 1))
        if kinds and all(k == kinds[0] for k in kinds) and kinds[0] != MAYBE_TEXT:
            return kinds[0]
    return _kind_of_name(attribute) or MAYBE_TEXT


# ---------------------------------------------------------------- what the hash decides


class _Place:
    """A body the value is followed in: the function (or module) and its scope, placed as
    ``scope_body`` and ``lookup`` expect a site."""

    __slots__ = ("fn", "scope", "order")

    def __init__(self, fn, scope, order: int) -> None:
        self.fn, self.scope, self.order = fn, scope, order

    @classmethod
    def of(cls, site) -> "_Place":
        return cls(site.fn, site.scope, site.order)

    @classmethod
    def outside(cls, fn) -> "_Place":
        """The body a function (or lambda) is defined in."""
        scope = fn.parent_scope
        while scope.kind in ("comprehension", "class") and scope.parent is not None:
            scope = scope.parent
        return cls(scope.function if scope.kind == "function" else None, scope, 1 << 30)


class _Walker:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.sites = {id(site.node): site for site in ctx.index.calls}

    def destination(self, expr, place: _Place, state: str, depth: int, file_shaped: bool = False) -> Optional[str]:
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

    def _call(self, call, argument, place: _Place, state: str):
        """The hash (or what holds it) passed to ``call``: a verdict, ``_QUIET`` (decides nothing),
        ``_LEAVES`` (goes where we do not follow), or (state, file_shaped) to follow on with the
        call's value."""
        ctx = self.ctx
        site = self.sites.get(id(call))
        if site is None:
            return _LEAVES
        if call.func is argument or is_log_call(call, site):
            return _QUIET
        if any(a.keyword is argument for a in call.args):
            return _QUIET
        keyword = next((a.keyword.value for a in call.args if a.value is argument and a.keyword is not None), None)
        if keyword in T.SEED_KEYWORDS:
            return SEED
        if _seed_argument(ctx, site) is argument:
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
            return (_NAMED, _is_string(func.value) and _file_shaped(_string_text(func.value)))
        if state == _NAMED and (name == "open" or self._takes_path(call, site)):
            return FILE
        return _LEAVES  # passed on to code we do not follow

    def _unique_by_design(self, parts, place: _Place) -> bool:
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
        return None if {_singular(w) for w in name_words(container)} & T.MEMORY_WORDS else SPLIT

    def _assigned(self, statement, place: _Place, state: str, depth: int, file_shaped: bool) -> Optional[str]:
        targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
        if len(targets) != 1:
            return self._ends(state, file_shaped)
        target = targets[0]
        if isinstance(target, cst.Name):
            if state != _NAMED and "seed" in {_singular(w) for w in name_words(target.value)}:
                return SEED  # ``param_seed = base + hash(name) % 10000``
            if depth >= _DEPTH:
                return self._ends(state, file_shaped)
            return self._variable(target.value, statement, place, state, depth, file_shaped)
        attribute = self_attribute(target)
        if attribute and depth < _DEPTH:
            return self._attribute(attribute, place, state, depth, file_shaped)
        if isinstance(target, cst.Subscript):
            # ``split_of[name] = hash(name) % 10``: a bucket kept per entry; a raw hash or name kept as
            # a value of an in-memory dict decides nothing we can see.
            return SPLIT if state == _REDUCED else None
        return self._ends(state, file_shaped)

    def _variable(self, name: str, statement, place: _Place, state: str, depth: int, file_shaped: bool):
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

    def _attribute(self, attribute: str, place: _Place, state: str, depth: int, file_shaped: bool):
        """``self._hash = ...``: where the class's methods read it."""
        klass = enclosing_class(place.scope)
        if klass is None:
            return self._ends(state, file_shaped)
        read = False
        for fn in self.ctx.index.functions.values():
            if not fn.is_method or fn.parent_scope is not klass:
                continue
            method = _Place(fn, fn.scope, 1 << 30)
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

    def _returned(self, place: _Place, state: str, depth: int, file_shaped: bool) -> Optional[str]:
        fn = place.fn
        if fn is None:
            return None
        if self._sort_key_function(fn):
            return SORT
        callers = self.ctx.facts.callers.get(id(fn.node))
        if callers and depth < _DEPTH:
            for caller in callers:
                found = self.destination(caller.node, _Place.of(caller), state, depth + 1, file_shaped)
                if found is not None:
                    return found
            return None
        if state == _NAMED and name_words(fn.name) & T.PATH_WORDS:
            # ``def cache_name(self): return f"{self.root}_{hash(key)}"``: a name kept
            return FILE if file_shaped else IDENTIFIER
        return self._ends(state, file_shaped)

    def _lambda_result(self, fn, state: str, depth: int, file_shaped: bool) -> Optional[str]:
        outside = _Place.outside(fn)
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
    from .det105 import NonReproducibleSeed

    return NonReproducibleSeed._seed_argument(ctx, site, ctx.qualname(site))


def _operation(operation, operand, state: str):
    """One arithmetic step: (state, file_shaped), FILE, or None."""
    operator = operation.operator
    other = operation.right if operation.left is operand else operation.left
    if isinstance(operator, cst.Modulo) and operation.right is operand and _is_string(operation.left):
        return _NAMED, _file_shaped(_string_text(operation.left))  # ``"%d.pkl" % h``
    if state == _NAMED:
        if isinstance(operator, cst.Divide):
            return FILE  # ``cache_dir / name``: a path
        if isinstance(operator, cst.Add):
            return _NAMED, _is_string(other) and _file_shaped(_string_text(other))
        return None
    if isinstance(operator, cst.Add) and _is_string(other):
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
