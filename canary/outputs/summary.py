"""The round summary as Markdown (the job summary) or plain text (the terminal): pure functions of the
round record and the judge's (None before the judge has run). Every upstream string goes through
core.untrusted first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from canary.outputs.roundview import WEAK_EVIDENCE, Cell, RoundView, build_view
from core import untrusted
from core.results import RoundResults
from core.vocabulary import REFUSAL
from judge.suspension.decisions import RoundDecisions, action_named
from judge.suspension.production import shown
from judge.suspension.route_audit import leak_line

SYMBOLS = {"pass": "✅", "fail": "❌", "inconclusive": "⏸", "transport_error": "⚡", "not_applicable": "—"}
WORDS = {"pass": "pass", "fail": "FAIL", "inconclusive": "inconcl", "transport_error": "transport",
         "not_applicable": "n/a"}
LEGEND = ("✅ pass · ❌ fail · ⏸ inconclusive · ⚡ transport error (freezes the streak) · "
          "— not applicable · ᶜ positive control (the refusal probe on a host known to filter: ✅ = the "
          "probe caught the filter, so it works) · "
          "blank: not probed")

# Bounds on upstream text: a reason is a sentence, a tag a short slug. The job summary is
# capped at 1 MiB by GitHub, so the list of failing cases is capped too.
REASON_LIMIT = 120
TAG_LIMIT = 60
MODEL_LIMIT = 100
FINDINGS_LIMIT = 50


def to_markdown(results: RoundResults, decisions: RoundDecisions | None = None) -> str:
    """The round summary in GitHub-flavoured Markdown."""
    view = build_view(results, decisions)
    md = untrusted.markdown
    out = [f"## Canary round {md(view.round_id or '?', 200)}", "", _headline(view, md), ""]
    for note in _notes(view):
        out += [f"> ⚠️ {md(note, 400)}", ""]
    for model, rows in _by_model(view):
        out += [f"### {md(model, MODEL_LIMIT)}", ""]
        out.append("| Provider | " + " | ".join(view.contracts) + " | TTFT |")
        out.append("|---" * (len(view.contracts) + 2) + "|")
        for row in rows:
            cells = [_symbol(row.cells.get(c)) for c in view.contracts]
            out.append(f"| {md(row.provider, TAG_LIMIT)} | " + " | ".join(cells) + f" | {_seconds(row.ttft_s)} |")
        out.append("")
    out += [f"Legend: {LEGEND}", ""]
    findings = _findings(view)
    if findings:
        out += ["### Not passing", "", "| Model | Provider | Contract | Outcome | Reason |", "|---|---|---|---|---|"]
        out += [f"| {md(m, MODEL_LIMIT)} | {md(p, TAG_LIMIT)} | {md(c, 40)} | {_symbol(cell)} {md(cell.outcome, 40)}"
                f" | {md(cell.reason, REASON_LIMIT)} |" for m, p, c, cell in findings[:FINDINGS_LIMIT]]
        out += _more(len(findings)) + [""]
    if lines := _production(decisions, lambda t, n: f"`{untrusted.clean(t, n).replace('`', chr(39))}`"):
        out += ["#### Production evidence (a chat backend's sampled replies)", "", *(f"- {x}" for x in lines), ""]
    out += _decisions_markdown(view)
    if decisions is not None and decisions.leaks:
        out += ["### Route audit (a chat backend's sampled replies served while excluded)", "",
                *(f"- {md(k.model, MODEL_LIMIT)} {md(leak_line(k), 400)}" for k in decisions.leaks)]
    return "\n".join(out).rstrip() + "\n"


def to_text(results: RoundResults, decisions: RoundDecisions | None = None, pending: Sequence[str] = ()) -> str:
    """The same summary for a terminal: aligned columns, words instead of emoji, no escapes. `pending`:
    the failed streaks not decided yet, said under the decisions (`canary round` reads them in the state)."""
    view = build_view(results, decisions)
    c = untrusted.clean
    out = [f"canary round {c(view.round_id or '?', 200)}", _headline(view, c)]
    out += [f"WARNING: {c(note, 400)}" for note in _notes(view)]
    for model, rows in _by_model(view):
        table = [["provider", *view.contracts, "ttft"]]
        table += [[c(r.provider, TAG_LIMIT), *(_word(r.cells.get(k)) for k in view.contracts), _seconds(r.ttft_s)]
                  for r in rows]
        out += ["", c(model, MODEL_LIMIT), *_aligned(table)]
    findings = _findings(view)
    if findings:
        out += ["", "not passing:"]
        out += _aligned([[c(m, MODEL_LIMIT), c(p, TAG_LIMIT), c(k, 40), _word(cell), c(cell.reason, REASON_LIMIT)]
                         for m, p, k, cell in findings[:FINDINGS_LIMIT]])
        out += _more(len(findings))
    out.append("")
    if view.stale_decisions is not None:
        out.append(f"decisions: the decisions file is for round {c(view.stale_decisions, 200)}, not this one "
                   "(run `canary judge` on this round's results)")
    elif not view.has_decisions:
        out.append("decisions: none yet (run `canary judge reports/results.json`)")
    else:
        out.append(f"decisions this round (mode {c(view.mode or '?', 20)}):")
        out += _aligned([[_label(d.action), c(d.model, MODEL_LIMIT), c(d.provider, TAG_LIMIT),
                          c(d.reason, REASON_LIMIT), f"until {c(d.until, 40)}" if d.until else ""]
                         for d in view.decisions]) or ([] if pending else ["  (none)"])
        out += _cards_text(view) + [f"  {c(line, 400)}" for line in pending]
        out.append("provider.ignore:")
        out += [f"  {c(m, MODEL_LIMIT)}: {_tags(tags, c)}" + _would(view, m, c) for m, tags in _ignore_models(view)]
    if decisions is not None and decisions.leaks:
        out += ["route audit (a chat backend's sampled replies served while excluded):",
                *(f"  {c(k.model, MODEL_LIMIT)} {c(leak_line(k), 400)}" for k in decisions.leaks)]
    if lines := _production(decisions, c):
        out += ["production evidence (a chat backend's sampled replies):", *(f"  {x}" for x in lines)]
    return "\n".join(out).rstrip() + "\n"


def _production(decisions: RoundDecisions | None, esc: Any) -> list[str]:
    """The endpoints with production evidence to read (judge/suspension/production.py), then each
    model's sample rate and exporters once (every endpoint's last line)."""
    return [f"{esc(provider or model, TAG_LIMIT)}: {esc(line, 400)}"
            for model, providers in sorted((decisions.production if decisions else {}).items())
            for provider, line in shown(providers, quiet=False)]


def _headline(view: RoundView, esc: Any) -> str:
    parts = []
    if view.started_at:
        parts.append(f"started {esc(view.started_at, 40)}" + (" (virtual time)" if view.virtual_clock else ""))
    if view.upstream:
        parts.append(f"upstream {esc(view.upstream, 40)}")
    if view.mode:
        parts.append(f"mode {esc(view.mode, 20)}")
    if view.gap_minutes is not None:
        parts.append(f"previous round {_ago(view.gap_minutes)} ago")
    total = sum(view.counts.values())
    counts = ", ".join(f"{n} {esc(o, 40)}" for o, n in sorted(view.counts.items(), key=lambda i: -i[1]))
    parts.append(f"{total} cases" + (f": {counts}" if counts else ""))
    return " · ".join(parts)


def _notes(view: RoundView) -> list[str]:
    """Warnings that change how the rest must be read; plain text, escaped by the caller."""
    notes = []
    if view.gap_warning and view.gap_minutes is not None:
        notes.append(f"previous round {_ago(view.gap_minutes)} ago: GitHub delayed or skipped runs. "
                     "Rounds are still judged in order; a streak whose last counted round is older than "
                     "rules.pending_failure_hours (2 h by default) starts again at its next counted round.")
    if not view.complete:
        why = "; ".join(view.incomplete_reasons) or "no reason given"
        notes.append(f"Incomplete round ({why}): the judge changes no streak for it.")
    if view.key_limit_note:
        notes.append(f"Key limit near: {view.key_limit_note}.")
    for w in view.weak_probes:
        notes.append(f"{w.contract or REFUSAL} probe weak for {w.model}: control {w.control} "
                     f"passed ({w.reason}); passes of that probe are no evidence of health this round.")
    for u in view.unprobed_controls:
        notes.append(f"{u.contract or REFUSAL} probe unverified for {u.model}: positive control "
                     f"{u.reason}. Its passes count as inconclusive (no clean round, no early restore) "
                     "until the control is probed: fix `controls` in canary.yaml.")
    for d in view.decisions:
        if d.weak:
            notes.append(f"{_label(d.action)}: {d.provider} of {d.model} on {WEAK_EVIDENCE} "
                         f"({'; '.join(d.card)}).")
    return notes


def _cards_text(view: RoundView) -> list[str]:
    """Each decision's evidence card under the decisions (terminal)."""
    c = untrusted.clean
    out = []
    for d in view.decisions:
        if d.card:
            out.append(f"  evidence for {c(d.provider, TAG_LIMIT)} ({_label(d.action).split(' (')[0].lower()}):")
            out += [f"    {c(line, 300)}" for line in d.card]
            if d.weak:
                out.append(f"    !!! {WEAK_EVIDENCE}")
    return out


