"""Local scoring of benchmark predictions by each benchmark's official rules."""
