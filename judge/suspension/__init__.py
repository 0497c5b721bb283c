"""The suspension rules: a round's verdicts and the judge's state in, the new state and the
decisions out (streaks, the time rules, the ladder, evidence against peers, exclusions). Pure.
"""
