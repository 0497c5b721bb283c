"""The backend's library installed on its own: a clean venv, `pip install ./provider_ignore`.

`import provider_ignore` loads PyYAML only; the production sampler adds msgspec and the reply checks'
own dependencies (ftfy, wordfreq's lists), never the engine. The distribution's only top-level name is
provider_ignore (core/ and judge/ ride inside it, vendored), so a backend with a `core` package of its own
keeps it, and the library keeps its own. The venv gets them (and setuptools, to
build) from the package registry pip is configured with, or its cache; nothing of canary is installed
in it. The files it reads are written by canary's own writers
(the judge's state codec), so the backend's narrow reader is checked against the judge's real file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import venv
from datetime import timedelta
from pathlib import Path

import pytest
from judge_cli_support import MODEL, T0

from canary.state.judge_files import save_state
from core.times import fmt_time
from judge.suspension.state import JudgeState, ProviderState, Suspension

ROOT = Path(__file__).resolve().parents[2]
CLEAN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's copy, not the repository's
FORBIDDEN = ("probes", "canary", "simulator", "pytest", "scipy", "numpy", "msgspec", "httpx", "lingua")

# Run inside the clean venv: the list for MODEL at a time, and every module outside the standard library that
# importing provider_ignore loaded (its import closure).
SCRIPT = """
import json, sys
from datetime import datetime
before = set(sys.modules)  # the interpreter's own start-up (site, .pth hooks) is not the library's
from provider_ignore import ProviderIgnore
ignore = ProviderIgnore(sys.argv[1], sys.argv[2], sys.argv[3])
tags = ignore.get(sys.argv[4], now=datetime.fromisoformat(sys.argv[5]))
new = set(sys.modules) - before
import core.layers  # the backend's own package of that name, beside the library
print(json.dumps({"tags": tags, "backend_core": core.layers.__file__,
                  "loaded": sorted(m for m in new if m.split(".")[0] not in sys.stdlib_module_names
                                   and getattr(sys.modules[m], "__file__", None)),
                  "from": sys.modules["provider_ignore"].__file__}))
"""

# The production sampler in the same venv: a window of replies, its record, and what importing it loaded.
PRODUCTION = """
import json, sys
before = set(sys.modules)
from datetime import datetime, timedelta, UTC
from provider_ignore.production import Exporter, Reply
from provider_ignore.push import record_path
import msgspec
now = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
exporter = Exporter("eu-1", sample_rate=1.0)
for i in range(10):  # half start mid-word: wordfreq's packaged lists are read
    exporter.observe(f"c{i}", Reply("m/x", "Aurora", "ing the door opened." if i % 2 else "The door opened.",
                                    "stop"), now=now)
[record] = exporter.records(now=now + timedelta(minutes=30))
new = set(sys.modules) - before
print(json.dumps({"record": msgspec.json.decode(msgspec.json.encode(record)), "path": record_path(record),
                  "loaded": sorted(m for m in new if m.split(".")[0] not in sys.stdlib_module_names
                                   and getattr(sys.modules[m], "__file__", None))}))
