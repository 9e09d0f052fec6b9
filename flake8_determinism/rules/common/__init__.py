"""What several rules share, below every rule: the rule base class (``base``), the run of an
entry module (``runs``), DataLoaders, cuDNN flags, stochastic layers, environments, and the fix
vocabulary (``edits``, the seeding ``block``, ``moves``, ``placement``, ``installed``).  Nothing
here imports a rule (``tests/test_layers.py``)."""
