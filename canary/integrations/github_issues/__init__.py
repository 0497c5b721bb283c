"""Incidents as GitHub issues: one issue per model x endpoint that canary suspends (or would); `canary issues sync`."""
