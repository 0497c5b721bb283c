"""Round history: every judged round kept as evidence and for display, never needed to judge.

Layers (one job per module):

    pure   rows.py       results.json + decisions.json -> RoundRecord (CaseRow, DecisionRow);
                         `case_row()` is the one adapter that reads a results case
           aggregate.py  endpoint round classes, histograms, daily aggregates (compaction)
           codec.py      columnar JSON + xz: the bytes of a history file
           files.py      RoundRecord / DayAggregate <-> file documents
           tiers.py      healthy / degraded / failing / suspended per endpoint (display only)
           past.py       the effective provider.ignore at a past moment, from the audit log
           observe.py    the would-suspends of a window and what happened next
    I/O    store.py      the folder layout, append (idempotent), compaction, reading a span
           db.py         an in-memory SQLite database of a span
           query.py      `History`: the typed queries below
           recorder.py   the judge's hook (a failure is a warning, never fatal) and backfill

Query API for the status page and `canary history` (one form of each query, every endpoint at once;
every value is a frozen dataclass from query.py)::

    from canary.history.query import History
    h = History.open(config.paths.history, now=now, days=31)   # load the last 31 days
    h.current(ttft_threshold_s=10.0)        -> tuple[EndpointNow]    tier now, last round, until
    h.timelines(days=7)                     -> {(model, provider): tuple[TimelinePoint]}  per round:
                                                                     failed|clean|frozen, codes
    h.ttft_series(days=7, bucket_hours=1)   -> {(model, provider): tuple[SeriesPoint]}  TTFT p50/p95, tokens/s
    h.daily_series()                        -> {(model, provider): tuple[DayPoint]}  per day, compacted days too
    h.pass_rates((1, 7), model=None)        -> {window: tuple[PassRate]}  per contract, 95 % Wilson interval
    h.latency((1, 7), model=None)           -> {window: tuple[Latency]}   TTFT p50/p95, tokens/s p50
    h.summary((1, 7, 30), model=None)       -> tuple[EndpointSummary] what `canary history` prints
    h.language_grid(model, days=7)          -> tuple[GridCell]       provider x language of the language contract
    h.latest_decisions(limit=20, days=30)   -> tuple[DecisionEntry]  newest first, with evidence
    h.newest_round()                        -> RoundInfo | None      its time: the age of the data
    h.active_suspensions()                  -> {(model, provider): mode}
    h.classes_between(model, provider, start, end), h.contract_failures(round_id, model)
    h.db                                    the sqlite3 connection (tables: db.py) for anything else

Windows end at `now` and are in days (0.25 = the last 6 hours); which cases the TTFT percentiles and
tokens/s are of: docs/history.md (reading it) and query.TPS_CONTRACT.
"""
