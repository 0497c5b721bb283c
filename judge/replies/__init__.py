"""Reply checks: one reply (its text, finish, usage, deltas) in, a Verdict out. Pure.

Never imports judge.suspension: a reply is judged without knowing the rules that act on it.
"""
