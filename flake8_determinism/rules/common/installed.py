"""Which options the installed frameworks accept (docs/contract.md: framework-native fixes "only with
options the installed version of that framework accepts").

Read from the installed package's source with ``ast``, never imported: importing transformers
or Lightning imports torch and takes seconds, and the fixer must not run framework code.  A
framework that is not installed, or whose definition is not where we look, accepts nothing:
the fix is then the generic one.
"""

import ast
import importlib.util
import os
from functools import lru_cache
from typing import List, Optional, Tuple

from ...tables.determinism import LIGHTNING_TRAINERS, MMENGINE_RUNNERS, is_training_arguments

# What a fix calls -> (package, its module file, the definition there).  A definition the file
# only imports (``from lightning_fabric.utilities.seed import seed_everything``) is followed.
DEFINITIONS = {
    "transformers.TrainingArguments": ("transformers", "training_args.py", "TrainingArguments"),
    "accelerate.utils.set_seed": ("accelerate", "utils/random.py", "set_seed"),
    "lightning.Trainer": ("lightning", "pytorch/trainer/trainer.py", "Trainer"),
    "lightning.seed_everything": ("lightning", "fabric/utilities/seed.py", "seed_everything"),
    "pytorch_lightning.Trainer": ("pytorch_lightning", "trainer/trainer.py", "Trainer"),
    "pytorch_lightning.seed_everything": ("pytorch_lightning", "utilities/seed.py", "seed_everything"),
    "mmengine.runner.Runner": ("mmengine", "runner/runner.py", "Runner"),
    # gym >= 0.22 takes ``reset(seed=...)``; older gym has ``env.seed(...)`` (removed in 0.26).
    "torch_geometric.seed_everything": ("torch_geometric", "seed.py", "seed_everything"),
    "gym.Env.reset": ("gym", "core.py", "Env.reset"),
    "gymnasium.Env.reset": ("gymnasium", "core.py", "Env.reset"),
    # albumentations >= 1.4.21 takes ``Compose(..., seed=...)``.
    "albumentations.Compose": ("albumentations", "core/composition.py", "Compose"),
}
_SPELLINGS = {
    "lightning.pytorch.seed_everything": "lightning.seed_everything",
    "lightning.fabric.seed_everything": "lightning.seed_everything",
    "albumentations.core.composition.Compose": "albumentations.Compose",
}
_FOLLOW_DEPTH = 3


def canonical(qualname: str) -> str:
    if is_training_arguments(qualname):
        return "transformers.TrainingArguments"  # its subclasses (Seq2Seq..., trl's configs) inherit the field
    if qualname in LIGHTNING_TRAINERS:
        return "lightning.Trainer"
    if qualname in MMENGINE_RUNNERS:
        return "mmengine.runner.Runner"
    return _SPELLINGS.get(qualname, qualname)


def accepts(qualname: str, keyword: str, frameworks: Optional[tuple] = None) -> bool:
    """Does the installed framework's ``qualname`` take ``keyword=``?  ``frameworks``: the
    settings' stamp of the installed frameworks (``Settings.frameworks``): a framework it does
    not list is not installed, and what was read is remembered per stamp; None reads whatever
    is installed."""
    definition = DEFINITIONS.get(canonical(qualname))
    if definition is None:
        return False
    if frameworks is not None and definition[0] not in dict(frameworks):
        return False
    parameters = _parameters(*definition, 0, frameworks)
    return parameters is not None and (keyword in parameters[0] or parameters[1])


