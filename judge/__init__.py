"""Pure judging: reply checks (language, refusal, structured) and the suspension rules.

Nothing in this package touches the network, the clock, files or pytest: data in, decision out.
"""
