"""One package per benchmark, and the registry the CLI iterates.

Each ``foakit.bench.<name>`` package holds one benchmark's formats and loader, synthetic
corpus writer, baselines, scoring, audit and error injection.  Its ``cli`` module adds the
benchmark's sub-commands through any of these functions, each given the sub-parsers of one
``foakit`` command and adding one parser named after the benchmark:

===================== ===========================
function              command
===================== ===========================
``add_baseline(sub)`` ``foakit baseline <name>``
``add_score(sub)``    ``foakit score <name>``
``add_audit(sub)``    ``foakit audit <name>``
``add_judge_requests(sub)`` ``foakit judge-requests <name>``
===================== ===========================

A ``cli`` module imports only the standard library at its top (``foakit --help`` imports
every one); the work is imported when a command runs.  Adding a benchmark means adding its
folder and its name to :data:`BENCHMARKS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType

__all__ = ["BENCHMARKS", "cli_modules"]

#: Registered benchmarks, in the order ``foakit <command> --help`` lists them.
BENCHMARKS: tuple[str, ...] = (
    "sobench",
    "starss",
    "rmsaqa",
    "airbench",
    "halluaudio",
)


def cli_modules() -> Iterator[tuple[str, ModuleType]]:
    """``(name, foakit.bench.<name>.cli)`` for every registered benchmark."""
    for name in BENCHMARKS:
        yield name, importlib.import_module(f"{__name__}.{name}.cli")
