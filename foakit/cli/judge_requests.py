"""``foakit judge-requests <benchmark> ...``: the requests an LLM judge would be sent.

One sub-command per registered benchmark whose ``cli`` has ``add_judge_requests``.  foakit
calls no API: the requests are written to a file for the user's own judge run.
"""

from __future__ import annotations

import argparse

from .common import add_registered_command


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``judge-requests`` and its per-benchmark sub-commands to the ``foakit`` parser."""
    add_registered_command(
        sub, "judge-requests", "add_judge_requests",
        help="write LLM-judge requests for a benchmark (nothing is sent)",
        description="Write one judge request per item (and order) in a JSONL file; foakit "
        "sends nothing anywhere.")
