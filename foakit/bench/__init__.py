"""Benchmark file formats: each module knows one benchmark's files, nothing of kernels."""
