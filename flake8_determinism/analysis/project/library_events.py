"""What a call of a library function does to a run, read from the ``ast`` of a project module:
the event it makes (``events.py``) -- a seeding, a switch turned on, a use of a global RNG --
or None."""

import ast

from ...tables import data_order as D
from ...tables import determinism as DM
from ...tables import seeding as T
from ...tables.run_uses import (
    INITIALIZES,
    LIBRARY_DRAWS,
    AUGMENTS, MASKS_DROPOUT,
    PRETRAINED_KEYWORDS,
    TORCH_MODEL_BUILDER_PREFIXES,
    TORCH_MODEL_BUILDERS,
    WEIGHT_LAYERS,
)
from ...tables.stochastic import DROPOUT, RANDOM_TRANSFORMS
from .. import calls as C
from . import events as E
from .ast_values import (
    argument,
    has_double_star,
    is_none,
    keyword_value,
    literal,
    truthy,
)



def inert(call: ast.Call, op) -> bool:
    if op.rate is not None:
        rate = argument(call, *op.rate)
        if rate is not None and literal(rate) in ((True, 0), (True, 0.0)):
            return True
    if op.training is not None:
        keyword, position, default = op.training
        training = argument(call, keyword, position)
        if training is None:
            return not default and not has_double_star(call)
        if literal(training) == (True, False):
            return True
    return False


def dataloader_use(call: ast.Call, spelled: str, line: int, col: int):
    """A DataLoader that shuffles without ``generator=`` draws its order from torch's RNG."""
    if has_double_star(call) or argument(call, *D.GENERATOR) is not None:
        return None
    for where in (D.SAMPLER, D.BATCH_SAMPLER):
        given = argument(call, *where)
        if given is not None and not is_none(given):
            return None
    shuffle = argument(call, *D.SHUFFLE)
    if shuffle is None or literal(shuffle) in ((True, False), (True, None)):
        return None
    return E.Use(line, col, T.TORCH, "shuffles the data (%s)" % spelled, True)


def library_event(name: str, call: ast.Call, switches: frozenset, drawn, shuffled, spelled: str, line: int,
                  col: int):
    """What a call of a library function does to the run: the event it makes, or None.
    ``switches``: the deterministic-mode switches it turns on (``calls.switches``); ``drawn``: the
    global RNG it draws from (``calls.global_draw``); ``shuffled``: the RNG a shuffle draws from,
    and its kind (``calls.unseeded_shuffle``)."""
    bare = name.replace("()", "")
    if name in DM.ENABLERS:
        switches = switches | T.SEEDERS.get(name, frozenset())
        return E.Seed(line, col, tuple(sorted(switches))) if switches else None
    if name in T.SEEDERS:
        return E.Seed(line, col, tuple(sorted(T.SEEDERS[name])))
    if name in T.SEEDING_KEYWORDS:
        keyword, seeds = T.SEEDING_KEYWORDS[name]
        given = keyword_value(call, keyword)
        bool_or_none = isinstance(given, ast.Constant) and (given.value is None or isinstance(given.value, bool))
        return E.Seed(line, col, tuple(sorted(seeds))) if given is not None and not bool_or_none else None
    if T.is_estimator_config(name):
        given = keyword_value(call, T.ESTIMATOR_SEED_KEYWORD)
        return E.Seed(line, col, (T.TF,)) if given is not None and not is_none(given) else None
    if T.seeds_when_built(name):
        return E.Seed(line, col, tuple(sorted(T.TRAINER_SEEDS)))
    if drawn is not None:
        return E.Use(line, col, drawn, "draws (%s())" % spelled, False)
    if name in WEIGHT_LAYERS:
        return E.Use(line, col, WEIGHT_LAYERS[name], "%s (%s)" % (INITIALIZES, spelled), False)
    builder = name.startswith(TORCH_MODEL_BUILDER_PREFIXES) and bare.rsplit(".", 1)[-1][:1].islower()
    pretrained = any(truthy(keyword_value(call, k)) for k in PRETRAINED_KEYWORDS)
    if (builder or name in TORCH_MODEL_BUILDERS) and not pretrained:
        return E.Use(line, col, T.TORCH, "%s (%s())" % (INITIALIZES, spelled), False)
    for table, what in ((DROPOUT, MASKS_DROPOUT), (RANDOM_TRANSFORMS, AUGMENTS)):
        op = table.get(name)
        if op is not None:
            if inert(call, op) or (op.seed is not None and argument(call, *op.seed) is not None):
                return None
            deferred = name.rsplit(".", 1)[-1][:1].isupper()
            return E.Use(line, col, op.framework, "%s (%s)" % (what, spelled), deferred)
    if name in LIBRARY_DRAWS:
        framework, what = LIBRARY_DRAWS[name]
        return E.Use(line, col, framework, "%s (%s())" % (what, spelled), False)
    if name == D.DATALOADER:
        return dataloader_use(call, spelled, line, col)
    if shuffled is not None:  # drawn when the dataset is iterated (Hugging Face's: at the call)
        framework, kind = shuffled
        what = "splits the data" if name.endswith("train_test_split") else "shuffles the data"
        return E.Use(line, col, framework, "%s (%s)" % (what, spelled), kind != C.HF_DATASETS)
    if name in D.RANDOM_SAMPLERS and argument(call, "generator", D.RANDOM_SAMPLERS[name]) is None:
        if not has_double_star(call):
            return E.Use(line, col, T.TORCH, "samples the data (%s())" % spelled, name.endswith("Sampler"))
    return None
