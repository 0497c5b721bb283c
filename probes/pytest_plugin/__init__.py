"""The pytest adapter of a round: the hooks (hooks), the JUnit/Allure defaults (outputs), xdist
scheduling (scheduling), an outcome as pytest's status (outcomes), results.json, JUnit properties
and Allure results (reporting) and the terminal table (table). Registered by probes/conftest.py."""
