"""Pieces shared by the command modules (not a command itself)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO

from ..conventions import CHANNEL_ORDERS, NORMALISATIONS

#: The options several commands share, each declared once: ``(flags, argparse keywords)``.
#: A command takes the ones it needs with :func:`add_shared_options`, overriding only what
#: differs for it (``-o``'s metavar and help, whether it is required).
SHARED_OPTIONS: dict[str, tuple[tuple[str, ...], dict]] = {
    "out": (("-o", "--out"), {"metavar": "DIR", "help": "output folder"}),
    "workers": (("--workers",), {"type": int, "default": None,
                                 "help": "worker processes (default: all cores)"}),
    "no_progress": (("--no-progress",), {"action": "store_true", "help": "no progress bar"}),
    "retry_errors": (("--retry-errors",), {
        "action": "store_true",
        "help": "analyse again the files an earlier run in the same output folder recorded "
        "as failed"}),
    "channel_order": (("--channel-order",), {
        "choices": CHANNEL_ORDERS, "default": "ambix",
        "help": "channel order of 4-channel files (default: ambix = ACN W,Y,Z,X SN3D)"}),
    "normalisation": (("--normalisation",), {
        "choices": NORMALISATIONS, "default": None,
        "help": "normalisation of 4-channel files, converted to SN3D when read: sn3d, n3d "
        "(dipoles sqrt(3) x SN3D) or fuma (W at -3 dB) (default: the channel order's own, "
        "sn3d for ambix, fuma for fuma)"}),
    "no_figures": (("--no-figures",), {"action": "store_true", "help": "write no figures"}),
    "max_figures": (("--max-figures",), {
        "type": int, "default": None, "metavar": "N",
        "help": "figures for at most N flags, the most confident (default: all)"}),
    "dask": (("--dask",), {
        "metavar": "CLUSTER", "default": None,
        "help": "run the per-clip work on Dask: local[:N] (a LocalCluster of N "
        "single-threaded worker processes, default one per core), tcp://HOST:PORT (a "
        "running scheduler) or a scheduler file; the workers must see the audio at the "
        "same paths and the output folder on storage every worker sees (needs "
        "foakit[dask])"}),
    "dask_dashboard": (("--dask-dashboard",), {
        "action": "store_true",
        "help": "with --dask local[:N]: serve the cluster's dashboard (needs bokeh; about "
        "0.5 s of the client's CPU at start); a running scheduler serves its own"}),
}


def add_shared_options(p: argparse.ArgumentParser, *names: str, **overrides: dict) -> None:
    """Add the :data:`SHARED_OPTIONS` called ``names`` to ``p``, in that order.

    ``overrides`` maps an option's name to the argparse keywords that differ for this
    command, e.g. ``out={"required": True, "metavar": "ANSWERS", "help": "answers JSONL"}``.
    """
    unknown = sorted(set(names).union(overrides) - set(SHARED_OPTIONS))
    if unknown:
        raise ValueError(f"{unknown=} are not shared options ({sorted(SHARED_OPTIONS)})")
    for name in names:
        flags, kwargs = SHARED_OPTIONS[name]
        p.add_argument(*flags, **{**kwargs, **overrides.get(name, {})})


def require_counts(args: argparse.Namespace, prog: str) -> int | None:
    """2, after a one-line ``PROG: error: ...`` on stderr, when ``--workers`` is below 1 or
    ``--max-figures`` below 0 (either option may be absent from the command); else None."""
    workers, max_figures = getattr(args, "workers", None), getattr(args, "max_figures", None)
    if workers is not None and workers < 1:
        msg = f"--workers {workers} must be >= 1"
    elif max_figures is not None and max_figures < 0:
        msg = f"--max-figures {max_figures} must be >= 0"
    else:
        return None
    print(f"{prog}: error: {msg}", file=sys.stderr)
    return 2


def notice(prefix: str) -> Callable[[str], None]:
    """A ``notify`` callback that prints one line on stderr."""

    def say(message: str) -> None:
        print(f"{prefix}: {message}", file=sys.stderr, flush=True)

    return say


def print_capped(lines: Iterable[str], *, prefix: str, more_prefix: str | None = None,
                 where: str | None = None, limit: int = 20, file: TextIO | None = None) -> None:
    """Print the first ``limit`` of ``lines`` (each after ``prefix``) on stderr, then how many
    more there are (after ``more_prefix``, default ``prefix``) and ``where`` they are listed."""
    lines = list(lines)
    out = file if file is not None else sys.stderr
    for line in lines[:limit]:
        print(f"{prefix}{line}", file=out)
    if len(lines) > limit:
        more = prefix if more_prefix is None else more_prefix
        print(f"{more}... {len(lines) - limit} more" + (f" in {where}" if where else ""),
              file=out)


def prestart_dask(args: argparse.Namespace) -> None:
    """Start what a ``--dask local[:N]`` cluster forks its workers from before the command
    imports its own modules (:func:`foakit.dist.prestart`); nothing without the option."""
    spec = getattr(args, "dask", None)
    if spec:
        from ..dist import prestart

        prestart(spec)


@contextlib.contextmanager
def open_dask(args: argparse.Namespace, prog: str) -> Iterator[object | None]:
    """The :class:`foakit.dist.DaskCluster` of ``args.dask`` (None without the option),
    with its scheduler and dashboard addresses printed to stderr; closed on exit.

    Pass what it yields as ``dask=`` to ``analyze_corpus`` / ``estimate_clips`` (None keeps
    the local pool).
    """
    spec = getattr(args, "dask", None)
    if not spec:
        yield None
        return
    from ..dist import DaskCluster

    with DaskCluster(spec, dashboard=getattr(args, "dask_dashboard", False)) as cluster:
        link = cluster.dashboard_link or (
            "none (the scheduler serves none)" if cluster.kind != "local" else
            "none (--dask-dashboard serves one; needs bokeh)")
        print(f"{prog}: Dask scheduler {cluster.address} "
              f"({cluster.n_threads()} worker threads), dashboard {link}", file=sys.stderr)
        yield cluster


def add_registered_command(sub: argparse._SubParsersAction, name: str, hook: str, *,
                           help: str, description: str) -> argparse.ArgumentParser:
    """A command with one sub-command per registered benchmark (``foakit score sobench``).

    Every benchmark of :data:`foakit.bench.BENCHMARKS` whose ``cli`` module has the function
    ``hook`` adds its sub-parser with it; that parser sets ``func`` (or ``benchmark_run``).
    """
    from ..bench import cli_modules

    p = sub.add_parser(name, help=help, description=description)
    bench = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    for _, module in cli_modules():
        add = getattr(module, hook, None)
        if add is not None:
            add(bench)
    p.set_defaults(func=run_benchmark, _parser=p)
    return p


def run_benchmark(args: argparse.Namespace) -> int:
    """Run the chosen benchmark's handler; 2 (with the help) when none was named."""
    handler = getattr(args, "benchmark_run", None)
    if handler is None:
        args._parser.print_help(sys.stderr)
        return 2
    return int(handler(args))
