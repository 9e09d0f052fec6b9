"""Arguments and literals read off an ``ast`` call, for the project summaries (``summary.py``)."""

import ast
from typing import Optional, Tuple

from ...tables.data_order import HF_DATASETS_ROOT
from .. import calls as C
from .. import kernels as K
from ..calls import literal_flag
from ..ast_names import dotted


def is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def keyword_value(call: ast.Call, name: str):
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def has_double_star(call: ast.Call) -> bool:
    return any(keyword.arg is None for keyword in call.keywords)


def argument(call: ast.Call, name: str, position: Optional[int]):
    found = keyword_value(call, name)
    if found is None and position is not None and len(call.args) > position:
        found = call.args[position]
        if isinstance(found, ast.Starred):
            return None
    return found


def literal(node) -> Tuple[bool, object]:
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant) and isinstance(node.op, ast.USub):
        return True, -node.operand.value if isinstance(node.operand.value, (int, float)) else None
    return False, None


def arg_of(node, depth: int = 0) -> C.Arg:
    """An argument as plain values (``analysis/calls.py``)."""
    known, value = literal(node)
    if known:
        return C.Arg(True, value)
    return C.Arg(False, None, dotted(node), _entries(node, depth) if depth < 2 else None)


def _entries(node, depth: int):
    """The entries of a ``{"k": v}`` display or a ``dict(k=v)`` call; None when not one, or when
    a key is not a literal string."""
    if isinstance(node, ast.Dict):
        if any(not (isinstance(k, ast.Constant) and isinstance(k.value, str)) for k in node.keys):
            return None  # ``**other`` has no key
        return tuple((k.value, arg_of(v, depth + 1)) for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        if node.args or any(k.arg is None for k in node.keywords):
            return None
        return tuple((k.arg, arg_of(k.value, depth + 1)) for k in node.keywords)
    return None


def signature(call: ast.Call) -> dict:
    """What a call passes (``events.Call``'s fields): how many positional arguments, which
    keywords, which of them are a literal ``False``, ``None`` or ``0`` (keyword names, ``"#i"``
    for the i-th positional), the string literals it passes ((name, value) pairs); ``-1`` and
    ``("**",)``: unknown."""
    positional = -1 if any(isinstance(a, ast.Starred) for a in call.args) else len(call.args)
    keywords = tuple("**" if k.arg is None else k.arg for k in call.keywords)
    off = tuple("#%d" % i for i, a in enumerate(call.args) if is_off(a))
    off += tuple(k.arg for k in call.keywords if k.arg is not None and is_off(k.value))
    return {"positional": positional, "keywords": keywords, "off": off, "texts": texts(call), "known": True}


def texts(call: ast.Call) -> tuple:
    """The literals a call passes, strings as they are, other constants as ``calls.FALSE_LITERAL``/``TRUE_LITERAL``:
    ((keyword or ``"#i"``, value), ...)."""
    found = tuple(("#%d" % i, value) for i, value in enumerate(map(_literal, call.args)) if value is not None)
    return found + tuple((k.arg, value) for k, value in ((k, _literal(k.value)) for k in call.keywords)
                         if k.arg is not None and value is not None)


def _literal(node) -> Optional[str]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        node = node.operand  # ``-1``: a number, as libcst's ``literal`` reads it
    if not isinstance(node, ast.Constant):
        return None
    return node.value if isinstance(node.value, str) else literal_flag(node.value)


def text_defaults(args: ast.arguments) -> dict:
    """{parameter: default} for the parameters whose default is a literal (as ``texts`` spells it)."""
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None]
    found = ((arg.arg, _literal(default)) for arg, default in pairs)
    return {name: value for name, value in found if value is not None}


