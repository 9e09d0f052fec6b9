"""Framework-native fixes only with options the installed framework accepts (read from its
source with ``ast``, never imported); else the generic fix."""

import sys
import textwrap

import pytest

from flake8_determinism.rules.common import installed
from flake8_determinism.fix.transform import fix_source
from flake8_determinism.settings import Settings

TRAINING_ARGUMENTS_OLD = """
from dataclasses import dataclass, field


@dataclass
class TrainingArguments:
    output_dir: str = field(default=None)
    seed: int = 42
"""
TRAINING_ARGUMENTS_NEW = TRAINING_ARGUMENTS_OLD + "    full_determinism: bool = False\n"

SCRIPT = """from transformers import Trainer, TrainingArguments

if __name__ == "__main__":
    args = TrainingArguments(output_dir="out", seed=1)
    Trainer(model=None, args=args).train()
"""


@pytest.fixture
def site_packages(tmp_path, monkeypatch):
    """A directory on sys.path holding fake installed packages."""
    monkeypatch.syspath_prepend(str(tmp_path))
    installed._parameters.cache_clear()
    yield tmp_path
    installed._parameters.cache_clear()
    for name in [m for m in sys.modules if m.split(".")[0] in ("transformers", "lightning", "lightning_fabric", "gym", "torch_geometric")]:
        del sys.modules[name]


def package(root, name, files):
    for relative, text in {"__init__.py": "", **files}.items():
        path = root / name / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def fixed(source, strict=False):
    return fix_source(source, Settings.from_values(torch_version="2.13", strict=strict), 0, filename="train.py").source


def test_an_option_the_installed_version_has(site_packages):
    package(site_packages, "transformers", {"training_args.py": TRAINING_ARGUMENTS_NEW})
    assert installed.accepts("transformers.TrainingArguments", "full_determinism")
    assert installed.accepts("transformers.Seq2SeqTrainingArguments", "full_determinism")
    assert "full_determinism=True" in fixed(SCRIPT, strict=True)  # DET303: no op seen, so strict


def test_an_option_the_installed_version_lacks_gets_the_generic_fix(site_packages):
    package(site_packages, "transformers", {"training_args.py": TRAINING_ARGUMENTS_OLD})
    assert not installed.accepts("transformers.TrainingArguments", "full_determinism")
    out = fixed(SCRIPT, strict=True)
    assert "full_determinism" not in out
    assert "torch.use_deterministic_algorithms(True, warn_only=True)" in out


def test_a_framework_not_installed_accepts_nothing(site_packages):
    assert not installed.accepts("transformers.TrainingArguments", "full_determinism")
    assert "full_determinism" not in fixed(SCRIPT)


def test_the_package_is_never_imported(site_packages):
    package(site_packages, "transformers", {"__init__.py": "raise SystemExit('imported')",
                                            "training_args.py": TRAINING_ARGUMENTS_NEW})
    assert installed.accepts("transformers.TrainingArguments", "full_determinism")
    assert "transformers" not in sys.modules


def test_a_definition_imported_from_another_package_is_followed(site_packages):
    package(site_packages, "lightning", {"fabric/utilities/seed.py":
                                         "from lightning_fabric.utilities.seed import seed_everything\n"})
    package(site_packages, "lightning_fabric", {"utilities/seed.py": """
        def seed_everything(seed=None, workers=False, verbose=True):
            return seed
    """})
    assert installed.accepts("lightning.pytorch.seed_everything", "workers")
    assert not installed.accepts("lightning.pytorch.seed_everything", "deterministic")


def test_seed_everything_without_workers_on_old_lightning(site_packages):
    package(site_packages, "lightning", {"fabric/utilities/seed.py": "def seed_everything(seed=None):\n    pass\n",
                                         "pytorch/__init__.py": ""})
    source = ("import lightning as L\nimport torch\n\nif __name__ == \"__main__\":\n"
              "    model = torch.nn.Linear(2, 2)\n    L.Trainer().fit(model)\n")
    out = fixed(source)
    assert "seed_everything(SEED)" in out and "workers=" not in out, out


def test_unparsable_installed_source_accepts_nothing(site_packages):
    package(site_packages, "transformers", {"training_args.py": "class TrainingArguments(:\n"})
    assert not installed.accepts("transformers.TrainingArguments", "full_determinism")


GYM_SCRIPT = """import gym

if __name__ == "__main__":
    env = gym.make("CartPole-v1")
    for episode in range(3):
        state = env.reset()
        print(state)
"""


def test_environments_are_seeded_at_reset_only_where_gym_takes_the_seed(site_packages):
    package(site_packages, "gym", {"core.py": "class Env:\n    def reset(self):\n        pass\n"})
    assert "reset(seed=" not in fixed(GYM_SCRIPT)  # gym < 0.22: reset(seed=...) would raise
    installed._parameters.cache_clear()
    package(site_packages, "gym", {"core.py": "class Env:\n    def reset(self, *, seed=None, options=None):\n"
                                              "        pass\n"})
    assert '    env = gym.make("CartPole-v1")\n    env.reset(seed=SEED)\n' in fixed(GYM_SCRIPT)


PYG_SCRIPT = """import torch
from torch_geometric.nn import GCNConv

if __name__ == "__main__":
    conv, head = GCNConv(4, 2), torch.nn.Linear(2, 1)
    print(head(conv(torch.ones(3, 4), torch.tensor([[0, 1], [1, 2]]))).sum())
"""


def test_pyg_runs_use_pygs_seed_everything_where_it_is_installed(site_packages):
    plain = fixed(PYG_SCRIPT)
    assert "seed_everything" not in plain and "torch.manual_seed(SEED)" in plain  # no PyG: the framework lines
    package(site_packages, "torch_geometric", {"seed.py": "def seed_everything(seed):\n    pass\n"})
    installed._parameters.cache_clear()  # one process, two installations
    out = fixed(PYG_SCRIPT)
    assert "    torch_geometric.seed_everything(SEED)\n" in out and "torch.manual_seed" not in out, out


ALBUMENTATIONS_SCRIPT = """import albumentations as A

transform = A.Compose([A.HorizontalFlip(p=0.5)])
print(transform)
"""
COMPOSITION_OLD = """
class Compose:
    def __init__(self, transforms, bbox_params=None, keypoint_params=None, additional_targets=None, p=1.0):
        self.transforms = transforms
"""
COMPOSITION_NEW = """
class Compose:
    def __init__(self, transforms, bbox_params=None, keypoint_params=None, additional_targets=None, p=1.0,
                 is_check_shapes=True, strict=False, mask_interpolation=None, seed=None, save_applied_params=False):
        self.transforms = transforms
"""


def test_albumentations_compose_gets_a_seed_only_where_it_takes_one(site_packages):
    package(site_packages, "albumentations", {"core/__init__.py": "", "core/composition.py": COMPOSITION_NEW})
    assert "A.Compose([A.HorizontalFlip(p=0.5)], seed=SEED)" in fixed(ALBUMENTATIONS_SCRIPT)
    installed._parameters.cache_clear()
    package(site_packages, "albumentations", {"core/__init__.py": "", "core/composition.py": COMPOSITION_OLD})
    assert "seed=SEED" not in fixed(ALBUMENTATIONS_SCRIPT)
