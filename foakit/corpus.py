"""Corpus runs: walk a folder, analyse every clip in worker processes, write the outputs.

Outputs in ``OUT``:

``clips.jsonl``
    One line per file (the latest line for a path wins): ``audio_id``, ``path`` (relative to
    the audio folder), ``status`` (``ok`` / ``error``), ``error``, ``sample_rate``,
    ``duration_s``, ``channels``, ``channel_order``, ``n_sources``, ``events``,
    ``background`` (a steady directional sound through the whole clip, not an event:
    :func:`foakit.analysis.steady_background`), ``n_frames``, ``frames_part``.
``frames.parquet/``
    A Parquet dataset (one part file per batch): per clip and frame the columns of
    :data:`foakit.analysis.FRAME_COLUMNS` plus ``audio_id`` and ``path``.
``manifest.json``
    foakit version, parameters, channel order, conventions.
``records/``
    On Dask, while it runs: the record files of batches that workers wrote and the client
    has not yet committed (removed at the end of the run).

Crash safety: a batch's Parquet part is written to a temporary name and renamed, *then* its
clips.jsonl lines are appended in one ``write``.  A run killed at any moment loses only the
batches in flight; on resume a trailing partial line is cut off and part files that no line
references are deleted, and every clip with a line is skipped.

On Dask the workers write (:func:`_write_batch`): a batch's part (temporary name, renamed),
*then* its lines as a record file in ``records/`` (temporary name, renamed); the client gets
a small summary per clip and commits the batch by appending the record file's bytes to
clips.jsonl in one ``write``.  clips.jsonl stays the only commit log: a part or record file
of a batch whose result never reached the client (its worker killed, or the client) is
referenced by no line, so it is never read, and resume deletes it.
"""

from __future__ import annotations

import ctypes
import json
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from . import __version__
from .analysis import FRAME_COLUMNS, analyze_clip, analyze_samples
from .conventions import CONVENTIONS, check_channel_order, resolve_normalisation
from .errors import AudioError, BackendUnavailable, FoakitError, ParameterError
from .io import iter_audio_files, read_audio
from .outdir import (
    CLIPS_FILE,
    FRAMES_DIR,
    MANIFEST_FILE,
    OutputUnwritable,
    _drop_uncommitted,
    _repair,
    _work_write,
    _Writer,
    _Written,
)
from .params import AnalysisParams
from .pool import run_batches

__all__ = [
    "CorpusSummary",
    "analyze_corpus",
    "analyze_file",
    "load_clips",
    "read_frames",
    "CLIPS_FILE",
    "FRAMES_DIR",
    "MANIFEST_FILE",
]



@dataclass
class CorpusSummary:
    """What a corpus run did."""

    out_dir: str
    n_files: int = 0
    n_ok: int = 0
    n_error: int = 0
    n_skipped: int = 0
    #: files skipped because an earlier run recorded them as errors
    n_error_earlier: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    audio_seconds: float = 0.0


def analyze_file(
    audio_dir: str, rel_path: str, *, channel_order: str = "ambix",
    params: AnalysisParams | None = None, normalisation: str | None = None,
) -> tuple[dict, dict | None]:
    """Analyse one file; never raises for a bad file (``normalisation`` as
    :func:`foakit.io.read_audio`).

    Returns
    -------
    record : dict
        The clips.jsonl record (without ``frames_part``).
    frames : dict of ndarray or None
        The per-frame table, None on error.
    """
    path = os.path.join(audio_dir, rel_path)
    rec = _new_record(rel_path, channel_order)
    try:
        clip = read_audio(path, channel_order=channel_order, normalisation=normalisation)
        rec.update(sample_rate=clip.sample_rate, duration_s=round(clip.duration_s, 6),
                   channels=clip.channels)
        if clip.channels != 4:
            rec["channel_order"] = None
        res = analyze_clip(clip, params=params)
    except AudioError as exc:
        rec.update(status="error", error=exc.problem)
        return rec, None
    except FoakitError as exc:
        rec.update(status="error", error=str(exc))
        return rec, None
    except Exception as exc:  # a bug must not stop a corpus run; keep the evidence
        rec.update(status="error", error=f"internal error: {type(exc).__name__}: {exc}")
        return rec, None
    rec["events"] = [e.to_dict() for e in res.events]
    rec["n_sources"] = res.n_sources
    rec["background"] = res.background
    rec["n_frames"] = int(res.frames["frame"].shape[0])
    return rec, res.frames


