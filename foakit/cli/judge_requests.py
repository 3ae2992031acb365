"""``foakit judge-requests <benchmark> ROOT RESPONSES.jsonl -o requests.jsonl``: the requests
an LLM judge needs for a benchmark's open cases (scorer-side evidence, never model input).

One sub-command per benchmark in ``_BENCHMARKS``.  Exit status: 0 every open case had a
response, 1 some had none or lines were bad (reported), 2 usage or format error.
"""

from __future__ import annotations

import argparse

from ..bench.halluaudio.cli import add_judge_requests as _add_halluaudio
from .common import add_benchmark_command

_BENCHMARKS = (_add_halluaudio,)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``judge-requests`` and its per-benchmark sub-commands to the ``foakit`` parser."""
    add_benchmark_command(sub, "judge-requests", help="judge requests for open cases",
                          description="Write one LLM-judge request per open case of a "
                          "benchmark with a model response.", benchmarks=_BENCHMARKS)
