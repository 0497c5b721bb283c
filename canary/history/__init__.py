"""Round history: every judged round kept as evidence and for display, never needed to judge.

Layers (one job per module):

    pure   rows.py       results.json + decisions.json -> RoundRecord (CaseRow, DecisionRow);
                         `case_row()` is the one adapter that reads a results case
           stats.py      percentiles; the Wilson and exact (Clopper-Pearson) intervals and the exact
                         binomial tail are judge.suspension.stats' (scipy.stats, one library for both)
           aggregate.py  endpoint round classes, histograms, daily aggregates (compaction)
           codec.py      columnar JSON + xz: the bytes of a history file
           files.py      RoundRecord / DayAggregate <-> file documents
           tiers.py      healthy / degraded / failing / suspended per endpoint (display only)
           past.py       the effective provider.ignore at a past moment, from the audit log
           observe.py    the would-suspends of a window and what happened next
    I/O    store.py      the folder layout, append (idempotent), compaction, reading a span
           db.py         an in-memory SQLite database of a span
           cache.py      the decoded-rounds cache (opt-in: CANARY_HISTORY_CACHE), file rows on disk
           query.py      `History`: the typed queries below
           recorder.py   the judge's hook (a failure is a warning, never fatal) and backfill

The judge's rules (judge/) and their state never read any of this.

Query API for the status page (stable; every value is a frozen dataclass from query.py)::

    from canary.history.query import History
    h = History.open(config.paths.history, now=now, days=31)   # load the last 31 days (cache=DIR: cache.py)
    h.current(ttft_threshold_s=10.0)        -> tuple[EndpointNow]    tier now, last round, until
    h.timeline(model, provider, days=7)     -> tuple[TimelinePoint]  per round: failed|clean|frozen, codes
    h.ttft_series(model, provider, days=7, bucket_hours=1) -> tuple[SeriesPoint]  TTFT p50/p95, tokens/s
    h.daily_series(model, provider)         -> tuple[DayPoint]       per day, compacted days included
    h.timelines(days), h.ttft_series_all(days, bucket_hours), h.daily_series_all()
                                            -> {(model, provider): ...}  the same for every endpoint at once
    h.pass_rates(window_days, model=None)   -> tuple[PassRate]       per contract, 95 % Wilson interval
    h.latency(window_days, model=None)      -> tuple[Latency]        TTFT p50/p95, tokens/s p50
    h.summary((1, 7, 30), model=None)       -> tuple[EndpointSummary] what `canary history` prints
    h.language_grid(model, days=7)          -> tuple[GridCell]       provider x language of the language contract
    h.latest_decisions(limit=20, days=30)   -> tuple[DecisionEntry]  newest first, with evidence
    h.newest_round()                        -> RoundInfo | None      its time: the age of the data
    h.active_suspensions()                  -> {(model, provider): (mode, until)}
    h.classes_between(model, provider, start, end), h.contract_failures(round_id, model)
    h.db                                    the sqlite3 connection (tables: db.py) for anything else

Windows end at `now` and are in days (0.25 = the last 6 hours). TTFT percentiles are of the
latency contract's cases (what its threshold judges); tokens per second (output tokens /
(end - first token), rows.py) of the refusal contract's cases: the same long request to every host
every round, so hosts and days compare like with like (query.TPS_CONTRACT).
"""
