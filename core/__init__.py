"""The ground floor: the vocabulary, records and small helpers every other layer shares (ARCHITECTURE.md)."""
