"""``foakit judge-requests <benchmark> ...``: write LLM-judge requests; nothing is sent."""

from __future__ import annotations

import argparse

from .common import add_benchmark_command


def _add_airbench(sub: argparse._SubParsersAction) -> None:
    from ..bench.airbench.cli import add_judge_requests

    add_judge_requests(sub)


def _add_halluaudio(sub: argparse._SubParsersAction) -> None:
    from ..bench.halluaudio.cli import add_judge_requests

    add_judge_requests(sub)


_BENCHMARKS = (_add_airbench, _add_halluaudio)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``judge-requests`` and its per-benchmark sub-commands."""
    add_benchmark_command(sub, "judge-requests", help="write LLM-judge requests (nothing is "
                          "sent)", description="Write a benchmark's judge requests as JSON "
                          "lines for your own judge client.", benchmarks=_BENCHMARKS)