def _work(audio_dir: str, paths: list[str], channel_order: str, params_d: dict,
          normalisation: str | None = None):
    params = AnalysisParams.from_dict(params_d)
    return [analyze_file(audio_dir, p, channel_order=channel_order, params=params,
                         normalisation=normalisation)
            for p in paths]


def _work_cuda(audio_dir: str, paths: list[str], channel_order: str, params_d: dict,
               pipeline: str = "cuda", normalisation: str | None = None
               ) -> list[tuple[dict, dict | None]]:
    """A Dask worker's batch on its GPU: the pipeline of ``backend="cuda"`` over one batch.

    ``pipeline="cpu"`` runs the same pipeline on NumPy (tests without a device).  Batches
    under 64 files keep its host work in this process (a Dask worker process is daemonic
    and may not start processes); 64 files or more decode on one thread.

    Raises
    ------
    BackendUnavailable
        ``pipeline="cuda"`` and the worker has no usable CUDA device.
    """
    from .backend import resolve_backend
    from .gpu import analyze_batches_cuda

    if pipeline == "cuda":
        resolve_backend("cuda")
    out: list[tuple[dict, dict | None]] = []
    analyze_batches_cuda(audio_dir, [paths], channel_order, AnalysisParams.from_dict(params_d),
                         out.extend, workers=8 if len(paths) < 64 else 1, backend=pipeline,
                         normalisation=normalisation)
    return out


