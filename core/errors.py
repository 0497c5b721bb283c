"""Every error canary raises on purpose, in one tree. The message says what is wrong and what to do.

    CanaryError                       the root (core/errors.py): catch it to catch any of them
    ├── ConfigError                   canary.yaml holds a value canary cannot use (core/config.py)
    ├── InputError                    a file or document canary refuses to read
    │   ├── StoreError                  one of canary's own files cannot be read or written (core/store.py)
    │   │   └── IgnoreUnavailable         a provider.ignore layer never read successfully (provider_ignore/__init__.py)
    │   ├── ResultsError                a results.json the round record refuses (core/results.py)
    │   ├── TimeFormatError             not an ISO 8601 time (core/times.py)
    │   ├── StateError                  state JSON that is not in the expected shape (judge/suspension/state.py)
    │   ├── DecisionsError              a decisions.json the judge's record refuses (judge/suspension/decisions.py)
    │   ├── TooDeep                     upstream JSON nested past MAX_JSON_DEPTH (core/untrusted.py)
    │   ├── Invalid                     a file declaration's own check refused a value (core/schema.py)
    │   ├── HistoryError                a history round or file (canary/history/rows.py)
    │   ├── AuditError                  an audit log line of another shape (canary/state/audit.py)
    │   ├── SnapshotError               a discovery snapshot canary refuses to replay (probes/round/planning.py)
    │   └── ProductionError             a production record that breaks its format (core/production.py)
    ├── RuleError                     the judge refuses what it was asked to do
    │   ├── RoundOrderError             a round older than the last applied one (judge/suspension/rules.py)
    │   ├── LiftError                   a lift of an endpoint that is not suspended (judge/suspension/rules.py)
    │   └── PolicyError                 a Policy built in code breaks canary.yaml's rules (core/policy.py)
    ├── UpstreamError                 the upstream (OpenRouter or a simulator) cannot be used
    │   ├── MissingKeyError             no OPENROUTER_API_KEY inside GitHub Actions (core/upstream.py)
    │   ├── TransportError              a request that never got an answer (probes/http/client.py)
    │   ├── SSEError                    a reply stream past the SSE framing limits (probes/http/sse.py)
    │   ├── DiscoveryError              a model's endpoints cannot be trusted (probes/http/discovery.py)
    │   └── SimulatorStartError         the bundled simulator's process did not start (simulator/process.py)
    ├── RoundRefused                  the probe or the judge refused to run, exit code and all (canary/round/refusal.py)
    ├── CommitBackError               commit-back gave up (canary/state/commit_back.py)
    ├── PushError                     GitHub refused a production record's push (provider_ignore/push.py)
    ├── AllureError                   the Allure HTML report cannot be rendered (canary/outputs/allure_html.py)
    ├── SiteError                     the status page cannot be built (canary/outputs/site/build.py)
    ├── GitHubError                   the GitHub API refused or failed (canary/integrations/github_issues/client.py)
    │   └── RateLimited                 ...said to wait past the budget (canary/integrations/github_issues/client.py)
    └── SimulatorError                the bundled simulator refuses its input (simulator/)
        ├── ScenarioError               a scenario file (simulator/scenario.py)
        ├── BankError                   a text bank (simulator/banks.py)
        └── BadRequest                  a chat request it cannot serve (simulator/request.py)

Each class lives in the module named beside it, next to the code that raises it; the roots of
the branches (CanaryError, InputError, RuleError, UpstreamError, SimulatorError) are defined
here. `ConfigError` and every `InputError`, `RuleError` and `SimulatorError` are also
ValueErrors, and `CommitBackError` and `SimulatorStartError` RuntimeErrors, as they always were,
so an `except ValueError` around a parser (or an `except RuntimeError` around a process) keeps
working. canary/cli/main.py catches CanaryError once for
every command (a RoundRefused ends it with the exit code it carries).
tests/test_errors.py checks this drawing against the classes themselves (each drawn class has
the drawn parent, and no class derives from a drawn one without being drawn).

Not in the tree, on purpose: how a probe case ends as pytest sees it (probes/pytest_plugin/outcomes.py:
ContractViolation is an AssertionError, so pytest reports a failed contract as *failed*;
HostUnreachable and RoundIncomplete are *errors*), and the private exceptions a module uses to
leave a block (a leading underscore: judge/replies/structured.py's, probes/pytest_plugin/reporting.py's).
tests/test_errors.py refuses any other exception class outside the tree.
"""

from __future__ import annotations


class CanaryError(Exception):
    """An error canary raises on purpose: the message names the thing and says what to do."""


class InputError(CanaryError, ValueError):
    """A file or document canary refuses to read; the message names it and the field."""


class RuleError(CanaryError, ValueError):
    """The judge refuses what it was asked to do (nothing was changed)."""


class UpstreamError(CanaryError):
    """The upstream (OpenRouter, or a simulator) cannot be used."""


class SimulatorError(CanaryError, ValueError):
    """The bundled simulator refuses its input (a scenario, a text bank, a request)."""
