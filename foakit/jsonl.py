"""Crash-safe JSON-lines record files (``foakit analyze``'s clips.jsonl, the audit's
checkpoint index).

Records are appended in one ``write`` per batch, so a run killed at any moment leaves at
most one torn last line; reading cuts that line off the file and keeps, per key, the latest
record (a clip analysed again appends a new line).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

__all__ = ["append_records", "read_records"]


def append_records(path: str | os.PathLike, records: Iterable[dict], *,
                   allow_nan: bool = False) -> None:
    """Append ``records`` as JSON lines in one write (strict JSON unless ``allow_nan``)."""
    data = "".join(json.dumps(r, allow_nan=allow_nan, separators=(",", ":")) + "\n"
                   for r in records).encode()
    if not data:
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)  # one write: a kill leaves at most one torn last line
    finally:
        os.close(fd)


def read_records(path: str | os.PathLike, key: str = "path") -> dict[str, dict]:
    """The latest record per ``record[key]``; a torn last line is cut off the file and a
    corrupt line skipped (its clip is simply done again)."""
    records: dict[str, dict] = {}
    if not os.path.exists(path):
        return records
    with open(path, "rb") as fh:
        raw = fh.read()
    end = raw.rfind(b"\n") + 1
    if end != len(raw):  # killed mid-append
        with open(path, "r+b") as fh:
            fh.truncate(end)
        raw = raw[:end]
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
            records[rec[key]] = rec
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
    return records
