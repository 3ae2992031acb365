"""The OUT folder of ``foakit analyze``: Parquet parts of the frame tables, record files,
and the crash-safe order in which they are written and committed.

A batch's frame table is written as a Parquet part under a temporary name and renamed; its
clips' lines are then appended to ``clips.jsonl`` (a local run) or written by the Dask
worker as a record file under ``records/`` that the client commits by appending it to
``clips.jsonl`` in one write.  ``clips.jsonl`` is the only commit log: a part no line
references is never read, and resume removes it.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .analysis import FRAME_COLUMNS
from .errors import FoakitError
from .jsonl import append_records, read_records

__all__ = ["CLIPS_FILE", "FRAMES_DIR", "MANIFEST_FILE", "RECORDS_DIR", "OutputUnwritable"]

CLIPS_FILE = "clips.jsonl"
FRAMES_DIR = "frames.parquet"
MANIFEST_FILE = "manifest.json"
#: Record files of batches written by Dask workers, until the client commits them.
RECORDS_DIR = "records"


def _repeated_strings(values: list[str], counts: list[int]):
    """A pyarrow string array holding ``values[i]`` ``counts[i]`` times over (each clip's id
    or path on every one of its frames), built from its buffers: the same array as
    ``pa.array`` of the per-frame Python strings, without making them (8000 per batch)."""
    import pyarrow as pa

    enc = [v.encode() for v in values]
    data = b"".join(e * n for e, n in zip(enc, counts, strict=True))
    if len(data) >= 2**31 - 1:  # past int32 offsets: let pyarrow choose
        return pa.array([v for v, n in zip(values, counts, strict=True)
                         for _ in range(n)], pa.string())
    offsets = np.zeros(sum(counts) + 1, np.int32)
    np.cumsum(np.repeat(np.array([len(e) for e in enc], np.int32), counts), out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(offsets) - 1,
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _frames_table(results: list[tuple[dict, dict | None]]):
    import pyarrow as pa

    ids: list[str] = []
    paths: list[str] = []
    counts: list[int] = []
    cols: dict[str, list] = {name: [] for name in FRAME_COLUMNS}
    for rec, frames in results:
        if frames is None:
            continue
        counts.append(len(frames["frame"]))
        ids.append(rec["audio_id"])
        paths.append(rec["path"])
        for name in FRAME_COLUMNS:
            cols[name].append(frames[name])
    if not counts:
        return None
    table = {"audio_id": _repeated_strings(ids, counts),
             "path": _repeated_strings(paths, counts)}
    for name in FRAME_COLUMNS:
        table[name] = pa.array(np.concatenate(cols[name]))
    return pa.table(table)


def _write_part(frames_dir: Path, results: list[tuple[dict, dict | None]]) -> str | None:
    """A batch's frame table as a Parquet part (temporary name, then renamed); its name, or
    None when no clip of the batch has frames."""
    import pyarrow.parquet as pq

    table = _frames_table(results)
    if table is None:
        return None
    part = f"part-{uuid.uuid4().hex}.parquet"
    tmp = frames_dir / f".{part}.tmp"
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, frames_dir / part)
    return part


def _with_part(results: list[tuple[dict, dict | None]], part: str | None) -> list[dict]:
    return [dict(rec, frames_part=part if frames is not None else None)
            for rec, frames in results]


class _Writer:
    """Appends finished batches to OUT, crash-safely (see the module docstring)."""

    def __init__(self, out_dir: Path) -> None:
        self.out = out_dir
        self.frames_dir = out_dir / FRAMES_DIR
        self.frames_dir.mkdir(parents=True, exist_ok=True)
        self.records_dir = out_dir / RECORDS_DIR
        self.clips_path = out_dir / CLIPS_FILE

    def write(self, results: list[tuple[dict, dict | None]]) -> None:
        append_records(self.clips_path, _with_part(results, _write_part(self.frames_dir,
                                                                       results)))

    def commit(self, name: str) -> None:
        """Commit a batch a worker wrote (:func:`_write_batch`): its record file's lines
        appended to clips.jsonl in one write (from then on its part is referenced, so
        complete), then the record file removed."""
        path = self.records_dir / name
        data = path.read_bytes()
        fd = os.open(self.clips_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)  # one write: a kill leaves at most one torn last line
        finally:
            os.close(fd)
        path.unlink()


class _Written(NamedTuple):
    """What comes back to the client for a clip whose batch a worker wrote into OUT: the
    batch's record file (under ``records/``) and what the summary counts."""

    records: str
    path: str
    status: str
    duration_s: float | None
    error: str | None


