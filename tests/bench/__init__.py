"""Benchmarks: ``make bench`` (``python -m tests.bench``) prints timings as numbers.

They are measurements, not tests: nothing here asserts a time.
"""
