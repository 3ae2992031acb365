"""The one exception family foakit raises.

Every error a user can cause derives from :class:`FoakitError`, so callers can catch
foakit's errors apart from bugs.  Messages name the bad value (or the file) and the problem.
"""

from __future__ import annotations

import os

__all__ = [
    "FoakitError",
    "ParameterError",
    "AudioError",
    "FormatError",
    "BackendUnavailable",
    "WORKER_DIED",
]

#: The error recorded for an item whose worker process died (a crash inside a decoder, the
#: OOM killer) on its own, after the batches it shared were run again item by item.
WORKER_DIED = "the worker process died while analysing this file (crash or out of memory)"


class FoakitError(Exception):
    """Base class of every error foakit raises on purpose."""


class ParameterError(FoakitError, ValueError):
    """An argument has a bad value (the message names it)."""


class AudioError(FoakitError):
    """An audio file cannot be analysed.

    Parameters
    ----------
    path : str or PathLike
        The file.
    problem : str
        One line saying what is wrong with it.
    """

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

    def __reduce__(self):  # rebuilt from its fields when it crosses a process boundary
        return (type(self), (self.path, self.problem))


class FormatError(FoakitError, ValueError):
    """A benchmark file (QA jsonl, label CSV, predictions) does not follow its format."""

    def __init__(self, path: str | os.PathLike, problem: str, *, line: int | None = None):
        self.path = os.fspath(path)
        self.problem = problem
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):  # see AudioError.__reduce__
        return (_format_error, (self.path, self.problem, self.line))


def _format_error(path: str, problem: str, line: int | None) -> FormatError:
    return FormatError(path, problem, line=line)


class BackendUnavailable(FoakitError, RuntimeError):
    """The requested compute backend cannot be used here (the message says why)."""
