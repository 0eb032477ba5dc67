"""Baseline models of the retry-storm workload, used to put the engine's wall time in proportion."""
