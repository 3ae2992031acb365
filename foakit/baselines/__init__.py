"""Reference answers for benchmarks: oracle (upper bound), prior (floor) and DSP (blind)."""
