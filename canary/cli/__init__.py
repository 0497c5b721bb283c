"""The command line: `canary` (main.py) and one module per subcommand (commands/)."""
