"""The backend's library installed on its own: a clean venv, `pip install ./provider_ignore`, PyYAML only.

The venv gets PyYAML (and setuptools, to build) from the package registry pip is configured with, or
its cache; nothing of canary is installed in it. The files it reads are written by canary's own writers
(the judge's state codec), so the backend's narrow reader is checked against the judge's real file.
"""

from __future__ import annotations

import json
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
FORBIDDEN = ("judge", "probes", "canary", "simulator", "pytest", "scipy", "numpy", "msgspec", "httpx", "lingua")

# Run inside the clean venv: the list for MODEL at a time, and every module outside the standard library that
# importing provider_ignore loaded (its import closure).
SCRIPT = """
import json, sys
before = set(sys.modules)  # the interpreter's own start-up (site, .pth hooks) is not the library's
from provider_ignore import ProviderIgnore
import provider_ignore.reports  # user reports: standard library and core/tags.py only
from core.times import parse_time
ignore = ProviderIgnore(sys.argv[1], sys.argv[2], sys.argv[3])
now = parse_time(sys.argv[5], "now")
new = set(sys.modules) - before
print(json.dumps({"tags": ignore.get(sys.argv[4], now=now),
                  "loaded": sorted(m for m in new if m.split(".")[0] not in sys.stdlib_module_names
                                   and getattr(sys.modules[m], "__file__", None)),
                  "from": sys.modules["provider_ignore"].__file__}))
"""


@pytest.mark.slow
def test_the_backend_library_installs_and_runs_with_pyyaml_alone(tmp_path: Path) -> None:
    # Copy what the distribution is built from, so the build leaves nothing in the repository.
    source = tmp_path / "src"
    for folder in ("provider_ignore", "core"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "build"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(source / "provider_ignore")],
                             capture_output=True, text=True, check=False)
    assert install.returncode == 0, install.stderr
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True,
                            check=True)
    installed = {p["name"].lower() for p in json.loads(listed.stdout)} - {"pip", "setuptools"}
    assert installed == {"canary-provider-ignore", "pyyaml"}, installed

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
                              cwd=tmp_path, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        answer: dict[str, object] = json.loads(done.stdout)
        return answer

    first = run(str(fmt_time(T0)))
    loaded = first["loaded"]
    assert isinstance(loaded, list)
    print("provider_ignore's import closure in a clean venv:", " ".join(loaded))
    assert str(first["from"]).startswith(str(env_dir)), first["from"]  # the installed copy, not the repository
    assert first["tags"] == ["b/fp8", "i/fp8", "s/fp8"]  # the observe-mode suspension stays out
    assert [m for m in loaded if m.split(".")[0] in FORBIDDEN] == []
    assert {m.split(".")[0] for m in loaded} == {"core", "provider_ignore", "yaml"}
    # The incident ends on time, with no file changed.
    assert run(str(fmt_time(T0 + timedelta(hours=2))))["tags"] == ["b/fp8", "s/fp8"]

