"""Subcommands of `canary`: each module defines one click command (or group); canary/cli/main.py lists them."""
