"""``foakit baseline <benchmark> ...``: reference answers in a benchmark's own format.

One sub-command per registered benchmark (:data:`foakit.bench.BENCHMARKS`), added by its
``cli.add_baseline``.  Exit status: 0 every item answered from its audio (or from the
labels), 1 some items abstained because their audio was missing, broken or refused (listed
on stderr; the predictions file is still complete), 2 usage error.
"""

from __future__ import annotations

import argparse

from .common import add_registered_command


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``baseline`` and its per-benchmark sub-commands to the ``foakit`` parser."""
    add_registered_command(
        sub, "baseline", "add_baseline", help="reference predictions for a benchmark",
        description="Write a benchmark's predictions file from a baseline: oracle (labels), "
        "prior / chance (trivial answers) or dsp (signal analysis).")
