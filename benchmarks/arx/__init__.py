"""ARX 3.9.2 as the baseline of the search benchmark (see docs/benchmarks.md)."""
