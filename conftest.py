"""Root conftest: what every pytest run of this repository shares — the test suite (`pytest`,
`./dev test`) and a round (`pytest probes`, which adds probes/conftest.py on top).

- probes.pytest_plugin.secrets: the API key is scrubbed from pytest's own output (tracebacks, captured
  output) before the terminal, JUnit or Allure see it, and the header says which upstream is used;
- pytester: the suite drives pytest itself in some tests.
"""

pytest_plugins = ["probes.pytest_plugin.secrets", "pytester"]
