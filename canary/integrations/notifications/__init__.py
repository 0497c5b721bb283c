"""Telling people: Apprise notifications, the daily digest, the heartbeat; never fatal, never printing a URL."""
