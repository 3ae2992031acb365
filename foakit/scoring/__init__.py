"""Former home of the scorers; each benchmark's now live in ``foakit.bench.<name>.scoring``."""
