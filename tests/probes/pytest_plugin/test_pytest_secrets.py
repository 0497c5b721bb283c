"""The root conftest's last line of defence: a key that leaks into a failure never reaches a report."""

from __future__ import annotations

import pytest

SENTINEL = "sk-or-v1-SENTINEL-secrets-0123456789"  # dashes: never a real key


def test_a_key_in_a_failure_and_in_captured_output_is_masked(pytester: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", SENTINEL)
    pytester.makepyfile(f"""
        def test_leaky():
            print("talking to upstream with {SENTINEL}")
            assert "{SENTINEL}" == "something else"
    """)
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest("-p", "probes.pytest_plugin.secrets", f"--junitxml={junit}", "-rA")
    result.assert_outcomes(failed=1)
    assert SENTINEL not in result.stdout.str()
    assert SENTINEL not in junit.read_text(encoding="utf-8")
    assert "***" in result.stdout.str()


def test_the_header_names_the_upstream_but_never_the_key(pytester: pytest.Pytester,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", SENTINEL)
    monkeypatch.setenv("OPENROUTER_BASE_URL", "http://127.0.0.1:9/api/v1")
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest("-p", "probes.pytest_plugin.secrets")
    result.stdout.fnmatch_lines(["canary: OPENROUTER_BASE_URL=http://127.0.0.1:9/api/v1, OPENROUTER_API_KEY set"])
    assert SENTINEL not in result.stdout.str()


def test_a_piece_of_the_key_its_upper_case_and_its_base64_in_a_failure_are_masked(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 31: a message cut before it was scrubbed kept most of the key, which a whole-key match misses.
    import base64

    monkeypatch.setenv("OPENROUTER_API_KEY", SENTINEL)
    piece, shouted = SENTINEL[:30], SENTINEL.upper()
    encoded = base64.b64encode(f"Bearer {SENTINEL}".encode()).decode()
    pytester.makepyfile(f"""
        def test_leaky():
            print("upstream said: {piece}... and {shouted}")
            assert "{encoded}" == "something else"
    """)
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest("-p", "probes.pytest_plugin.secrets", f"--junitxml={junit}", "-rA")
    result.assert_outcomes(failed=1)
    for text in (result.stdout.str(), junit.read_text(encoding="utf-8")):
        assert SENTINEL[:16] not in text and SENTINEL[:16].upper() not in text and encoded[12:40] not in text
