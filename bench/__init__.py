"""Benchmarks: run them as scripts (`make bench`)."""
