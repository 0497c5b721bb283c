"""Incidents as GitHub issues: one issue per model x endpoint that canary suspends (or would).

markers.py (the hidden marker), render.py (issue and comment text), plan.py (decisions +
existing issues -> operations, pure), client.py (the REST API subset, GitHub's retry rules),
sync.py (find, plan, apply, report), excerpts.py (reply excerpts from results.json).
The command is `canary issues sync` (canary/cli/commands/issues.py).
"""
