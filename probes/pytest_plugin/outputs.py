"""Where a round writes its JUnit and Allure results when the command line does not say.

The design's round ends as results.json, a JUnit file and Allure results, all in the reports
folder (`--canary-reports`, else `paths.reports`). So `pytest probes` defaults `--junitxml` to
`<reports>/junit.xml` and `--alluredir` to `<reports>/allure-results/`, that folder emptied when
the round starts (it holds one round, as `canary probe`'s `--clean-alluredir` makes it); an
explicit `--junitxml` / `--alluredir` wins, with whatever `--clean-alluredir` it came with.

Settled in pytest_cmdline_main (probes/conftest.py), before the junitxml and allure-pytest
plugins read their options in pytest_configure. `--collect-only` writes nothing by default: a
listing must not overwrite the last round's reports with an empty one. Without allure-pytest
(`-p no:allure_pytest`) only the JUnit default applies.
"""

from __future__ import annotations

from pathlib import Path

import pytest

JUNIT_FILE = "junit.xml"
ALLURE_DIR = "allure-results"


def reports_dir(config: pytest.Config) -> Path | None:
    """The round's reports folder as the plugin will settle it; None when canary.yaml is unusable
    (pytest_configure then stops the round with the configuration error)."""
    explicit = config.getoption("canary_reports", None)
    if explicit:
        return Path(explicit)
    from core.config import ConfigError, load_config

    try:
        return load_config(config.getoption("canary_config", None)).paths.reports
    except ConfigError:
        return None


def default_outputs(config: pytest.Config) -> None:
    """Point JUnit and Allure at the reports folder unless the command line chose."""
    option = config.option
    if getattr(option, "collectonly", False):
        return
    reports = reports_dir(config)
    if reports is None:
        return
    if hasattr(option, "xmlpath") and not option.xmlpath:
        option.xmlpath = str(reports / JUNIT_FILE)
    if hasattr(option, "allure_report_dir") and not option.allure_report_dir:
        option.allure_report_dir = str(reports / ALLURE_DIR)
        option.clean_alluredir = True
