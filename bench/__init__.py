"""Benchmarks (`make bench`): programs that measure and write results, never timed tests."""
