from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import MISSING, UNKNOWN, absent_or_none, find_arg, literal
from ..analysis.nodes import named_parameters
from .._lazy import cst
from ..tables.seeding import NUMPY
from ..tables.sklearn import NOT_NONE, POSITIVE, SKLEARN_RANDOM_STATE, TEMPLATE_KEYWORDS
from .common import edits
from .common.base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class SklearnWithoutRandomState(Rule):
    """DET108: a randomized scikit-learn estimator, splitter or function without ``random_state``.

    What it does: reports the callables of facts §7 called without
    ``random_state`` (or with ``None``) where it matters -- e.g.
    ``train_test_split`` (shuffles by default), ``KFold(shuffle=True)``,
    ``ShuffleSplit``, forests, ``KMeans``, ``MLP*``; conditional ones only when
    their condition holds (``LogisticRegression(solver="saga")``,
    ``SVC(probability=True)``).  Not reported when ``**kwargs`` may supply it.

    Default mode leaves out calls made after the run seeds NumPy's global RNG (the result then
    repeats on rerun); strict mode reports them, since any other NumPy draw moves it.

    Why it matters: ``random_state=None`` uses NumPy's global RNG, so splits and
    fitted models change from run to run and with any other NumPy draw.

    Fix: pass ``random_state=SEED``.
    """

    code = "DET108"
    fixes = "safe"
    triggers = frozenset(n.rsplit(".", 1)[-1] for n in SKLEARN_RANDOM_STATE)
    invalid = (
        "from sklearn.model_selection import train_test_split\n\n"
        "train, test = train_test_split(list(range(10)), test_size=0.2)\nprint(test)\n",
        "from sklearn.model_selection import train_test_split\na, b = train_test_split([1, 2, 3, 4])\n",
        "from sklearn.model_selection import KFold\ncv = KFold(5, shuffle=True)\n",
    )
    valid = (
        "from sklearn.model_selection import train_test_split\na, b = train_test_split([1, 2], random_state=0)\n",
        "from sklearn.model_selection import KFold\ncv = KFold(5)\n",
        "from sklearn.linear_model import LogisticRegression\nm = LogisticRegression()\n",
    )
    sources = (
        (
            "``random_state=None`` means the ``RandomState`` singleton used by ``np.random``.",
            "https://scikit-learn.org/stable/modules/generated/sklearn.utils.check_random_state.html",
        ),
        (
            "``train_test_split`` shuffles by default (``shuffle=True``).",
            "https://scikit-learn.org/stable/modules/generated/sklearn.model_selection.train_test_split.html",
        ),
        (
            "Which estimators, splitters and functions use ``random_state``, and under which "
            "conditions.",
            "scikit-learn 1.9.1 docstrings (facts §7)",
        ),
    )
    fix_description = (
        "In an entry module, adds ``random_state=SEED``, with ``SEED = 0`` defined after the imports. In a "
        "library module the seed is the caller's job: reported, not changed."
    )

    def might_fire(self, text, settings) -> bool:
        return "sklearn" in text and super().might_fire(text, settings)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        for site in ctx.calls_to(SKLEARN_RANDOM_STATE):
            if not absent_or_none(site.node, "random_state"):
                continue
            condition = SKLEARN_RANDOM_STATE[site.qualname]
            if condition is not None and not _holds(site.node, condition):
                continue
            if _template(ctx, site.node) or _template_variable(ctx, site):
                continue
            if not ctx.settings.strict and ctx.facts.seeded_at(NUMPY, site):
                # NumPy's global RNG is seeded before the call: the result repeats on rerun (it
                # still moves with any other NumPy draw made in between: strict).
                continue
            yield Report(
                site.node,
                "%s() without random_state uses NumPy's global RNG, so its result changes between runs"
                " — pass random_state=SEED" % ctx.spelling(site),
                fix=edits.set_argument(site.node, "random_state", None, "{SEED}", "pass random_state=SEED")
                if ctx.facts.is_entry else None,
            )


def _template(ctx: FileContext, call) -> bool:
    """``BaggingClassifier(estimator=DecisionTreeClassifier())``, ``_validate_estimator(default=
    DecisionTreeClassifier())``: a template the ensemble clones and seeds from its own
    ``random_state`` (sklearn's ``_set_random_states``)."""
    parent = ctx.index.parents.get(id(call))
    if isinstance(parent, cst.FunctionDef):  # ``def _validate_estimator(self, default=...)``
        return any(param.default is call and param.name.value in TEMPLATE_KEYWORDS
                   for param in named_parameters(parent.params))
    if not isinstance(parent, cst.Call):
        return False
    return any(
        arg.value is call and arg.keyword is not None and arg.keyword.value in TEMPLATE_KEYWORDS
        for arg in parent.args
    )


def _template_variable(ctx: FileContext, site) -> bool:
    """``estimator = AdaBoostClassifier()`` read only as ``EasyEnsembleClassifier(estimator=estimator)``
    (imbalanced-learn's examples): a template every ensemble clones and seeds itself."""
    from ..analysis.body import scope_body

    assign = ctx.index.parents.get(id(site.node))
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)):
        return False
    name = assign.targets[0].target.value
    body = scope_body(ctx, site)
    reads = 0
    for node in body.nodes:
        if not isinstance(node, cst.Name) or node.value != name or node is assign.targets[0].target:
            continue
        parent = body.parents.get(id(node))
        if isinstance(parent, cst.AssignTarget):
            return False  # assigned again: follow no further
        if isinstance(parent, cst.Call):  # the body's parents skip the ``Arg``
            parent = next((arg for arg in parent.args if arg.value is node), None)
        if not (isinstance(parent, cst.Arg) and parent.keyword is not None
                and parent.keyword.value in TEMPLATE_KEYWORDS):
            return False
        reads += 1
    return reads > 0


def _holds(call, condition) -> bool:
    value = find_arg(call, condition.param)
    if value is UNKNOWN:
        return False
    if value is MISSING:
        return _matches(condition.default, condition.values)
    known, constant = literal(value)
    return _matches(constant, condition.values) if known else True


def _matches(value, values) -> bool:
    for wanted in values:
        if wanted == NOT_NONE and value is not None:
            return True
        if wanted == POSITIVE and isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return True
        if wanted == value and type(wanted) is type(value):
            return True
    return False
