"""Round orchestration as functions: probe (run_probe), judge (run_judge), a whole local round."""
