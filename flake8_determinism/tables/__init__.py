"""Domain tables: which names draw from which RNG, what each helper seeds.

These modules hold data only; the logic that matches them lives in
``flake8_determinism.analysis`` and ``flake8_determinism.rules``.  Facts come from
``docs/facts.md``, with its sources (its section numbers are cited inline: "facts §2").
"""