def keep_freed_memory() -> None:
    """Let glibc keep freed memory in the process instead of handing it back to the kernel.

    Each clip allocates and frees some 15 MB of NumPy arrays (4 MB each for the frames and
    their spectrum).  Under glibc's adaptive thresholds they went back to the kernel after
    every clip and were faulted in again: about 2000 page faults per 10 s clip, a third of
    its time.  With fixed thresholds the heap keeps and reuses them; peak memory is
    unchanged (the heap stays at the largest clip's working set).  A no-op where
    ``mallopt`` is missing (not glibc).  Called in the worker processes and by the
    ``foakit analyze`` command for its own process (library callers' processes are left
    alone).
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 32 << 20)  # glibc's maximum on 64-bit
    mallopt(m_trim_threshold, 128 << 20)


def _manifest(out_dir: Path, audio_dir: str, channel_order: str, params: AnalysisParams,
              backend: str, normalisation: str) -> None:
    path = out_dir / MANIFEST_FILE
    new = {
        "foakit_version": __version__,
        "audio_dir": os.path.abspath(audio_dir),
        "channel_order": channel_order,
        "normalisation": normalisation,
        "backend": backend,
        "params": params.to_dict(),
        "conventions": CONVENTIONS,
        "stft": "centred frames, hop round(hop_s * sr), Hann window and n_fft of the power of "
                "two nearest win_s * sr; frame t at time t * hop / sr",
        "frame_columns": ["audio_id", "path", *FRAME_COLUMNS],
        "distance_proxy": "diffuseness: r = distance_rc_m * sqrt(psi / (1 - psi)); none "
                          "(distance_m null) in clips of diffuseness < distance_min_psi",
    }
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            old = None
        if old is not None:
            # a manifest written before normalisations were read holds the order's own
            old.setdefault("normalisation", resolve_normalisation(old.get("channel_order")
                                                                  or channel_order))
            for key in ("channel_order", "normalisation", "params"):
                if old.get(key) != json.loads(json.dumps(new[key])):
                    raise ParameterError(
                        f"{out_dir} holds a run with a different {key} "
                        f"({old.get(key)!r}); resume with the same settings or use a new OUT")
            new["created"] = old.get("created")
    if not new.get("created"):  # a new run, or an old manifest without the stamp
        new["created"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    new["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(new, indent=2))
    os.replace(tmp, path)


def _batches(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def analyze_corpus(
    audio_dir: str | os.PathLike,
    out_dir: str | os.PathLike,
    *,
    channel_order: str = "ambix",
    normalisation: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    backend: str = "cpu",
    files: Iterable[str] | None = None,
    params: AnalysisParams | None = None,
    batch_size: int = 16,
    retry_errors: bool = False,
    on_batch: Callable[[int], None] | None = None,
    notify: Callable[[str], None] | None = None,
    dask: Any = None,
) -> CorpusSummary:
    """Analyse every audio file under ``audio_dir`` into ``out_dir`` (resumable).

    Parameters
    ----------
    audio_dir : str or PathLike
        Searched recursively (symlinks followed) for .wav / .flac.
    out_dir : str or PathLike
        Output folder; an existing run there is resumed.
    channel_order : {"ambix", "fuma"}
        Channel order of the corpus' 4-channel files.
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Normalisation of the corpus' 4-channel files, converted to SN3D when each is read;
        None: the order's own (SN3D for ambiX, FuMa for FuMa).  Recorded in the manifest.
    workers : int, optional
        Worker processes; default all cores.  1 runs in this process.
    progress : bool
        Show a tqdm progress bar on stderr.
    backend : {"cpu", "auto", "cuda"}
        Compute backend (see :func:`foakit.backend.resolve_backend`).
    files : iterable of str, optional
        Only these paths (relative to ``audio_dir``).
    params : AnalysisParams, optional
    batch_size : int
        Clips per task (and per Parquet part).
    retry_errors : bool
        Analyse again the files whose earlier record is an error.
    on_batch : callable, optional
        Called with the number of clips after each batch is written (tests, progress).
    notify : callable, optional
        Called with one line when something slow happens that is not analysis: the first
        run after installing compiles the Numba kernels (about 20 s; they are cached for
        later runs).
    dask : str, DaskCluster or distributed.Client, optional
        Analyse on this Dask cluster (see :func:`foakit.dist.run_batches_dask`): the
        workers read the audio at ``audio_dir`` and write their batches' Parquet parts and
        record files into ``out_dir`` (both on storage they see at the same absolute
        paths); this process commits the batches to clips.jsonl and writes the manifest.
        ``workers`` is then not used.

    Returns
    -------
    CorpusSummary
    """
    from .backend import resolve_backend

    t0 = time.perf_counter()
    order = check_channel_order(channel_order)
    norm = resolve_normalisation(order, normalisation)
    if not os.path.isdir(audio_dir):
        raise ParameterError(f"audio folder {os.fspath(audio_dir)!r} does not exist")
    if batch_size < 1:
        raise ParameterError(f"{batch_size=} must be >= 1")
    params = params or AnalysisParams()
    # on Dask the GPUs are the workers': "cuda" is checked there, not in this client
    resolved = "cuda" if dask is not None and str(backend).lower() == "cuda" \
        else resolve_backend(backend)
    audio_dir = os.fspath(audio_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _manifest(out, audio_dir, order, params, resolved, norm)
    done = _repair(out)
    all_files = sorted(set(files)) if files is not None else iter_audio_files(audio_dir)
    todo = [p for p in all_files
            if p not in done or (retry_errors and done[p].get("status") != "ok")]
    summary = CorpusSummary(out_dir=str(out), n_files=len(all_files),
                            n_skipped=len(all_files) - len(todo))
    for p in set(all_files) - set(todo):
        if done[p].get("status") != "ok":
            summary.n_error_earlier += 1
            summary.errors.append((p, done[p].get("error")))
    writer = _Writer(out)
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise ParameterError(f"{workers=} must be >= 1")
    if todo and resolved != "cuda" and dask is None:
        # before the progress bar starts, so that its throughput is the analysis alone
        warm_kernels(params, notify=notify)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(all_files), initial=summary.n_skipped, unit="clip",
                   desc="foakit analyze", dynamic_ncols=True)

    def count(path: str, status: str, duration_s: float | None, error: str | None) -> None:
        if status == "ok":
            summary.n_ok += 1
            summary.audio_seconds += duration_s or 0.0
        else:
            summary.n_error += 1
            summary.errors.append((path, error))

    def finish(results: list) -> None:
        if results and isinstance(results[0], _Written):  # written by a Dask worker
            writer.commit(results[0].records)
            for w in results:
                count(w.path, w.status, w.duration_s, w.error)
        else:
            writer.write(results)
            for rec, _ in results:
                count(rec["path"], rec["status"], rec["duration_s"], rec["error"])
        if bar is not None:
            bar.update(len(results))
        if on_batch is not None:
            on_batch(len(results))

    def failed(rel_path: str, error: str) -> tuple[dict, None]:
        return _error_record(rel_path, order, error), None

    batches = list(_batches(todo, batch_size))
    if dask is not None:
        # workers (on other machines, in other folders) write into OUT themselves
        writer.records_dir.mkdir(exist_ok=True)
        audio_abs, out_abs = os.path.abspath(audio_dir), os.path.abspath(out)
    try:
        if resolved == "cuda" and dask is not None:  # each Dask worker batches on its GPU
            run_batches(deque(batches),
                        partial(_work_write, partial(_work_cuda, audio_abs, channel_order=order,
                                                     params_d=params.to_dict(),
                                                     normalisation=norm), out_abs),
                        finish, failed, workers=workers, initializer=keep_freed_memory,
                        reraise=(BackendUnavailable, OutputUnwritable), dask=dask)
        elif resolved == "cuda":  # decoding threads + device batches (foakit.gpu.pipeline)
            from .gpu import analyze_batches_cuda

            analyze_batches_cuda(audio_dir, batches, order, params, finish, workers=workers,
                                 normalisation=norm)
        else:
            # forked workers inherit the kernels warm_kernels loaded and keep their freed
            # memory; Dask workers are not forked from here: each loads the kernels itself
            if dask is None:
                run_batches(deque(batches),
                            partial(_work, audio_dir, channel_order=order,
                                    params_d=params.to_dict(), normalisation=norm),
                            finish, failed, workers=workers, initializer=keep_freed_memory)
            else:
                run_batches(deque(batches),
                            partial(_work_write, partial(_work, audio_abs, channel_order=order,
                                                         params_d=params.to_dict(),
                                                         normalisation=norm), out_abs),
                            finish, failed, workers=workers,
                            initializer=partial(_prepare_worker, params),
                            reraise=(OutputUnwritable,), dask=dask)
    finally:
        if bar is not None:
            bar.close()
    if dask is not None:
        _drop_uncommitted(out)
    summary.seconds = time.perf_counter() - t0
    return summary


#: What :func:`warm_kernels` says when loading the kernels takes long (they are compiling).
COMPILE_NOTICE = ("compiling the analysis kernels (once after installing foakit, about 20 s; "
                  "later runs load them from the cache)")


def warm_kernels(params: AnalysisParams | None = None, *,
                 notify: Callable[[str], None] | None = None, after_s: float = 1.5) -> None:
    """:func:`load_kernels`, calling ``notify(COMPILE_NOTICE)`` once if it takes longer than
    ``after_s`` (loading cached kernels takes a fraction of a second; compiling them takes
    about 20 s)."""
    if notify is None:
        load_kernels(params)
        return
    import threading

    timer = threading.Timer(after_s, notify, args=(COMPILE_NOTICE,))
    timer.daemon = True
    timer.start()
    try:
        load_kernels(params)
    finally:
        timer.cancel()


def _prepare_worker(params: AnalysisParams) -> None:
    """A Dask worker's start on its first batch: the local workers' initializer, and the
    kernels they inherit from the parent."""
    keep_freed_memory()
    load_kernels(params)


def load_kernels(params: AnalysisParams | None = None) -> None:
    """Analyse a short synthetic FOA clip in this process.

    Run before workers are forked, it loads what the first clip of every worker otherwise
    loads again in each (about 0.5 s of CPU apiece): the modules imported on first use,
    Numba's typing and lowering registries, and each kernel's
    cached machine code for the argument types of decoded 4-channel clips.  Never raises: it
    only saves time.
    """
    from ._ext import numba_blas_check_light
    from .conventions import encode_plane_wave
    from .io import _pcm16_clip
    from .kernels.stft import stft

    try:
        sr = 16000
        rng = np.random.default_rng(0)
        s = np.zeros(sr)
        s[sr // 4:3 * sr // 4] = rng.normal(size=sr // 2) * 0.1
        x = encode_plane_wave(s, 30.0, 10.0) + rng.normal(size=(4, sr)) * 1e-4
        # 16-bit PCM as read_audio decodes it (contiguous rows), and the framing of the
        # (4, n) rows strided over interleaved float frames that it gives for other files
        pcm = np.round(x.T / np.abs(x).max() * 16000.0).astype(np.int16)
        strided = np.ascontiguousarray(x.T, dtype=np.float32).T
        grid = (params or AnalysisParams()).grid(sr)
        with numba_blas_check_light():  # Numba sets up its compiler here (first kernel)
            samples = _pcm16_clip(pcm, sr, "", "ambix", "sn3d").samples
            analyze_samples(samples, sr, params=params)
            stft(strided, win_length=grid.win_length, hop_length=grid.hop_length,
                 n_fft=grid.n_fft)
    except Exception:  # pragma: no cover - the workers would then meet the problem
        return


def _error_record(rel_path: str, order: str, error: str) -> dict:
    rec = _new_record(rel_path, order)
    rec.update(status="error", error=error)
    return rec


def _new_record(rel_path: str, order: str) -> dict:
    return {
        "audio_id": PurePosixPath(rel_path).stem,
        "path": rel_path,
        "status": "ok",
        "error": None,
        "sample_rate": None,
        "duration_s": None,
        "channels": None,
        "channel_order": order,
        "n_sources": None,
        "events": [],
        "background": [],
        "n_frames": 0,
    }


def load_clips(out_dir: str | os.PathLike) -> dict[str, dict]:
    """The clips.jsonl records of a run, the latest per path, keyed by the relative path."""
    path = Path(out_dir) / CLIPS_FILE
    if not path.exists():
        raise ParameterError(f"{os.fspath(out_dir)!r} holds no {CLIPS_FILE} (not a foakit run)")
    records: dict[str, dict] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                break  # torn last line of a killed run
            try:
                rec = json.loads(line)
                records[rec["path"]] = rec
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    return records


def read_frames(out_dir: str | os.PathLike, *, audio_ids: Iterable[str] | None = None):
    """The per-frame table of a run as a ``pyarrow.Table`` (optionally some clips only).

    Only parts referenced by clips.jsonl are read, and for each path only the part of its
    latest record, so frames of a clip analysed twice appear once.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    recs = load_clips(out_dir)
    want = set(audio_ids) if audio_ids is not None else None
    by_part: dict[str, set[str]] = {}
    for rec in recs.values():
        part = rec.get("frames_part")
        if part and (want is None or rec["audio_id"] in want):
            by_part.setdefault(part, set()).add(rec["path"])
    tables = []
    for part, paths in sorted(by_part.items()):
        t = pq.read_table(Path(out_dir) / FRAMES_DIR / part)
        tables.append(t.filter(pc.is_in(t["path"], value_set=pa.array(sorted(paths)))))
    if not tables:
        return pa.table({k: pa.array([], type=pa.float32()) for k in ("audio_id", *FRAME_COLUMNS)})
    return pa.concat_tables(tables)