def _write_batch(out_dir: str, results: list[tuple[dict, dict | None]]) -> list[_Written]:
    """Write a batch's outputs into OUT from a worker: the Parquet part (temporary name,
    renamed), *then* its clips.jsonl lines as a record file (temporary name, renamed), so a
    record file exists only for a complete part; the client commits it
    (:meth:`_Writer.commit`)."""
    out = Path(out_dir)
    part = _write_part(out / FRAMES_DIR, results)
    name = f"{uuid.uuid4().hex}.jsonl"
    data = "".join(json.dumps(r, allow_nan=False, separators=(",", ":")) + "\n"
                   for r in _with_part(results, part)).encode()
    tmp = out / RECORDS_DIR / f".{name}.tmp"
    tmp.write_bytes(data)
    os.replace(tmp, out / RECORDS_DIR / name)
    return [_Written(name, rec["path"], rec["status"], rec["duration_s"], rec["error"])
            for rec, _ in results]


class OutputUnwritable(FoakitError, OSError):
    """A worker cannot write into OUT (Dask workers must see OUT at the client's path)."""


def _work_write(work: Callable, out_dir: str, paths: list[str]) -> list[_Written]:
    """A Dask worker's batch: ``work(paths)``, then its outputs written into OUT.

    Raises
    ------
    OutputUnwritable
        The worker cannot write there (the run stops: no clip is recorded as failed for a
        storage problem).
    """
    results = work(paths)
    try:
        return _write_batch(out_dir, results)
    except OSError as exc:
        raise OutputUnwritable(f"a Dask worker cannot write its outputs into {out_dir!r} "
                               f"(OUT must be on storage every worker sees at the same "
                               f"path): {type(exc).__name__}: {exc}") from None


def _drop_uncommitted(out_dir: Path) -> None:
    """After a Dask run: remove what workers lost mid-task left (record files never
    committed, with their parts, and temporary files); their clips were run again."""
    frames_dir = out_dir / FRAMES_DIR
    for p in (out_dir / RECORDS_DIR).iterdir():
        if not p.name.startswith("."):
            for line in p.read_text(encoding="utf-8").splitlines():
                part = json.loads(line).get("frames_part")
                if part:
                    (frames_dir / part).unlink(missing_ok=True)
        p.unlink(missing_ok=True)
    for p in frames_dir.glob(".part-*.tmp"):
        p.unlink(missing_ok=True)
    try:
        (out_dir / RECORDS_DIR).rmdir()  # OUT as a local run leaves it
    except OSError:  # a lost worker's late file: resume deletes it
        pass


def _repair(out_dir: Path) -> dict[str, dict]:
    """Cut a torn last line, drop unreferenced parts and uncommitted record files (a
    worker's batch that the client never committed is done again); return the latest
    record per path."""
    records = read_records(out_dir / CLIPS_FILE)
    frames_dir = out_dir / FRAMES_DIR
    if frames_dir.is_dir():
        used = {r.get("frames_part") for r in records.values()}
        for p in frames_dir.iterdir():
            if p.name not in used:
                p.unlink()
    records_dir = out_dir / RECORDS_DIR
    if records_dir.is_dir():
        for p in records_dir.iterdir():
            p.unlink()
    return records