def _cards_markdown(view: RoundView) -> list[str]:
    md = untrusted.markdown
    lines = []
    for d in view.decisions:
        if not d.card:
            continue
        flag = f" ⚠️ **{md(WEAK_EVIDENCE, 400)}**" if d.weak else ""
        lines.append(f"- **{md(d.provider, TAG_LIMIT)}** ({md(_label(d.action), 80)}):{flag}")
        lines += [f"  - `{line.replace('`', chr(39))}`" for line in (untrusted.clean(x, 300) for x in d.card)]
    return ["", "#### Evidence against peers (last 48 counted rounds)", "", *lines] if lines else []


def _decisions_markdown(view: RoundView) -> list[str]:
    md = untrusted.markdown
    if view.stale_decisions is not None:
        return ["### Decisions", "", (f"The decisions file is for round {md(view.stale_decisions, 200)}, not this one: "
                                      "run `canary judge` on this round's results."), ""]
    if not view.has_decisions:
        return ["### Decisions", "", ("No decisions file: run `canary judge` to see this round's decisions "
                                      "and the effective `provider.ignore`."), ""]
    out = [f"### Decisions this round (mode {md(view.mode or '?', 20)})", ""]
    if view.decisions:
        out += ["| Decision | Model | Provider | Reason | Until |", "|---|---|---|---|---|"]
        out += [f"| {md(_label(d.action), 80)}{' ⚠️ weak evidence' if d.weak else ''} | {md(d.model, MODEL_LIMIT)} | "
                f"{md(d.provider, TAG_LIMIT)} | {md(d.reason, REASON_LIMIT)} | {md(d.until or '', 40)} |"
                for d in view.decisions]
        out += _cards_markdown(view)
    else:
        out.append("None: no provider changed state.")
    out += ["", "### Effective provider.ignore", "", "| Model | provider.ignore | Would add in enforce mode |",
            "|---|---|---|"]
    for model, tags in _ignore_models(view):
        out.append(f"| {md(model, MODEL_LIMIT)} | {_tags(tags, md)} | {_tags(view.would_ignore.get(model, ()), md)} |")
    return out + [""]


