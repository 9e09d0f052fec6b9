"""``determinism-verify -- COMMAND ...``: run a training command twice and show whether,
and where, the runs diverge (docs/contract.md, "determinism-verify").

- ``runner``: one run of the command as a subprocess (timeout, progress, logs);
- ``metrics``: the metric values a run printed, one per matching line (a *step*);
- ``compare``: the runs step by step, the first divergence and its diagnosis;
- ``report``: the table, the verdict and the linter's findings on the script;
- ``cli``: the options and the exit statuses.

Nothing here imports libcst or torch: the linter's findings come from running flake8.
"""
