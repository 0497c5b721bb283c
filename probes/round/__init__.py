"""Planning and running one round, without pytest: the settled settings (settings), the round in
one process (lifecycle: Round), its record (record), discovery into a plan (planning), the cases
and their results (cases), the concurrent engine (engine), the positive-control hand-off
(controls), the shared language detector (language_service), the checks of every completed reply
(reply_checks), and the contracts (contracts/: the four every model runs, then the optional tools,
stop and fidelity; each declared in core/vocabulary.py) with their prompts (prompts/)."""