"""
# What the distribution installs beside itself: PyYAML, msgspec, ftfy and wordfreq, with their own dependencies.
INSTALLED = {"canary-provider-ignore", "pyyaml", "msgspec", "ftfy", "wcwidth", "wordfreq", "langcodes", "locate",
             "regex", "msgpack"}


@pytest.mark.slow
def test_the_backend_library_installs_and_runs_without_the_engine(tmp_path: Path) -> None:
    # Copy what the distribution is built from, so the build leaves nothing in the repository.
    source = tmp_path / "src"
    for folder in ("provider_ignore", "core", "judge"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "build"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(source / "provider_ignore")],
                             capture_output=True, text=True, check=False, env=CLEAN_ENV)
    assert install.returncode == 0, install.stderr
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True,
                            check=True, env=CLEAN_ENV)
    installed = {p["name"].lower() for p in json.loads(listed.stdout)} - {"pip", "setuptools"}
    assert installed == INSTALLED, installed
    shipped = subprocess.run([str(python), "-c", "import importlib.metadata as m, json; print(json.dumps(sorted("
                              "{f.parts[0] for f in m.files('canary-provider-ignore')})))"],
                             capture_output=True, text=True, check=True, env=CLEAN_ENV)
    assert json.loads(shipped.stdout) == ["canary_provider_ignore-0.2.0.dist-info", "provider_ignore"]
    # The backend's own `core` (first on sys.path: the scripts run in its folder) beside the library.
    backend = tmp_path / "backend"
    (backend / "core").mkdir(parents=True)
    (backend / "core" / "__init__.py").write_text("", encoding="utf-8")
    (backend / "core" / "layers.py").write_text("", encoding="utf-8")

    files = tmp_path / "files"
    files.mkdir()
    state = files / "canary-state.json"
    save_state(state, JudgeState(models={MODEL: {
        "s/fp8": ProviderState(suspension=Suspension(T0, T0 + timedelta(days=1), 1, "enforce", "r")),
        "o/fp8": ProviderState(suspension=Suspension(T0, T0 + timedelta(days=1), 1, "observe", "r"))}}))
    builtin = files / "builtin.yaml"
    builtin.write_text(f'"{MODEL}":\n  - provider: b/fp8\n    reason: measured\n', encoding="utf-8")
    incidents = files / "incidents.yaml"
    incidents.write_text(f'"{MODEL}":\n  - provider: i/fp8\n    reason: paged\n    added_at: "{fmt_time(T0)}"\n'
                         f'    expires: "{fmt_time(T0 + timedelta(hours=1))}"\n', encoding="utf-8")

    def run(now: str) -> dict[str, object]:
        done = subprocess.run([str(python), "-c", SCRIPT, str(state), str(builtin), str(incidents), MODEL, now],
                              cwd=backend, capture_output=True, text=True, check=False, env=CLEAN_ENV)
        assert done.returncode == 0, done.stderr
        answer: dict[str, object] = json.loads(done.stdout)
        return answer

    first = run(str(fmt_time(T0)))
    loaded = first["loaded"]
    assert isinstance(loaded, list)
    print("provider_ignore's import closure in a clean venv:", " ".join(loaded))
    assert str(first["from"]).startswith(str(env_dir)), first["from"]  # the installed copy, not the repository
    assert first["tags"] == ["b/fp8", "i/fp8", "s/fp8"]  # the observe-mode suspension stays out
    assert first["backend_core"] == str(backend / "core" / "layers.py")
    assert [m for m in loaded if m.split(".")[0] in FORBIDDEN] == []
    assert {m.split(".")[0] for m in loaded} == {"provider_ignore", "yaml"}
    assert "provider_ignore._vendor.core.layers" in loaded
    assert "provider_ignore._vendor.core.schema" not in loaded  # the reader never loads the declarations (msgspec)
    # The incident ends on time, with no file changed.
    assert run(str(fmt_time(T0 + timedelta(hours=2))))["tags"] == ["b/fp8", "s/fp8"]


    done = subprocess.run([str(python), "-c", PRODUCTION], cwd=backend, capture_output=True, text=True, check=False,
                          env=CLEAN_ENV)
    assert done.returncode == 0, done.stderr
    production = json.loads(done.stdout)
    print("the production sampler's import closure:", " ".join(production["loaded"]))
    engine = set(FORBIDDEN) - {"msgspec"}   # the record's declaration is msgspec's; the engine stays out
    assert [m for m in production["loaded"] if m.split(".")[0] in engine or ".judge.suspension" in m] == []
    assert {m.split(".")[0] for m in production["loaded"]} <= {"provider_ignore", "yaml", "msgspec", "ftfy", "wcwidth",
                                                                "msgpack"}
    leading = {c["outcome"]: c["n"] for c in production["record"]["counts"] if c["check"] == "leading"}
    assert leading == {"pass": 5, "fail": 5}
    assert production["path"] == "production/eu-1/2026-12-07T100000Z.json"
