"""Paths that a benchmark file names, resolved under the dataset root.

A QA file, label file or manifest names its audio relative to a root.  A name that leaves
the root *lexically* (absolute, a drive, ``~``, or a ``..`` component) is refused; symlinks
inside the root are followed wherever they lead, as ``foakit analyze`` follows them (the
Hugging Face hub cache stores every file of a snapshot as a symlink into ``blobs/``, and
corpora often reach their audio through a symlinked folder).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from ..errors import FormatError

__all__ = ["resolve_under", "resolved"]


def resolve_under(root: str | os.PathLike, name: str, *, field: str = "audio_path",
                  root_name: str = "dataset root") -> Path:
    """The path ``name`` (relative to ``root``) stands for, refusing names that escape it.

    Parameters
    ----------
    root : str or PathLike
        The dataset root the names are relative to.
    name : str
        The name as the benchmark file gives it (POSIX or Windows separators).
    field : str
        The field's name, for messages.
    root_name : str
        What the root is, for messages ("SO-Bench root", "--audio-root").

    Returns
    -------
    Path
        ``root / name``, not resolved (it may not exist; :func:`resolved` gives the
        file a symlink chain ends at, for reports).

    Raises
    ------
    FormatError
        ``name`` is empty, holds a NUL byte, is absolute, or has a ``..`` component.
    """
    text = str(name)
    if not text.strip():
        raise FormatError(text, f"empty {field}")
    if "\x00" in text:
        raise FormatError(repr(text), f"{field} contains a NUL byte")
    posix, windows = PurePosixPath(text.replace("\\", "/")), PureWindowsPath(text)
    if posix.is_absolute() or windows.drive or windows.root or text.startswith("~"):
        raise FormatError(text, f"refused: {field} is absolute; it must be relative to the "
                          f"{root_name}")
    if ".." in posix.parts:
        raise FormatError(text, f"refused: {field} has a '..' component and would escape "
                          f"the {root_name}")
    return Path(root).joinpath(*posix.parts)


def resolved(path: str | os.PathLike) -> str:
    """The real file a path reaches through its symlinks (for reports)."""
    return os.path.realpath(path)