def is_off(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in (False, None, 0) and not isinstance(node.value, str)


def truthy(node) -> bool:
    if node is None:
        return False
    known, value = literal(node)
    return bool(value) if known else True


def literal_path(node) -> Optional[str]:
    """``"../lib"``, or ``os.path.dirname(...(__file__))`` nested k times: ``"@k"`` (k-1
    levels above the module's own directory); ``os.path.join(<that>, "x")``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    depth = 0
    current = node
    while isinstance(current, ast.Call) and dotted(current.func) in (
        "os.path.dirname", "os.path.abspath", "os.path.realpath", "path.dirname", "osp.dirname", "osp.abspath",
    ) and current.args:
        if dotted(current.func).endswith("dirname"):
            depth += 1
        current = current.args[0]
    if isinstance(current, ast.Name) and current.id == "__file__" and depth:
        return "@%d" % depth
    if isinstance(node, ast.Call) and dotted(node.func) in ("os.path.join", "osp.join") and len(node.args) == 2:
        base, tail = literal_path(node.args[0]), node.args[1]
        if base and base.startswith("@") and isinstance(tail, ast.Constant) and isinstance(tail.value, str):
            return base + "/" + tail.value
    return None


def call_of(call: ast.Call, name: Optional[str], resolve) -> C.Call:
    """The ``ast`` front end to ``analysis/calls.py``: ``call`` as plain values; ``name`` is its
    qualified name (or None), ``resolve(expr)`` an expression's where the call is."""
    func = call.func
    is_method = isinstance(func, ast.Attribute)
    method = func.attr if is_method else (func.id if isinstance(func, ast.Name) else "")
    receiver = receiver_name = ""
    if is_method:
        receiver = dotted(func.value)
        if method in C.RECEIVER_METHODS:
            receiver_name = resolve(func.value) or ""
    args = tuple(C.STARRED if isinstance(a, ast.Starred) else arg_of(a) for a in call.args)
    keywords = tuple((k.arg or "**", C.UNKNOWN_ARG if k.arg is None else arg_of(k.value)) for k in call.keywords)
    return C.Call(name or "", method, is_method, receiver, receiver_name, args, keywords)


def split_of_hf_dataset(func, resolve) -> Optional[str]:
    """``ds["train"].train_test_split(...)``: a method of one split of a Hugging Face
    ``DatasetDict`` (``rules/common/shuffles.py`` for libcst)."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript):
        holder = resolve(func.value.value) or ""
        if holder.startswith(HF_DATASETS_ROOT):
            return "%s[].%s" % (holder, func.attr)
    return None


def integer_receiver(call: ast.Call, resolve) -> bool:
    """``torch.tensor([0] + sizes[:-1]).cumsum(0)``, ``idx.long().index_add_(...)``: the receiver is
    seen to hold integers (``kernels.integer_tensor``; ``cuda_ops._integer_receiver`` for libcst)."""
    func = call.func
    receiver = func.value if isinstance(func, ast.Attribute) else None
    if not isinstance(receiver, ast.Call) or func.attr not in K.KERNEL_METHODS:
        return False
    inner = receiver.func
    if isinstance(inner, ast.Attribute) and inner.attr in K.INTEGER_CASTS \
            and not receiver.args and not receiver.keywords:
        return True
    dtype = keyword_value(receiver, "dtype")
    data = receiver.args[0] if receiver.args else keyword_value(receiver, "data")
    return K.integer_tensor(resolve(inner) or "", (resolve(dtype) or "") if dtype is not None else None,
                            data is not None and _integer_literals(data))


def _integer_literals(expr) -> bool:
    """A list of int literals, or one joined to others with ``+`` (``[0] + counts[:-1]``), or one."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _integer_literals(expr.left) or _integer_literals(expr.right)
    if isinstance(expr, ast.Constant):
        return type(expr.value) is int
    if isinstance(expr, (ast.List, ast.Tuple)) and expr.elts:
        return all(isinstance(e, ast.Constant) and type(e.value) is int for e in expr.elts)
    return False


def text_of(node) -> str:
    """The source text of an expression (``ast.unparse``), "" when it cannot be written back."""
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return ""


def fallback_seed_assignment(target, value, test) -> bool:
    """``calls.fallback_seed`` asked of an ``ast`` assignment ``target = value`` (``test``: the
    condition of the ``if`` whose body holds it, or None).  Asked of every assignment of every
    project module: the texts are written back only for a target that names a seed."""
    if not _names_a_seed(target):
        return False
    spelled = text_of(target)
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and value.values:
        return C.fallback_seed(spelled, alternative=text_of(value.values[0]))
    if isinstance(value, ast.IfExp):
        return C.fallback_seed(spelled, test=text_of(value.test))
    return test is not None and C.fallback_seed(spelled, test=text_of(test))


def _names_a_seed(target) -> bool:
    """A name, attribute or string key with "seed" in it (what ``calls.fallback_seed`` requires of
    the target's text), without writing the target back."""
    for node in ast.walk(target):
        word = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else (
            node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else "")
        if "seed" in word.lower():
            return True
    return False
