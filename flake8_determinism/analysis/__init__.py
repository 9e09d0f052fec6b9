"""The per-file analysis: one libcst traversal (index), name resolution (scopes), shared facts."""
