"""One case whose probe raises (a judge bug a hostile reply found) ends as its own transport error.

The round goes on: the endpoint's other cases keep their verdicts, and the exception's message,
scrubbed of the key, is the case's reason (a round whose cases have no result is cut short, and
then no streak of any host moves).
"""

from __future__ import annotations

from round_support import MODEL, SENTINEL_KEY, endpoint, scenario

from core.config import ProbeSettings
from core.upstream import Upstream
from core.vocabulary import Outcome
from judge.replies.verdict import Verdict
from probes.http.records import Endpoint
from probes.round.cases import Case
from probes.round.engine import Engine
from simulator import scenario_from_dict, start_simulator

PROBE = ProbeSettings(max_tokens=120, language_confirmations=1,
                      temperature=0.7)


class ExplodingLanguage:
    """A language judge that raises on every reply, with the key in its message."""

    def warm_up(self) -> None:
        pass

    def assess(self, text: str, language: str) -> Verdict:
        raise RecursionError(f"maximum recursion depth exceeded near {SENTINEL_KEY}")


def test_a_probe_that_raises_is_that_cases_transport_error_and_the_others_are_judged() -> None:
    with start_simulator(scenario_from_dict(scenario(endpoint("ok/fp8"))), seed=1) as sim:
        pinned = Endpoint(model=MODEL, provider="ok/fp8", provider_name="Ok", quantization=None,
                          supported_parameters=("max_tokens", "temperature", "seed", "response_format",
                                                "structured_outputs"),
                          # round_support's listing: billing honesty judges usage.cost against it.
                          prompt_price=3e-7, completion_price=1e-6, context_length=None,
                          max_completion_tokens=None, status=0)
        cases = [Case(MODEL, "language", pinned, language="pt"), Case(MODEL, "latency", pinned)]
        engine = Engine(client_settings=Upstream(base_url=sim.base_url, api_key=SENTINEL_KEY), probe=PROBE,
                        overall=4, per_provider=4, control_cases={}, missing_controls={},
                        language_backend=ExplodingLanguage()).start(cases)
        try:
            language, latency = (engine.result(c, timeout=60) for c in cases)
        finally:
            engine.close()

    assert language.outcome is Outcome.TRANSPORT_ERROR
    assert "RecursionError" in language.reason and SENTINEL_KEY not in language.reason
    assert latency.outcome is Outcome.PASS
