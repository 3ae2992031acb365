"""A resumable per-item audit runner: measure every item once, in worker processes.

:func:`run_items` takes items (dicts with a ``key`` and whatever the work function needs:
a path, a parquet row reference, the bytes), runs ``work(item) -> dict`` on each in
:func:`foakit.pool.run_batches` workers and appends every result to a JSON-lines checkpoint
(:mod:`foakit.jsonl`) as its batch finishes.  A later run with the same checkpoint skips
the items already there whose ``sig`` (a signature of the input: size and mtime of a file,
a hash of row bytes) is unchanged; ``retry_errors`` runs the failed ones again.  Items are
pulled from the iterable as batches are submitted, so a corpus of any size keeps memory
flat.

A record is ``{"key", "sig", "status": "ok" | "error", "error", "error_kind", **work's
dict}``.  An item whose work raises :class:`~foakit.errors.FoakitError` is recorded as an
error with its message and kind (``err.kind`` where the error has one, else
``"not_audio"`` for an AudioError and ``"format"`` otherwise); any other exception, or a
worker that dies on it, is recorded as ``"internal"``: the run never stops for one item.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from typing import Any

from ..errors import AudioError, FoakitError, ParameterError
from ..jsonl import append_records, read_records
from ..pool import run_batches

__all__ = ["RunResult", "run_items", "error_record"]


@dataclass
class RunResult:
    """What :func:`run_items` did.

    Attributes
    ----------
    records : dict
        Key -> record, for every item of this run (done now or read back).
    analysed, loaded, failed : int
        Items measured in this run, read from the checkpoint, recorded as errors (either).
    checkpoint : str
    """

    records: dict = field(default_factory=dict)
    analysed: int = 0
    loaded: int = 0
    failed: int = 0
    checkpoint: str = ""


def error_record(item: dict, error: str, kind: str) -> dict:
    """The record of an item that could not be measured."""
    return {"key": item["key"], "sig": item.get("sig"), "status": "error", "error": error,
            "error_kind": kind}


def _kind(exc: BaseException) -> str:
    kind = getattr(exc, "kind", None)
    if kind:
        return str(kind)
    if isinstance(exc, AudioError):
        from .decode import error_kind

        return error_kind(exc)
    return "format"


def _work_batch(work: Callable[[dict], dict], batch: list[dict]) -> list[dict]:
    out = []
    for item in batch:
        try:
            rec = {"key": item["key"], "sig": item.get("sig"), "status": "ok",
                   "error": None, "error_kind": None}
            rec.update(work(item))
        except FoakitError as exc:
            problem = getattr(exc, "problem", None) or str(exc)
            rec = error_record(item, problem, _kind(exc))
        except Exception as exc:  # an analysis bug must not cost the other items
            rec = error_record(item, f"internal error: {type(exc).__name__}: {exc}",
                               "internal")
        out.append(rec)
    return out


def _failed(item: dict, error: str) -> dict:
    return error_record(item, error, "internal")


def run_items(items: Iterable[dict], work: Callable[[dict], dict], *,
              checkpoint: str | os.PathLike, workers: int | None = None,
              batch_size: int = 4, progress: bool = False, retry_errors: bool = False,
              total: int | None = None, desc: str = "items", dask: Any = None) -> RunResult:
    """Measure every item once, resuming from ``checkpoint``.

    Parameters
    ----------
    items : iterable of dict
        Each with a unique ``key`` (str) and optionally ``sig``; passed to ``work``.
    work : callable
        ``work(item) -> dict`` of JSON-able measures; module-level (picklable).
    checkpoint : str or PathLike
        The JSON-lines file (created with its folder; appended to).
    workers : int, optional
        Processes (default: all cores); 1 runs in this process.
    batch_size : int
        Items per batch handed to a worker.
    progress : bool
        A tqdm bar on stderr.
    retry_errors : bool
        Measure again the items the checkpoint holds as errors.
    total : int, optional
        Number of items, for the progress bar (``len(items)`` when it has one).
    desc : str
        The progress bar's label.
    dask : str, DaskCluster or distributed.Client, optional
        Measure on this Dask cluster (:func:`foakit.pool.run_batches`); the workers get the
        items (paths, or the audio bytes they carry) and this process writes the checkpoint.

    Returns
    -------
    RunResult

    Raises
    ------
    ParameterError
        ``workers`` or ``batch_size`` below 1, or a repeated key.
    """
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise ParameterError(f"{workers=} must be >= 1")
    if batch_size < 1:
        raise ParameterError(f"{batch_size=} must be >= 1")
    ck = os.fspath(checkpoint)
    os.makedirs(os.path.dirname(os.path.abspath(ck)), exist_ok=True)
    done = read_records(ck, key="key")
    result = RunResult(checkpoint=ck)
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="item", disable=not progress, leave=False)
    seen: set[str] = set()

    def todo():
        for item in items:
            key = item["key"]
            if key in seen:
                raise ParameterError(f"item key {key!r} appears twice")
            seen.add(key)
            old = done.get(key)
            if (old is not None and old.get("sig") == item.get("sig")
                    and (old.get("status") == "ok" or not retry_errors)):
                result.records[key] = old
                result.loaded += 1
                result.failed += old.get("status") != "ok"
                bar.update(1)
                continue
            yield item

    source = todo()
    batches: deque[list[dict]] = deque()

    def refill(n: int) -> None:
        for _ in range(n):
            b = list(islice(source, batch_size))
            if not b:
                return
            batches.append(b)

    def finish(recs: list[dict]) -> None:
        append_records(ck, recs)
        for r in recs:
            result.records[r["key"]] = r
            result.analysed += 1
            result.failed += r["status"] != "ok"
        bar.update(len(recs))
        refill(1)

    refill(2 * workers + 1)
    try:
        run_batches(batches, partial(_work_batch, work), finish, _failed, workers=workers,
                    dask=dask)
    finally:
        bar.close()
    return result
