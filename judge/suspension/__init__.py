"""The suspension rules (docs/judge.md): a round's verdicts and the state in, the new state and decisions out. Pure."""
