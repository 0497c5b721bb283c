"""`canary ignore --at TIME` rebuilds the provider.ignore of a past moment from the audit log.

A timeline through the real commands (`canary judge`, `canary incident`, `canary lift`): at each
step the live `canary ignore --now` answer is kept; afterwards `--at` must give the same answer
for every one of those moments, and for moments in between.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, files_in, iso

BAD, HAND = PROVIDERS[0], PROVIDERS[1]
BUILTIN_TAG = "old-host/fp4"
BUILTIN_SINCE = "2026-11-20"


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    files = files_in(tmp_path, capsys)
    files.builtin.parent.mkdir(parents=True, exist_ok=True)
    files.builtin.write_text(f'"{MODEL}":\n  - provider: "{BUILTIN_TAG}"\n    reason: "measured"\n'
                             f'    since: "{BUILTIN_SINCE}"\n', encoding="utf-8")
    return files


def ignore(f: Files, *args: str) -> tuple[list[str], str]:
    code, out, err = f.canary("ignore", "--model", MODEL, *args)
    assert code == 0, err
    return json.loads(out), err


def test_the_list_at_each_past_moment_is_the_one_in_effect_then(f: Files) -> None:
    live: dict[str, list[str]] = {}

    def step(at_minutes: int) -> None:
        moment = iso(T0 + at_minutes * HALF_HOUR / 30)
        live[moment] = ignore(f, "--now", moment)[0]

    for i in range(2):  # two failed rounds: suspended (enforce) at the second
        at = T0 + i * HALF_HOUR
        f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at))
        step(i * 30 + 1)
    f.canary("incident", "add", "--model", MODEL, "--provider", HAND, "--reason", "filters roleplay",
             "--now", iso(T0 + 60 * HALF_HOUR / 30))
    step(61)
    f.canary("lift", "--model", MODEL, "--provider", BAD, "--reason", "host fixed", "--now", iso(T0 + 3 * HALF_HOUR))
    step(61 + 30)
    f.canary("incident", "remove", "--model", MODEL, "--provider", HAND, "--reason", "fixed",
             "--now", iso(T0 + 4 * HALF_HOUR))
    step(91 + 30)
    assert live == {iso(T0 + HALF_HOUR / 30): [BUILTIN_TAG], iso(T0 + 31 * HALF_HOUR / 30): [BAD, BUILTIN_TAG],
                    iso(T0 + 61 * HALF_HOUR / 30): sorted([BAD, BUILTIN_TAG, HAND]),
                    iso(T0 + 91 * HALF_HOUR / 30): sorted([BUILTIN_TAG, HAND]),
                    iso(T0 + 121 * HALF_HOUR / 30): [BUILTIN_TAG]}
    for moment, expected in live.items():
        assert ignore(f, "--at", moment)[0] == expected, moment
    between = {T0 + HALF_HOUR / 2: [BUILTIN_TAG], T0 + 5 * HALF_HOUR / 2: sorted([BAD, BUILTIN_TAG, HAND]),
               T0 + 7 * HALF_HOUR / 2: sorted([BUILTIN_TAG, HAND]), T0 + 48 * HALF_HOUR: [BUILTIN_TAG]}
    for at, expected in between.items():
        assert ignore(f, "--at", iso(at))[0] == expected, at
    assert ignore(f, "--at", "2026-11-19T12:00:00Z")[0] == []  # before the builtin entry's `since`


def test_the_explanation_names_each_source_and_the_limits(f: Files) -> None:
    for i in range(2):
        at = T0 + i * HALF_HOUR
        f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at))
    listed, err = ignore(f, "--at", iso(T0 + 2 * HALF_HOUR))
    assert listed == [BAD, BUILTIN_TAG]
    line = next(x for x in err.splitlines() if x.strip().startswith(BAD))
    assert "[suspension]" in line and "audit: suspend at " + iso(T0 + HALF_HOUR) in line
    assert f"builtin.yaml line 2, since {BUILTIN_SINCE}" in err
    assert "by hand" in err and "git log -p" in err
    _, early = ignore(f, "--at", "2026-11-25T00:00:00Z")
    assert "the audit log starts at" in early


def test_an_incident_written_by_hand_counts_from_its_added_at(f: Files) -> None:
    f.incidents.write_text(f'"{MODEL}":\n  - provider: "{HAND}"\n    reason: "by hand"\n'
                           f'    added_at: "{iso(T0)}"\n    expires: "{iso(T0 + 4 * HALF_HOUR)}"\n', encoding="utf-8")
    assert ignore(f, "--at", iso(T0 - HALF_HOUR))[0] == [BUILTIN_TAG]
    assert ignore(f, "--at", iso(T0 + HALF_HOUR))[0] == sorted([BUILTIN_TAG, HAND])
    assert ignore(f, "--at", iso(T0 + 5 * HALF_HOUR))[0] == [BUILTIN_TAG]


def test_observe_mode_records_are_shown_but_not_in_the_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = files_in(tmp_path, capsys, mode="observe")
    for i in range(2):
        at = T0 + i * HALF_HOUR
        f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at))
    listed, err = ignore(f, "--at", iso(T0 + 2 * HALF_HOUR))
    assert listed == [] and f"({BAD} would have been excluded in enforce mode)" in err


def test_a_bad_time_is_refused_clearly(f: Files) -> None:
    code, _, err = f.canary("ignore", "--model", MODEL, "--at", "yesterday")
    assert code == 2 and "--at" in err and "ISO 8601" in err


def test_an_audit_line_of_another_shape_is_named_and_the_rest_still_answers(f: Files) -> None:
    f.canary("judge", str(f.results("r0.json", {BAD: "fail"}, at=T0)), "--now", iso(T0))
    f.canary("judge", str(f.results("r1.json", {BAD: "fail"}, at=T0 + HALF_HOUR)), "--now", iso(T0 + HALF_HOUR))
    with f.audit.open("a", encoding="utf-8") as handle:
        handle.write(f'{{"action": "lift", "model": "{MODEL}", "provider": "{BAD}", "time": "yesterday"}}\n')
    listed, err = ignore(f, "--at", iso(T0 + 2 * HALF_HOUR))
    assert listed == [BAD, BUILTIN_TAG]
    assert f"canary ignore: warning: {f.audit}:" in err and ": time: expected an ISO 8601 time" in err
