"""Messages say what is true where the code runs (RULES.md: every message names the
problem, why it breaks reproducibility and the fix)."""

import textwrap

import pytest

from flake8_determinism.checker import check_source
from flake8_determinism.settings import Settings


def messages(source: str, code: str, settings=None):
    return [f.message for f in check_source(textwrap.dedent(source), settings) if f.code == code]


DATALOADER = """
    import torch
    from torch.utils.data import DataLoader
    {before}
    def main():
        {seed_before}
        loader = DataLoader(range(10), shuffle=True)
        {seed_after}
        for batch in loader:
            print(batch)
    {after}
"""


@pytest.mark.parametrize(
    "seed_before, seed_after, guard, expected",
    [
        ("pass", "pass", True, "torch is not seeded before it: its order changes every run"),
        ("torch.manual_seed(0)", "pass", True, "reproducible but drawn from the global torch RNG"),
        ("pass", "torch.manual_seed(0)", True, "reproducible but drawn from the global torch RNG"),
        ("pass", "pass", False, "different every run unless the caller seeds torch"),
    ],
    ids=["unseeded", "seeded-before", "seeded-before-iteration", "library"],
)
def test_det202_says_what_is_true(seed_before, seed_after, guard, expected):
    """Strict mode, where DET202 reports every loader (default mode leaves these to the run's
    DET104, a seeded run's repeat, or the caller)."""
    after = 'if __name__ == "__main__":\n        main()' if guard else ""
    source = DATALOADER.format(before="", seed_before=seed_before, seed_after=seed_after, after=after)
    (message,) = messages(source, "DET202", Settings.from_values(strict=True))
    assert expected in message
    assert "generator=torch.Generator().manual_seed(SEED)" in message


@pytest.mark.parametrize(
    "script, switch",
    [
        (
            "import torch\nimport lightning as L\ntrainer = L.Trainer()\ntrainer.fit(None)\n",
            "Trainer(deterministic=True)",
        ),
        (
            "from transformers import Trainer, TrainingArguments\n"
            "Trainer(model=None, args=TrainingArguments('out')).train()\nx.backward()\n",
            "full_determinism=True",
        ),
        (
            "import torch\nfrom accelerate.utils import set_seed\nset_seed(0)\nmodel.cuda()\nloss.backward()\n",
            "set_seed(SEED, deterministic=True)",
        ),
        (
            "import torch\nfrom mmengine.runner import Runner\nRunner.from_cfg(cfg).train()\n",
            "randomness=dict(seed=SEED, deterministic=True)",
        ),
        ("import torch\nloss = torch.ones(1, device='cuda')\nloss.backward()\n", "torch.use_deterministic_algorithms(True)"),
    ],
    ids=["lightning", "transformers", "accelerate", "mmengine", "torch"],
)
def test_det303_names_the_frameworks_switch(script, switch):
    """Strict mode: default mode reports the missing switch only in a seeded run that calls a
    nondeterministic CUDA op (the message is the same)."""
    (message,) = messages(script, "DET303", Settings.from_values(strict=True))
    assert switch in message


def test_det100_names_the_trainer_that_seeds_late():
    source = """
        from peft import LoraConfig, get_peft_model
        from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
        model = get_peft_model(AutoModelForCausalLM.from_pretrained("m"), LoraConfig())
        Trainer(model=model, args=TrainingArguments("out")).train()
    """
    (message,) = messages(source, "DET100")
    assert "seeded only when Trainer() is built" in message and "set_seed(SEED) before building the model" in message


def test_det109_names_the_option():
    source = """
        import argparse, random
        parser = argparse.ArgumentParser()
        parser.add_argument("--data-seed", type=int)
        args = parser.parse_args()
        if args.data_seed is not None:
            random.seed(args.data_seed)
    """
    (message,) = messages(source, "DET109")
    assert message.startswith("DET109 seeding runs only when --data-seed is given")


def test_det201_names_what_the_dataset_draws_from():
    source = """
        import albumentations as A
        from torch.utils.data import DataLoader, Dataset
        class Images(Dataset):
            def __init__(self):
                self.aug = A.Compose([A.HorizontalFlip()])
            def __getitem__(self, i):
                return self.aug(image=i)
        loader = DataLoader(Images(), num_workers=4)
    """
    (message,) = messages(source, "DET201")
    assert "its dataset draws from the albumentations RNG" in message