@lru_cache(maxsize=None)
def _parameters(package: str, relative: str, name: str, depth: int,
                frameworks: Optional[tuple] = None) -> Optional[Tuple[frozenset, bool]]:
    """(named parameters or dataclass fields, takes ``**kwargs``) of ``name`` in the file
    (``frameworks`` only keys the cache: another installation is read afresh)."""
    tree = _parse(package, relative)
    if tree is None:
        return None
    if "." in name:  # ``Class.method``
        klass, method = name.split(".", 1)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == klass:
                found = next((s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                              and s.name == method), None)
                return _signature(found.args) if found is not None else None
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return _signature(node.args)
        if isinstance(node, ast.ClassDef) and node.name == name:
            init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is not None:
                return _signature(init.args)
            fields = frozenset(s.target.id for s in node.body
                               if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name))
            return fields, False  # a dataclass: its fields are its keywords
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and depth < _FOLLOW_DEPTH:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    root, _, rest = node.module.partition(".")
                    path = rest.replace(".", "/")
                    for candidate in (path + ".py", path + "/__init__.py") if path else ("__init__.py",):
                        found = _parameters(root, candidate, alias.name, depth + 1, frameworks)
                        if found is not None:
                            return found
    return None


def _signature(args: ast.arguments) -> Tuple[frozenset, bool]:
    named = frozenset(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs)
    return named, args.kwarg is not None


def _parse(package: str, relative: str) -> Optional[ast.Module]:
    try:
        spec = importlib.util.find_spec(package)  # locates; runs nothing of the package
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    for location in locations:
        path = os.path.join(location, relative)
        try:
            with open(path, "rb") as handle:
                return ast.parse(handle.read())
        except (OSError, SyntaxError, ValueError):
            continue
    return None


# ``torch>=1.7``, ``torch==1.10.*``, ``"torch >= 2.0"``: the oldest version a project declares.
_REQUIREMENT = r"(?<![\w.-])%s\s*(?:\[[^\]]*\])?\s*(?:>=|==|~=|>)\s*(\d+)\.(\d+)"
DECLARATION_FILES = ("requirements.txt", "requirements/requirements.txt", "requirements/base.txt",
                     "setup.py", "setup.cfg", "pyproject.toml", "environment.yml", "Dockerfile")
# A Dockerfile's base image pins torch: ``FROM pytorch/pytorch:1.7.1-cuda11.0-cudnn8-runtime``, or an
# NVIDIA NGC release ``FROM nvcr.io/nvidia/pytorch:20.12-py3`` (20.12 ships torch 1.8; releases
# before 21.12 ship torch older than 1.11: the NGC PyTorch release notes' support matrix).
_DOCKER_TORCH = r"FROM\s+pytorch/pytorch:(\d+)\.(\d+)"
_NGC_TORCH = r"FROM\s+nvcr\.io/nvidia/pytorch:(\d+)\.(\d+)"
NGC_BEFORE_1_11 = (21, 12)


def declared_floor(start: str, package: str) -> Optional[Tuple[int, int]]:
    """The oldest ``package`` version the project says it supports, from the requirement files
    of the nearest folder at or above ``start`` that has any; None when it says nothing."""
    import re

    pattern = re.compile(_REQUIREMENT % re.escape(package))
    texts = nearest_texts(start, DECLARATION_FILES)
    found = [(int(major), int(minor)) for text in texts for major, minor in pattern.findall(text)]
    if package == "torch":
        found += [(int(major), int(minor)) for text in texts for major, minor in re.findall(_DOCKER_TORCH, text)]
        ngc = [(int(year), int(month)) for text in texts for year, month in re.findall(_NGC_TORCH, text)]
        if any(release < NGC_BEFORE_1_11 for release in ngc):
            found.append((1, 10))  # some torch < 1.11: the floor that matters here
    return min(found) if found else None


def nearest_texts(start: str, names) -> List[str]:
    """The texts of the files ``names`` (those that exist, the first MiB of each) in the nearest
    folder at or above ``start`` that holds any of them; [] when none does."""
    folder = os.path.abspath(start)
    while True:
        texts = []
        for name in names:
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as handle:
                    texts.append(handle.read(1 << 20))
            except OSError:
                continue
        if texts:
            return texts
        parent = os.path.dirname(folder)
        if parent == folder:
            return []
        folder = parent
