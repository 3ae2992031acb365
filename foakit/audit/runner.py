"""Many clips through :func:`~foakit.audit.estimates.estimate_clip` in worker processes,
resuming from checkpoints (:mod:`foakit.audit.checkpoint`)."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from ..conventions import check_channel_order, resolve_normalisation
from ..errors import FoakitError
from ..params import AnalysisParams
from ..pool import run_batches
from .estimates import ClipEstimate, estimate_clip
from .preset import AUDIT_PARAMS

if TYPE_CHECKING:
    from .checkpoint import EstimateStore

__all__ = ["estimate_clips"]


class _Job(NamedTuple):
    """One clip to analyse; ``ref`` is its checkpoint ``(relative path, key)`` or None."""

    audio_id: str
    path: str
    alternative: bool
    ref: tuple[str, str] | None = None


def _work(jobs: list[_Job], channel_order: str, params_d: dict, folder: str | None,
          normalisation: str | None = None) -> list[tuple[ClipEstimate, dict | None]]:
    """Analyse a batch; with a checkpoint ``folder``, save each estimate there (the caller
    appends the index lines once the batch is back)."""
    params = AnalysisParams.from_dict(params_d)
    out = []
    for j in jobs:
        est = estimate_clip(j.audio_id, j.path, channel_order=channel_order,
                            alternative=j.alternative, params=params,
                            normalisation=normalisation)
        out.append((est, _checkpoint(folder, est, j)))
    return out


def _checkpoint(folder: str | None, est: ClipEstimate, job: _Job) -> dict | None:
    if folder is None or job.ref is None:
        return None
    from .checkpoint import checkpoint_record

    return checkpoint_record(folder, est, job.ref, job.alternative)


def estimate_clips(
    jobs: Iterable[tuple[str, str, bool]],
    *,
    channel_order: str = "ambix",
    normalisation: str | None = None,
    workers: int | None = None,
    progress: bool = False,
    params: AnalysisParams | None = None,
    desc: str = "foakit audit",
    batch_size: int = 4,
    on_result: Callable[[ClipEstimate], None] | None = None,
    store: EstimateStore | None = None,
    retry_errors: bool = False,
    keep: bool = True,
    dask: Any = None,
) -> dict[str, ClipEstimate]:
    """Analyse many clips in worker processes, resuming from checkpoints.

    Parameters
    ----------
    jobs : iterable of (audio_id, path, alternative)
        ``alternative``: also decode as the other channel order.
    channel_order : {"ambix", "fuma"}
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Declared normalisation (None: the order's own).
    workers : int, optional
        Processes (default: all cores); 1 runs here.
    progress : bool
        tqdm bar on stderr.
    params : AnalysisParams, optional
        Default :data:`foakit.audit.preset.AUDIT_PARAMS` (what the audits are calibrated on).
    desc : str
        Progress-bar label.
    batch_size : int
        Clips per task.
    on_result : callable, optional
        Called with each finished :class:`ClipEstimate` (in no particular order), after its
        checkpoint is recorded.
    store : EstimateStore, optional
        Checkpoints (:mod:`foakit.audit.checkpoint`): clips with a valid one are read back
        instead of analysed, every other clip is saved there as it finishes.  Its channel
        order, normalisation and parameters must be these.
    retry_errors : bool
        Analyse again the clips whose checkpoint records a failure.
    keep : bool
        Return the estimates; False returns an empty dict and holds none of them, so that
        memory stays flat when ``on_result`` consumes each one.
    dask : str, DaskCluster or distributed.Client, optional
        Analyse on this Dask cluster (:func:`foakit.pool.run_batches`); the workers read
        the audio and write their checkpoints at the paths this process gives them, so the
        audio and the checkpoint folder must be on storage every worker sees.

    Returns
    -------
    dict
        ``audio_id`` -> :class:`ClipEstimate` (empty when ``keep`` is False).

    Raises
    ------
    FoakitError
        A checkpoint cannot be written.

    Notes
    -----
    A worker that dies (a crash inside a decoder, the OOM killer) breaks the pool and every
    batch in flight with it: those clips are then analysed again one at a time in a
    one-worker pool, where a second death names its clip, which is recorded as an error
    (:data:`foakit.pool.WORKER_DIED`; see :func:`foakit.pool.run_batches`).
    """
    order = check_channel_order(channel_order)
    norm = resolve_normalisation(order, normalisation)
    params = params or AUDIT_PARAMS
    workers = int(workers or os.cpu_count() or 1)
    folder = os.fspath(store.folder) if store is not None else None
    todo: list[_Job] = []
    cached: list[tuple[_Job, dict]] = []
    n_jobs = 0
    for aid, path, alt in jobs:
        n_jobs += 1
        job = _Job(aid, os.fspath(path), bool(alt), store.ref(path) if store else None)
        rec = store.lookup(job.ref, alternative=job.alternative, retry_errors=retry_errors) \
            if store is not None else None
        if rec is not None:
            cached.append((job, rec))
        else:
            todo.append(job)
    queue = deque(todo[i:i + batch_size] for i in range(0, len(todo), batch_size))
    out: dict[str, ClipEstimate] = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_jobs, unit="clip", desc=desc, dynamic_ncols=True)

    def deliver(est: ClipEstimate) -> None:
        if keep:
            out[est.audio_id] = est
        if on_result is not None:
            on_result(est)
        if bar is not None:
            bar.update(1)

    def finish(results: list[tuple[ClipEstimate, dict | None]]) -> None:
        if store is not None:  # checkpoints first: a clip is consumed only once it is safe
            store.commit(r for _, r in results if r is not None)
        for est, _ in results:
            deliver(est)

    def failed(job: _Job, error: str) -> tuple[ClipEstimate, dict | None]:
        est = ClipEstimate(job.audio_id, job.path, status="error", error=error)
        return est, _checkpoint(folder, est, job)

    cached.reverse()

    def load_one() -> bool:
        """Read one checkpointed clip (done while the workers compute); False when none
        is left.  An unreadable checkpoint sends its clip back to the queue."""
        if not cached:
            return False
        job, rec = cached.pop()
        est = store.load(rec, job.audio_id, job.path, alternative=job.alternative)
        if est is None:
            queue.append([job])
        else:
            deliver(est)
        return True

    try:
        # a FoakitError from a worker is a checkpoint that cannot be written: stop, the
        # run can be resumed
        run_batches(queue, partial(_work, channel_order=order, params_d=params.to_dict(),
                                   folder=folder, normalisation=norm),
                    finish, failed, workers=workers, idle=load_one, reraise=(FoakitError,),
                    dask=dask)
        if store is not None:
            store.prune()
    finally:
        if bar is not None:
            bar.close()
    return out
