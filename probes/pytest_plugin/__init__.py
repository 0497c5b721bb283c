"""The pytest adapter of a round, registered by probes/conftest.py: the options (options), the
settling of a round from them (settle), the JUnit/Allure defaults (outputs), the bundled simulator
of a keyless round (bundled_simulator), the hooks over a probes.round.lifecycle.Round (hooks),
an outcome as pytest's status (outcomes), JUnit properties and Allure results (reporting) and the
terminal table (table)."""
