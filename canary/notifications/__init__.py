"""Telling people: Apprise notifications, the dead-man's-switch heartbeat.

`canary.notifications.send.send(doc, urls, audit_path)` delivers one round's decisions to
every configured service; `canary.notifications.heartbeat.ping()` tells a healthchecks-style
monitor that a round was judged. Both are never fatal and never print a URL.
"""
