"""``determinism-fix``: the codemod that fixes what the linter reports (docs/contract.md).

``edits`` is what rules attach to their reports (loads nothing); ``transform``
applies them (libcst's codemod framework); ``block`` plans the module-level
seeding block; ``spelling`` spells names as the file imports them; ``cli`` is
the command.
"""
