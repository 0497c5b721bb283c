"""Telling people: Apprise notifications, the dead-man's-switch heartbeat.

`canary.integrations.notifications.send.send(doc, urls, audit_path)` delivers one round's decisions to
every configured service; `canary.integrations.notifications.heartbeat.ping()` tells a healthchecks-style
monitor that a round was judged. Both are never fatal and never print a URL.
"""
