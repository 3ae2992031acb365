"""Reading and writing the small text files benchmarks and reports are made of.

Reading names the file in a :class:`~foakit.errors.FormatError` when it cannot be read or is
not text; writing goes to a temporary file beside the target and is renamed over it, so a
run killed while writing leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .errors import FormatError

__all__ = ["read_text", "write_atomic"]


def read_text(path: str | os.PathLike, *, encoding: str = "utf-8") -> str:
    """The text of ``path``.

    Raises
    ------
    FormatError
        The file cannot be read, or is not text in ``encoding``.
    """
    p = Path(path)
    try:
        return p.read_text(encoding=encoding)
    except UnicodeDecodeError as exc:
        raise FormatError(p, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise FormatError(p, f"cannot read ({exc.strerror or exc})") from None


def write_atomic(path: str | os.PathLike, chunks: Iterable[str]) -> Path:
    """Write ``chunks`` (lines or whole texts, in order) to ``path`` atomically.

    Parent folders are created.  Returns the path written.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for chunk in chunks:
                fh.write(chunk)
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return p
