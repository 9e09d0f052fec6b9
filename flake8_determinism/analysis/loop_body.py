"""Is each iteration of a loop over an unordered collection order-free? (DET206, DET207)

``LoopBody`` reads the statements of the loop's body: per-entry work (a dict entry keyed by
the element, a set addition, a log line, a file operation or an output named after the
entry, a count or a sum, the best one kept) is order-free; lists filled in iteration order
are collected (``appended``, ``appended_attributes``) for ``analysis/flow.py`` to follow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Set

from .._lazy import cst
from ..tables.data_order import (
    CONTENT_WRITERS, FILE_OPERATIONS, OPENERS, ORDER_KEEPING_METHODS, ORDER_KEEPING_PREFIXES, PATH_BUILDERS,
    PATH_WRAPPERS, PER_ENTRY_WRITERS,
)
from .args import literal
from .nodes import dotted_name, self_attribute
from .nodes import names_in
from .order_free import FILLING, is_log_call, orders, set_method_call, sorts_name, uses_position

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from .body import ScopeBody
    from .index import CallSite


class LoopBody:
    """Classifies the statements of a loop over an unordered collection."""

    def __init__(self, loop, targets: Set[str], site: CallSite, body: ScopeBody, per_entry: bool = True) -> None:
        self.loop, self.targets, self.site, self.body = loop, set(targets), site, body
        self.per_entry = per_entry  # a dropped call on the entry is work on that entry alone
        self.appended: Set[str] = set()  # lists filled in iteration order
        self.appended_attributes: Set[str] = set()  # ``self.<name>`` lists filled so
        self.fresh: Set[str] = set()  # names assigned in the body: new in every iteration
        self.handles: Set[str] = set()  # files opened at a path made from the entry
        self.paths: Set[str] = set()  # names holding a path made from the entry

    def walk_sorted(self) -> bool:
        """``for top, dirs, files in os.walk(...)`` that sorts ``dirs`` and ``files``."""
        target = self.loop.target
        if not isinstance(target, cst.Tuple) or len(target.elements) != 3:
            return False
        names = [e.value.value if isinstance(e.value, cst.Name) else "" for e in target.elements]
        sorted_here = set()
        for node in self.body.nodes:
            if isinstance(node, cst.Call) and self.body.inside(node, self.loop.body):
                sorted_here |= {n for n in names[1:] if n and sorts_name(node, n)}
        return bool(names[1]) and set(names[1:]) <= sorted_here

    def order_free(self, block) -> bool:
        statements = getattr(block, "body", block)
        if isinstance(statements, cst.CSTNode):
            statements = [statements]
        return all(self.statement(s) for s in statements)

    def statement(self, stmt) -> bool:
        if isinstance(stmt, cst.SimpleStatementLine):
            return all(self.small(s) for s in stmt.body)
        if isinstance(stmt, cst.If):
            return self.order_free(stmt.body) and (stmt.orelse is None or self.else_branch(stmt.orelse))
        if isinstance(stmt, cst.With):
            for item in stmt.items:  # ``with open(out / f"{name}.json", "w") as fh:`` -- a file per entry
                if item.asname is not None and self._opens_per_entry(item.item):
                    self.handles |= names_in(item.asname.name)
            return self.order_free(stmt.body)
        if isinstance(stmt, cst.Try):
            blocks = [stmt.body] + [h.body for h in stmt.handlers]
            blocks += [b.body for b in (stmt.orelse, stmt.finalbody) if b is not None]
            return all(self.order_free(b) for b in blocks)
        if isinstance(stmt, (cst.For, cst.While)):
            if isinstance(stmt, cst.For):
                self.targets |= names_in(stmt.target)
            return self.order_free(stmt.body) and (stmt.orelse is None or self.order_free(stmt.orelse.body))
        return False

    def else_branch(self, orelse) -> bool:
        if isinstance(orelse, cst.If):
            return self.statement(orelse)
        return self.order_free(orelse.body)

    def small(self, stmt) -> bool:
        if isinstance(stmt, (cst.Pass, cst.Continue, cst.Raise, cst.Assert)):
            return True  # a check that stops on a bad entry, whatever the order: not a result
        if isinstance(stmt, cst.Del):
            return True  # entries removed one by one: the same survivors in any order
        if isinstance(stmt, cst.Return) and (stmt.value is None or literal(stmt.value)[0]):
            return True  # ``return True`` on the first match: an ``any()``
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
            return self.call(stmt.value)
        if isinstance(stmt, cst.Assign):
            return all(self.assignment(t.target, stmt.value) for t in stmt.targets)
        if isinstance(stmt, cst.AnnAssign) and stmt.value is not None:
            return self.assignment(stmt.target, stmt.value)
        if isinstance(stmt, cst.AugAssign):
            if isinstance(stmt.target, (cst.Subscript, cst.Attribute)) \
                    and isinstance(stmt.value, (cst.Integer, cst.Float)) \
                    and isinstance(stmt.operator, (cst.AddAssign, cst.SubtractAssign)):
                return True  # ``ranks[-1] += 1``, ``self.hits += 1``: a count, whatever the order
            if isinstance(stmt.target, cst.Subscript):
                return self.assignment(stmt.target, stmt.value)  # ``best[split] += [row]``: per key
            # ``count += 1``, ``total += size``: a count or sum, whatever the order.
            return isinstance(stmt.target, cst.Name) and not self._read_as_position(stmt.target.value)
        return False  # break, return, yield, del, raise, ...

    def call(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            method, receiver = func.attr.value, func.value.value
            if method == "sort":
                return True
            if method in FILLING:
                self.appended.add(receiver)
                return True
        if isinstance(func, cst.Attribute) and func.attr.value in FILLING and isinstance(func.value, cst.Subscript) \
                and isinstance(func.value.value, cst.Name) and func.value.value.value in self.fresh:
            return True  # ``data["train"].extend(rows)`` into a container this iteration made
        if isinstance(func, cst.Attribute) and func.attr.value in FILLING:
            # ``self.files.append(path)``: a list on the instance, read in the class's other
            # methods; any other container outside the loop keeps the iteration order.
            attribute = self_attribute(func.value)
            if attribute:
                self.appended_attributes.add(attribute)
            return bool(attribute)
        if is_log_call(call, self.site) or set_method_call(call, self.site):
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "discard":
            return True  # only sets have it: the same survivors in any order
        if isinstance(func, cst.Attribute) and self._keyed_by_entry(func.value):
            # ``self.word_map[word].update(...)``: the entry's own value changes, whatever the order.
            container = dotted_name(func.value.value)
            return not any(uses_position(arg.value, container) for arg in call.args)
        spelled = dotted_name(func)
        if spelled in FILE_OPERATIONS or (isinstance(func, cst.Attribute) and func.attr.value in FILE_OPERATIONS):
            return True  # each entry moved, copied, removed on its own
        method = func.attr.value if isinstance(func, cst.Attribute) else spelled.rsplit(".", 1)[-1]
        receiver = dotted_name(func.value) if isinstance(func, cst.Attribute) else ""
        # One output per entry, named after it, whatever the order: ``fh.write(...)`` on a file
        # opened at a path made from the entry, ``json.dump(x, fh)`` into one, ``np.save(path, x)``.
        if method in CONTENT_WRITERS:
            # ``fh.write(...)``, ``json.dump(x, fh)`` into a per-entry file, or a writer given the
            # entry's own path (``wavfile.write(os.path.join(out, name), ...)``).
            return (
                receiver in self.handles
                or any(dotted_name(a.value) in self.handles for a in call.args[1:2])
                # a module's ``write(path, ...)``; a file's ``write`` takes the content only
                or (method == "write" and len(call.args) >= 2 and self._per_entry_path(call.args[0].value))
            )
        if method in PER_ENTRY_WRITERS:
            return any(self._per_entry_path(arg.value) for arg in call.args[:2])
        return self.per_entry and self._processes_the_entry(call, method)

    def _processes_the_entry(self, call: cst.Call, method: str) -> bool:
        """``process(path)``, ``convert(name, out_dir)``, ``pbar.update()``... with the result
        dropped: in default mode a call is work on this entry alone unless it is seen to feed
        state kept across entries in order (training, updating, writing, loading): an unknown
        link is quiet.  Strict mode assumes any call may keep an order."""
        return not (method in ORDER_KEEPING_METHODS or method.startswith(ORDER_KEEPING_PREFIXES))

    def _per_entry_path(self, expr) -> bool:
        """A path built from the entry (``os.path.join(out, name)``, ``f"{out}/{name}.npy"``,
        ``out / name``), or an ``open`` of one: it names one output per entry."""
        if isinstance(expr, cst.Call) and dotted_name(expr.func) in PATH_WRAPPERS and expr.args:
            expr = expr.args[0].value
        if isinstance(expr, cst.Name) and expr.value in self.paths:
            return True
        path_like = isinstance(expr, (cst.FormattedString, cst.BinaryOperation)) or (
            isinstance(expr, cst.Call) and dotted_name(expr.func).rsplit(".", 1)[-1] in PATH_BUILDERS
        )
        return path_like and bool(self.targets & names_in(expr))

    def _opens_per_entry(self, expr) -> bool:
        """``open(path)``, ``codecs.open(path, "w")``, ``io.FileIO(path, "w")``, ``h5py.File(path)``
        at a path made from the entry: a handle on that entry's own file."""
        return (
            isinstance(expr, cst.Call) and bool(expr.args) and expr.args[0].keyword is None
            and dotted_name(expr.func).rsplit(".", 1)[-1] in OPENERS and self._per_entry_path(expr.args[0].value)
        )

    def _keyed_by_entry(self, expr) -> bool:
        """``index[name]``: a subscript keyed by the element (not by its position)."""
        if not isinstance(expr, cst.Subscript) or len(expr.slice) != 1:
            return False
        key = expr.slice[0].slice
        return isinstance(key, cst.Index) and bool(self.targets & names_in(key.value))

    def assignment(self, target, value) -> bool:
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self.assignment(element.value, value) for element in target.elements)
        if isinstance(target, cst.Subscript):
            if isinstance(target.value, cst.Name) and target.value.value in self.fresh:
                return True  # ``example["label"] = 0`` on a record this iteration made
            # ``index[name] = load(name)``: keyed by the element, not by its position.
            return self._keyed_by_entry(target) and not uses_position(value, dotted_name(target.value))
        if isinstance(target, cst.Name):
            if self._per_entry_path(value):
                self.paths.add(target.value)  # ``out_path = os.path.join(out, name)``: a path per entry
            if self._opens_per_entry(value):
                self.handles.add(target.value)  # ``fw = open(os.path.join(out, name), "w")``: a file per entry
            self.targets.add(target.value)  # derived from the element
            self.fresh.add(target.value)
            # A temporary of this iteration; one read after the loop keeps the last
            # element (order!), unless only the best one is kept (``if s > best: best = s``).
            return not self._read_after_loop(target.value) or self._under_comparison(target)
        return False

    def _read_as_position(self, name: str) -> bool:
        """A counter that is also read inside the loop (``out[i] = x; i += 1``): a position."""
        return any(
            isinstance(n, cst.Name) and n.value == name and not isinstance(self.body.parents.get(id(n)), cst.AugAssign)
            for n in self.body.nodes
            if self.body.inside(n, self.loop.body)
        )

    def _read_after_loop(self, name: str) -> bool:
        start = self.body.position.get(id(self.loop), 0)  # reads above the loop see none of it
        rebound_in = []  # later loops that assign the name first: their reads see their own value
        for node in self.body.nodes[start:]:
            if isinstance(node, cst.Name) and node.value == name and not self.body.inside(node, self.loop):
                parent = self.body.parents.get(id(node))
                if isinstance(parent, (cst.AssignTarget, cst.Param)):
                    holder = self._enclosing_block(node)
                    if holder is None:
                        return False  # assigned again unconditionally: the loop's last value is gone
                    rebound_in.append(holder)
                elif not any(self.body.inside(node, holder) for holder in rebound_in):
                    return True
        return False

    def _enclosing_block(self, node):
        """The innermost loop, ``if``, ``try`` or ``with`` around ``node`` in this scope (None:
        straight-line code)."""
        node = self.body.parents.get(id(node))
        while node is not None:
            if isinstance(node, (cst.For, cst.While, cst.If, cst.Try, cst.With)):
                return node
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                return None
            node = self.body.parents.get(id(node))
        return None

    def _under_comparison(self, target) -> bool:
        """Assigned under ``if score > best:`` (or ``best is None or score > best``): a max or min."""
        node = self.body.parents.get(id(target))
        while node is not None and node is not self.loop:
            if isinstance(node, cst.If) and orders(node.test):
                return True
            node = self.body.parents.get(id(node))
        return False
