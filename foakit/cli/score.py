"""``foakit score <benchmark> ...``: local scoring by each benchmark's official rules.

One sub-command per registered benchmark (:data:`foakit.bench.BENCHMARKS`), added by its
``cli.add_score``.  Exit status: 0 every item had exactly one prediction, 1 some were
missing, duplicated or matched no item (reported; the missing count as wrong), 2 usage or
format error.
"""

from __future__ import annotations

import argparse

from .common import add_registered_command


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``score`` and its per-benchmark sub-commands to the ``foakit`` parser."""
    add_registered_command(
        sub, "score", "add_score", help="score a benchmark's predictions locally",
        description="Score a predictions file by a benchmark's official rules.")
