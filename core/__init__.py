"""The ground floor: the vocabulary, records and small tools every layer shares (ARCHITECTURE.md)."""
