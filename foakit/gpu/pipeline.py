"""Feeding the batched analysis: decoding threads, pinned buffers, two streams.

Throughput design
-----------------
* **Decoding** runs in a thread pool (libsndfile releases the GIL); mono / stereo clips are
  analysed on the CPU right there (they have no spatial work).
* **Packing**: decoded FOA clips wait per sample rate until their zero-padded size reaches
  the batch budget (:func:`batch_budget`: a share of free device memory over
  :func:`~foakit.gpu.batch.device_bytes_per_sample`), then a packer thread copies them into
  one of three pinned host buffers.
* **Two CUDA streams** alternate between batches.  While the host links tracks and builds the
  events of batch *k* (:func:`~foakit.gpu.batch.launch_cones`, :func:`~foakit.gpu.batch.collect`),
  the device copies in and analyses batch *k + 1*.  The host waits on CUDA events once per
  batch stage, never per clip.
* A batch that fails on the device (out of memory, a driver error) is analysed on the CPU
  instead, with a :class:`RuntimeWarning`, and the budget is halved.  Any other exception
  is a bug and propagates.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import queue
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import numpy as np

from ..analysis import ClipAnalysis, analyze_clip, analyze_samples
from ..errors import AudioError, FoakitError, ParameterError
from ..io import read_audio
from ..params import AnalysisParams
from . import batch as _b

__all__ = ["analyze_clips", "analyze_batches_cuda", "batch_budget", "plan_batches",
           "host_pool", "MAX_BATCH_SAMPLES"]

#: Upper bound on the padded samples (per channel) of one batch: keeps three pinned buffers
#: at 3 GiB of host memory and leaves several batches per corpus for overlap.
MAX_BATCH_SAMPLES = 1 << 26


def _backend_modules(backend: str) -> tuple[Any, Any, list[Any]]:
    """``(xp, kernels, streams)`` for ``"cuda"`` (CuPy) or ``"cpu"`` (NumPy emulation)."""
    if backend == "cpu":
        return np, _b.cpu_kernels(), [None, None]
    if backend != "cuda":
        raise ParameterError(f"{backend=!r} must be 'cuda' or 'cpu'")
    from ..backend import resolve_backend

    resolve_backend("cuda")  # a clear BackendUnavailable when CuPy or the device is missing
    import cupy

    return cupy, _b.cuda_kernels(), [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]


def batch_budget(sample_rate: int, params: AnalysisParams, *, xp: Any = np,
                 max_batch_samples: int | None = None, share: float = 0.3) -> int:
    """Padded samples per channel that one batch may hold.

    ``share`` of the free device memory (two batches are in flight) over
    :func:`~foakit.gpu.batch.device_bytes_per_sample`, capped by ``max_batch_samples``
    (default :data:`MAX_BATCH_SAMPLES`).
    """
    cap = int(max_batch_samples or MAX_BATCH_SAMPLES)
    if xp is np:
        return cap
    free, _total = xp.cuda.runtime.memGetInfo()
    free += xp.get_default_memory_pool().free_bytes()
    per = _b.device_bytes_per_sample(params.grid(sample_rate), params)
    return max(1, min(cap, int(share * free / per)))


def plan_batches(lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Group clip indices so that ``len(group) * max(length) <= budget``.

    Clips are sorted by length first (less padding); a clip longer than the budget gets a
    batch of its own.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    groups: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        if cur and (len(cur) + 1) * lengths[i] > budget:
            groups.append(cur)
            cur = []
        cur.append(i)
    if cur:
        groups.append(cur)
    return groups


def _device_error(exc: BaseException) -> bool:
    """An error of the device or its libraries (out of memory, driver), not a bug."""
    mod = type(exc).__module__ or ""
    return isinstance(exc, MemoryError) or mod.split(".")[0] in (
        "cupy", "cupy_backends", "cupyx", "numba_cuda") or mod.startswith("numba.cuda")


def _run(batches: Iterator[tuple[Any, np.ndarray, int, Any]], *, xp: Any, kernels: Any,
         streams: list[Any], params: AnalysisParams, keep_hist: bool,
         deliver: Callable[[Any, list[ClipAnalysis] | None, BaseException | None], None],
         host_map: Callable = map) -> None:
    """Drive the two-deep pipeline; ``deliver(tag, results, error)`` once per batch."""
    prev: _b.Stage | None = None

    def complete(st: _b.Stage) -> None:
        try:
            res = _b.collect(_b.launch_cones(st, host_map=host_map), host_map=host_map)
        except Exception as exc:
            if not _device_error(exc):
                raise  # a bug: loud, not hidden behind the CPU fallback
            deliver(st.tag, None, exc)
        else:
            deliver(st.tag, res, None)

    for k, (x, n_samples, sr, tag) in enumerate(batches):
        try:
            st = _b.submit(x, n_samples, sr, params=params, xp=xp, kernels=kernels,
                           stream=streams[k % 2], keep_hist=keep_hist, tag=tag)
        except Exception as exc:
            if not _device_error(exc):
                raise
            st = None
            failed = exc
        if prev is not None:
            complete(prev)
        if st is None:
            deliver(tag, None, failed)
        prev = st
    if prev is not None:
        complete(prev)


@contextlib.contextmanager
def host_pool(n: int) -> Iterator[Callable]:
    """A ``map`` over ``n`` spawned processes for the per-clip host work (``map`` if n <= 1).

    Spawned, not forked: the parent holds a CUDA context.
    """
    if n <= 1:
        yield map
        return
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=n, mp_context=ctx) as pool:
        def pmap(fn, *its):
            cols = [list(i) for i in its]
            chunk = max(1, len(cols[0]) // (4 * n)) if cols else 1
            return pool.map(fn, *cols, chunksize=chunk)

        yield pmap


def analyze_clips(clips: Sequence[np.ndarray], sample_rate: int | Sequence[int], *,
                  params: AnalysisParams | None = None, backend: str = "cuda",
                  max_batch_samples: int | None = None, keep_hist: bool = False,
                  host_workers: int = 1, host_map: Callable | None = None,
                  kernels: Any = None) -> list[ClipAnalysis]:
    """Analyse many in-memory clips in device-sized batches.

    Parameters
    ----------
    clips : sequence of ndarray [shape=(channels, n)]
        1, 2 or 4 channels (4 = ambiX); mono / stereo clips take the CPU path.
    sample_rate : int or sequence of int
        One rate for all clips, or one per clip (batches never mix rates).
    params : AnalysisParams, optional
    backend : {"cuda", "cpu"}
        ``"cuda"``: CuPy and the Numba CUDA kernels.  ``"cpu"``: the same batched code on
        NumPy and the Numba CPU kernels (for testing the batching without a device).
    max_batch_samples : int, optional
        Cap on the padded samples per channel of a batch.
    keep_hist : bool
        Return the DOA histograms too.
    host_workers : int
        Processes for the per-clip host work (tracks, events); 1 runs it in this process.
    host_map : callable, optional
        A ready ``map`` for the host work (from :func:`host_pool`); overrides
        ``host_workers``.
    kernels : namespace, optional
        Replaces the backend's kernels (a timing wrapper, say).

    Returns
    -------
    list of ClipAnalysis
        In the order of ``clips``; equal to :func:`foakit.analysis.analyze_samples` within
        float32 rounding.
    """
    params = params or AnalysisParams()
    rates = ([int(sample_rate)] * len(clips) if np.isscalar(sample_rate)
             else [int(r) for r in sample_rate])
    if len(rates) != len(clips):
        raise ParameterError("give one sample rate, or one per clip")
    xp, default_kernels, streams = _backend_modules(backend)
    kernels = kernels or default_kernels
    out: list[ClipAnalysis | None] = [None] * len(clips)
    foa: dict[int, list[int]] = {}
    for i, c in enumerate(clips):
        if c.ndim == 2 and c.shape[0] == 4:
            foa.setdefault(rates[i], []).append(i)
        else:
            out[i] = analyze_samples(c, rates[i], params=params)

    ring: list[Any] = [None] * 3  # pinned buffers; batch k's is reused by batch k + 3,
    # which is packed only after batch k is complete (the pipeline is two deep)

    def gen():
        k = 0
        for sr, idx in foa.items():
            budget = batch_budget(sr, params, xp=xp, max_batch_samples=max_batch_samples)
            for g in plan_batches([clips[i].shape[1] for i in idx], budget):
                ids = [idx[j] for j in g]
                buf = None
                if xp is not np:
                    import cupyx

                    need = 4 * len(ids) * max(clips[i].shape[1] for i in ids)
                    if ring[k % 3] is None or ring[k % 3].size < need:
                        ring[k % 3] = cupyx.empty_pinned(need, np.float32)
                    buf = ring[k % 3]
                x, n = _b.pack_clips([np.asarray(clips[i], np.float32) for i in ids], out=buf)
                k += 1
                yield x, n, sr, ids

    def deliver(ids, res, err):
        if err is not None:
            warnings.warn(f"GPU batch failed ({type(err).__name__}: {err}); "
                          "analysed on the CPU instead", RuntimeWarning, stacklevel=3)
            res = [analyze_samples(clips[i], rates[i], params=params) for i in ids]
        for i, r in zip(ids, res, strict=True):
            out[i] = r

    with (contextlib.nullcontext(host_map) if host_map is not None
          else host_pool(host_workers)) as hmap:
        _run(gen(), xp=xp, kernels=kernels, streams=streams, params=params,
             keep_hist=keep_hist, deliver=deliver, host_map=hmap)
    return out  # type: ignore[return-value]


# ----------------------------------------------------------------------------- corpus path

def _base_record(rel_path: str, channel_order: str) -> dict:
    """The clips.jsonl record of :func:`foakit.corpus.analyze_file`, before analysis."""
    return {
        "audio_id": PurePosixPath(rel_path).stem, "path": rel_path, "status": "ok",
        "error": None, "sample_rate": None, "duration_s": None, "channels": None,
        "channel_order": channel_order, "n_sources": None, "events": [], "background": [],
        "n_frames": 0,
    }


def _fill(rec: dict, res: ClipAnalysis) -> tuple[dict, dict]:
    rec["events"] = [e.to_dict() for e in res.events]
    rec["n_sources"] = res.n_sources
    rec["background"] = res.background
    rec["n_frames"] = int(res.frames["frame"].shape[0])
    return rec, res.frames


def _error(rec: dict, exc: BaseException) -> tuple[dict, None]:
    if isinstance(exc, AudioError):
        msg = exc.problem
    elif isinstance(exc, FoakitError):
        msg = str(exc)
    else:
        msg = f"internal error: {type(exc).__name__}: {exc}"
    rec.update(status="error", error=msg)
    return rec, None


def _decode(audio_dir: str, rel: str, order: str, params: AnalysisParams,
            normalisation: str | None = None):
    """Decode one file: ``("done", rec, frames)`` or ``("foa", rec, samples, sr)``."""
    rec = _base_record(rel, order)
    try:
        clip = read_audio(os.path.join(audio_dir, rel), channel_order=order,
                          normalisation=normalisation)
        rec.update(sample_rate=clip.sample_rate, duration_s=round(clip.duration_s, 6),
                   channels=clip.channels)
        if clip.channels != 4:
            rec["channel_order"] = None
            return ("done", *_fill(rec, analyze_clip(clip, params=params)))
        return ("foa", rec, clip.samples, clip.sample_rate)
    except Exception as exc:  # a bad file must not stop a corpus run
        return ("done", *_error(rec, exc))


@dataclass
class _Pending:
    """Decoded FOA clips of one sample rate waiting for a batch."""

    items: list[tuple[str, dict, np.ndarray]] = field(default_factory=list)
    longest: int = 0


def analyze_batches_cuda(audio_dir: str, batches: list[list[str]], channel_order: str,
                         params: AnalysisParams,
                         finish: Callable[[list[tuple[dict, dict | None]]], None], *,
                         workers: int | None = None, max_batch_samples: int | None = None,
                         backend: str = "cuda", normalisation: str | None = None) -> None:
    """The GPU corpus path behind ``analyze_corpus(..., backend="cuda")``.

    Parameters
    ----------
    audio_dir : str
    batches : list of list of str
        The corpus run's batches of relative paths; ``finish`` gets each batch's
        ``(record, frames)`` pairs, in its order, once all of its clips are done.
    channel_order : str
    params : AnalysisParams
    finish : callable
    workers : int, optional
        Decoding threads and host processes (default: all cores; threads at most 32; one
        host process per 32 files at most).
    max_batch_samples : int, optional
        Cap on the padded samples per channel of a device batch.
    backend : {"cuda", "cpu"}
        ``"cpu"`` runs the same pipeline on NumPy (tests).
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        As :func:`foakit.io.read_audio` (converted to SN3D when each file is decoded).
    """
    xp, kernels, streams = _backend_modules(backend)
    n_threads = max(1, min(int(workers or os.cpu_count() or 1), 32))
    lock = threading.Lock()
    slots: dict[str, tuple[dict, dict | None] | None] = {}
    owner: dict[str, int] = {}
    for bi, b in enumerate(batches):
        for p in b:
            owner[p] = bi
            slots[p] = None
    left = [len(b) for b in batches]
    ready_batches: queue.Queue = queue.Queue()

    def done(rel: str, result: tuple[dict, dict | None]) -> None:
        with lock:
            slots[rel] = result
            bi = owner[rel]
            left[bi] -= 1
            if left[bi] == 0:
                ready_batches.put(bi)

    def flush_finished() -> None:
        while True:
            try:
                bi = ready_batches.get_nowait()
            except queue.Empty:
                return
            finish([slots.pop(p) for p in batches[bi]])  # type: ignore[misc]

    budgets: dict[int, int] = {}
    free_bufs: queue.Queue = queue.Queue()
    n_bufs = 3
    work: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def buffer(n_values: int) -> Any:
        """One of ``n_bufs`` pinned buffers (grown to the batch), or a plain array for a
        single clip longer than the budget."""
        if xp is np or n_values > 4 * max(budgets.values()):
            return np.empty(n_values, np.float32)
        import cupyx

        buf = None
        while buf is None:
            with lock:
                if free_bufs.empty() and len(allocated) < n_bufs:
                    allocated.append(cupyx.empty_pinned(n_values, np.float32))
                    free_bufs.put(allocated[-1])
            try:
                buf = free_bufs.get(timeout=0.5)
            except queue.Empty:
                if stop.is_set():
                    raise RuntimeError("pipeline stopped") from None
        if buf.size < n_values:  # its last batch is complete: replace it by a larger one
            with lock:
                old = buf
                buf = cupyx.empty_pinned(n_values, np.float32)
                allocated[:] = [a for a in allocated if a is not old] + [buf]
        return buf

    allocated: list[Any] = []

    def emit(sr: int, items: list[tuple[str, dict, np.ndarray]]) -> None:
        n = max(s.shape[1] for _, _, s in items)
        buf = buffer(4 * len(items) * n)
        x, n_samples = _b.pack_clips([s for _, _, s in items], out=buf)
        work.put((x, n_samples, sr, (items, buf)))

    def producer() -> None:
        pending: dict[int, _Pending] = {}
        try:
            with cf.ThreadPoolExecutor(max_workers=n_threads) as pool:
                files = [p for b in batches for p in b]
                it = iter(files)
                inflight: list[cf.Future] = []

                def top_up() -> None:
                    for p in it:
                        inflight.append(pool.submit(_decode, audio_dir, p, channel_order,
                                                    params, normalisation))
                        if len(inflight) >= 4 * n_threads:
                            return

                top_up()
                while inflight and not stop.is_set():
                    r = inflight.pop(0).result()
                    top_up()
                    if r[0] == "done":
                        done(r[1]["path"], (r[1], r[2]))
                        continue
                    _, rec, samples, sr = r
                    if sr not in budgets:
                        budgets[sr] = batch_budget(sr, params, xp=xp,
                                                   max_batch_samples=max_batch_samples)
                    pend = pending.setdefault(sr, _Pending())
                    longest = max(pend.longest, samples.shape[1])
                    if pend.items and (len(pend.items) + 1) * longest > budgets[sr]:
                        emit(sr, pend.items)
                        pend = pending[sr] = _Pending()
                        longest = samples.shape[1]
                    pend.items.append((rec["path"], rec, samples))
                    pend.longest = longest
                for sr, pend in pending.items():
                    if pend.items and not stop.is_set():
                        emit(sr, pend.items)
        except BaseException as exc:  # surfaced in the consumer
            work.put(exc)
            return
        work.put(None)

    def batches_iter():
        while True:
            try:
                item = work.get(timeout=0.2)
            except queue.Empty:
                flush_finished()  # batches of only errors / mono / stereo clips
                continue
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def deliver(tag, res, err) -> None:
        items, buf = tag
        if err is not None:
            warnings.warn(f"GPU batch failed ({type(err).__name__}: {err}); "
                          "analysed on the CPU instead", RuntimeWarning, stacklevel=2)
            for sr in budgets:
                budgets[sr] = max(1, budgets[sr] // 2)
        for j, (rel, rec, samples) in enumerate(items):
            try:
                r = res[j] if res is not None else analyze_samples(
                    samples, rec["sample_rate"], params=params)
                done(rel, _fill(rec, r))
            except Exception as exc:
                done(rel, _error(rec, exc))
        with lock:
            pinned = any(buf is a for a in allocated)
        if pinned:
            free_bufs.put(buf)
        flush_finished()

    n_host = min(n_threads, len(owner) // 32)
    thread = threading.Thread(target=producer, name="foakit-decode", daemon=True)
    thread.start()
    try:
        with host_pool(n_host) as hmap:
            _run(batches_iter(), xp=xp, kernels=kernels, streams=streams, params=params,
                 keep_hist=False, deliver=deliver, host_map=hmap)
        thread.join()
        flush_finished()
    finally:
        stop.set()
        while thread.is_alive():  # unblock a producer waiting on a full queue
            try:
                work.get(timeout=0.1)
            except queue.Empty:
                pass
            thread.join(timeout=0.1)
