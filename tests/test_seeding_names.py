"""Which names of functions the linter cannot see into count as seeding helpers
(``tables.seeding.named_like_seeding``): ``seed`` in the name in both modes (the contract), a name
that sets or fixes ``randomness`` in default mode only (unknown -> quiet), never a getter."""

import pytest

from flake8_determinism.tables.seeding import named_like_seeding


@pytest.mark.parametrize("name, default, strict", [
    ("set_seed", True, True),
    ("init_seeds", True, True),
    ("set_randomness", True, False),   # libzero: seeds random, NumPy and torch
    ("fix_randomness", True, False),
    ("add_randomness", False, False),  # adds noise: not a seeding helper
    ("randomness", False, False),
    ("get_seed", False, False),
    ("initial_seed", False, False),
    ("seed_worker", False, False),
])
def test_seeding_names(name, default, strict):
    assert named_like_seeding(name) is default
    assert named_like_seeding(name, strict=True) is strict
