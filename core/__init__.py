"""The ground floor: the vocabulary, records and small helpers every other layer shares.

core/ imports only the standard library, PyYAML (core/config.py, core/layer_files.py), msgspec and
itself; ARCHITECTURE.md lists its modules and tests/test_architecture.py enforces the rule.
"""
