"""Command line: ``foakit <command> ...``.

Each command lives in its own module exposing ``register(subparsers)`` (adds its parser and
sets ``func``) and a ``run(args) -> int``.  Library code never prints or exits; these modules
do.  Exit status: 0 success, 1 some inputs failed (reported), 2 usage error.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys

from .. import __version__
from ..errors import FoakitError

# One module per command, registered in this order in ``foakit --help``.
_COMMANDS = ("analyze", "demo", "info", "baseline", "score", "audit", "judge_requests")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="foakit",
        description="First-order ambisonics (FOA) analysis at corpus scale.",
    )
    parser.add_argument("--version", action="version", version=f"foakit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


# Commands with a ``--dask`` option (see _prestart_dask).
_DASK_COMMANDS = ("analyze", "audit", "baseline")

# Commands whose process may end without the interpreter's teardown (see main).
_EXIT_AT_ONCE = ("analyze",)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``foakit`` command; returns the exit status.

    With ``argv`` None (this process's own command line), ``foakit analyze`` does not
    return: once its outputs are written and its workers joined, the atexit handlers run,
    stdout / stderr are flushed and the process exits at once, skipping the interpreter's
    teardown of the ~650 modules NumPy, Numba and pyarrow loaded (30-60 ms of every run).
    """
    command: list[str] = []
    status = _run(argv, command)
    if argv is None:
        # the program is about to exit: keep the ~100k objects Numba, SciPy and pyarrow hold
        # out of the interpreter's final garbage collections (0.25 s of every run)
        gc.freeze()
        if command and command[0] in _EXIT_AT_ONCE:
            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError, AttributeError):
                    pass
            os._exit(status)
    return status


def _prestart_dask(argv: list[str] | None) -> None:
    """For ``foakit analyze|audit|baseline ... --dask local[:N]``, start the workers' fork
    server (:func:`foakit.dist.prestart`) before the parser imports every command's
    modules (some 0.1 s), so that more of the server's loading overlaps this process's
    work.  Reads the option alone and never fails: the full parser still checks the
    command line."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] not in _DASK_COMMANDS:
        return
    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    pre.add_argument("--dask")
    try:
        known, _ = pre.parse_known_args(args[1:])
    except (argparse.ArgumentError, SystemExit):  # a usage error: the full parser says it
        return
    if known.dask:
        from ..dist import prestart

        prestart(known.dask)


def _run(argv: list[str] | None, command: list[str]) -> int:
    _prestart_dask(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    command.append(args.command)
    try:
        return int(args.func(args))
    except FoakitError as exc:
        print(f"foakit {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"foakit {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
