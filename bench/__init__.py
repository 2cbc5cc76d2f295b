"""Benchmarks: `python -m bench.<name>` (they use a database of their own on the embedded server)."""