def _by_model(view: RoundView) -> list[tuple[str, list[Any]]]:
    groups: dict[str, list[Any]] = {}
    for row in view.rows:
        groups.setdefault(row.model, []).append(row)
    return list(groups.items())


def _findings(view: RoundView) -> list[tuple[str, str, str, Cell]]:
    return [(r.model, r.provider, contract, cell) for r in view.rows for contract, cell in r.cells.items()
            if cell.outcome not in ("pass", "not_applicable")]


def _ignore_models(view: RoundView) -> list[tuple[str, tuple[str, ...]]]:
    models = sorted({r.model for r in view.rows} | set(view.ignore) | set(view.would_ignore))
    return [(m, view.ignore.get(m, ())) for m in models]


def _would(view: RoundView, model: str, esc: Any) -> str:
    extra = view.would_ignore.get(model, ())
    return f"   (would add in enforce mode: {_tags(extra, esc)})" if extra else ""


def _tags(tags: tuple[str, ...], esc: Any) -> str:
    return ", ".join(esc(t, TAG_LIMIT) for t in tags) if tags else "(none)"


def _symbol(cell: Cell | None) -> str:
    if cell is None:
        return ""
    return SYMBOLS.get(cell.outcome, "?") + ("ᶜ" if cell.control else "")


def _word(cell: Cell | None) -> str:
    if cell is None:
        return ""
    return WORDS.get(cell.outcome, "?") + (" (c)" if cell.control else "")


def _label(action: str) -> str:
    named = action_named(action)
    return named.heading if named is not None else action


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} s"


def _ago(minutes: float) -> str:
    if minutes < 120:
        return f"{round(minutes)} min"
    hours = minutes / 60
    return f"{round(hours)} h" if hours < 48 else f"{hours / 24:.1f} d"


def _more(total: int) -> list[str]:
    hidden = total - FINDINGS_LIMIT
    return [f"… and {hidden} more: see the Allure report or reports/results.json"] if hidden > 0 else []


def _aligned(table: list[list[str]]) -> list[str]:
    if not table:
        return []
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)).rstrip() for row in table]
