"""The judge's files and their commit-back: the state, the exclusions, the audit log, pushing them."""
