"""Subcommands of `canary`: each module exposes register(subparsers). See canary/cli/main.py."""
