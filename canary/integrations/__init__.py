"""Telling the outside world: notifications (Apprise) and GitHub incident issues."""
