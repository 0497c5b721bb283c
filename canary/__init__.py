"""canary: the application shell (configuration, commands, files) around probes/ and judge/."""
