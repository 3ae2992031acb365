"""Former home of the baselines; each benchmark's now live in ``foakit.bench.<name>.baselines``."""
