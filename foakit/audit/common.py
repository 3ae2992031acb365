"""What every label audit shares: verdicts, convention hypotheses, per-clip DOA estimates.

Verdicts
--------
Each label gets one :class:`LabelVerdict`: ``consistent`` (the evidence agrees),
``suspicious`` (the evidence disagrees; ``confidence`` in 0-1 and a ``reason``) or
``unverifiable`` (no usable evidence; ``reason`` says why: no time window, overlap, diffuse
field, no DOA peak, unreadable audio ...).

Convention hypotheses
---------------------
The ways a wrong pipeline turns true directions into labels (FORMATS.md section 1).  Each
angle map is its own inverse, so it maps labels back to the directions they would mean:

================== ==================== ===============================================
name               label -> direction   what went wrong
================== ==================== ===============================================
``declared``       az, el               nothing
``mirror_azimuth`` -az, el              azimuth sign (clockwise written as CCW)
``front_back``     180 - az, el         front and back exchanged
``yx_swap``        90 - az, el          x and y exchanged (e.g. ACN 1..3 named x, y, z)
``elevation_sign`` az, -el              elevation sign
================== ==================== ===============================================

and one hypothesis about the **signal**, tested by decoding the audio again: the files are
in the other channel order than declared (``fuma_as_ambix``: FuMa W, X, Y, Z files read as
ambiX W, Y, Z, X; ``ambix_as_fuma`` the converse).  A wrong channel order is a rotation
plus a wrong W gain, so it cannot be told apart from label errors by an angle map alone.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..conventions import (
    CHANNEL_ORDERS,
    check_channel_order,
    from_internal,
    to_internal,
    wrap_azimuth,
)
from ..errors import FoakitError, ParameterError
from ..params import AnalysisParams
from ..pool import run_batches
from .doamap import DoaMap, doa_map
from .preset import AUDIT_PARAMS

if TYPE_CHECKING:
    from .checkpoint import EstimateStore

__all__ = [
    "VERDICTS",
    "ANGLE_HYPOTHESES",
    "LabelVerdict",
    "ClipEstimate",
    "DoaEstimate",
    "apply_hypothesis",
    "redecode_hypothesis",
    "other_order",
    "estimate_clip",
    "estimate_clips",
    "AuditResult",
    "count_verdicts",
    "best_hypothesis",
    "directional_blocks",
    "mean_diffuseness",
    "drop_doa_maps",
    "require_positive",
    "require_prominence_order",
]

VERDICTS = ("consistent", "suspicious", "unverifiable")

#: Angle-map hypotheses, in the order they are reported (see the module docstring).
ANGLE_HYPOTHESES = ("declared", "mirror_azimuth", "front_back", "yx_swap", "elevation_sign")


def other_order(channel_order: str) -> str:
    """The channel order that is not ``channel_order`` (ambix <-> fuma)."""
    order = check_channel_order(channel_order)
    return next(o for o in CHANNEL_ORDERS if o != order)


def redecode_hypothesis(declared_order: str) -> str:
    """Name of the re-decoding hypothesis for a corpus declared ``declared_order``."""
    order = check_channel_order(declared_order)
    return f"{other_order(order)}_as_{order}"


def apply_hypothesis(name: str, az_deg: Any, el_deg: Any) -> tuple[np.ndarray, np.ndarray]:
    """Map label directions through an angle hypothesis (its own inverse).

    Parameters
    ----------
    name : str
        One of :data:`ANGLE_HYPOTHESES`.
    az_deg, el_deg : float or ndarray
        Degrees.

    Returns
    -------
    az, el : ndarray
        Azimuth wrapped to [-180, 180).
    """
    az = np.asarray(az_deg, dtype=float)
    el = np.asarray(el_deg, dtype=float)
    if name == "declared":
        return wrap_azimuth(az), el.copy()
    if name == "mirror_azimuth":
        return wrap_azimuth(-az), el.copy()
    if name == "front_back":
        return wrap_azimuth(180.0 - az), el.copy()
    if name == "yx_swap":
        return wrap_azimuth(90.0 - az), el.copy()
    if name == "elevation_sign":
        return wrap_azimuth(az), -el
    from ..errors import ParameterError

    raise ParameterError(f"unknown hypothesis {name!r}; expected one of {ANGLE_HYPOTHESES}")


@dataclass
class LabelVerdict:
    """The verdict on one label.

    Attributes
    ----------
    key : dict
        What identifies the label: ``qa_id`` (SO-Bench) or ``audio_id``, ``class``,
        ``source`` (STARSS), plus ``audio_id`` and ``task_name`` where known.
    field : str
        ``azimuth``, ``elevation``, ``distance``, ``onset``, ``time_span``, ``count``,
        ``relation``, ``direction`` (both angles) or ``time`` (STARSS frames).
    verdict : str
        One of :data:`VERDICTS`.
    label : Any
        The labelled value.
    estimate : Any
        What the evidence says (None when unverifiable).
    confidence : float
        0-1, how sure the audit is that a suspicious label is wrong (0 otherwise).
    reason : str
        One sentence: why suspicious, or why unverifiable ("" when consistent).
    evidence : dict
        Numbers behind the verdict (errors, supports, the checks that ran).
    """

    key: dict
    field: str
    verdict: str
    label: Any = None
    estimate: Any = None
    confidence: float = 0.0
    reason: str = ""
    evidence: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = dict(self.key)
        d.update(field=self.field, verdict=self.verdict, label=_jsonable(self.label),
                 estimate=_jsonable(self.estimate), confidence=round(float(self.confidence), 3),
                 reason=self.reason, evidence=_jsonable(self.evidence))
        return d


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, float | np.floating):
        v = float(x)
        return round(v, 4) if np.isfinite(v) else None
    return x


@dataclass
class DoaEstimate:
    """The DOA evidence of one decoding of one clip.

    Attributes
    ----------
    channel_order : str
        The order the file was decoded as.
    window_s : float
        Length of a DOA window (s); window ``w`` covers ``[w * window_s, (w + 1) * window_s)``.
    peaks : ndarray [shape=(n_windows, max_peaks, 4)]
        Per window, unit vectors (x, y, z) and weights of the DOA peaks, strongest first;
        unused slots have weight 0.
    events : list of dict
        :meth:`foakit.events.Event.to_dict` of each event.
    dmap : DoaMap or None
        Time x direction energy map (:mod:`foakit.audit.doamap`); audits drop it once used.
    onsets : ndarray [shape=(k, 5)] or None
        :func:`foakit.audit.onsets.onset_directions` of the clip (time, azimuth, elevation,
        energy, directness per onset): the direct sound's direction before its floor and
        ceiling reflections arrive.
    """

    channel_order: str
    window_s: float
    peaks: np.ndarray
    events: list[dict]
    dmap: DoaMap | None = None
    onsets: np.ndarray | None = None

    def window_peaks(self, w: int) -> np.ndarray:
        """Unit vectors ``(k, 3)`` of the peaks of window ``w`` (empty outside the clip)."""
        if w < 0 or w >= self.peaks.shape[0]:
            return np.zeros((0, 3))
        p = self.peaks[w]
        return p[p[:, 3] > 0, :3].astype(float)


@dataclass
class ClipEstimate:
    """Signal evidence of one clip.

    Attributes
    ----------
    audio_id, path : str
    status : str
        ``ok`` or ``error``.
    error : str or None
        One line, for ``error``.
    sample_rate : int
    duration_s : float
    frames : dict of ndarray
        The per-frame table of :func:`foakit.analysis.analyze_samples` (20 ms frames):
        ``time_s``, ``energy_db``, ``active``, ``azimuth_deg``, ``elevation_deg``,
        ``diffuseness``, ``doa_weight``, ``source``.
    doa : DoaEstimate or None
        Under the declared channel order.
    alt : DoaEstimate or None
        Under the other channel order (only for clips the convention audit re-decodes).
    """

    audio_id: str
    path: str
    status: str = "ok"
    error: str | None = None
    sample_rate: int = 0
    duration_s: float = 0.0
    frames: dict = field(default_factory=dict)
    doa: DoaEstimate | None = None
    alt: DoaEstimate | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.doa is not None

    def frame_slice(self, t0: float, t1: float) -> slice:
        """Frames whose centre time lies in ``[t0, t1)``."""
        t = self.frames.get("time_s")
        if t is None or len(t) == 0:
            return slice(0, 0)
        a = int(np.searchsorted(t, t0, side="left"))
        b = int(np.searchsorted(t, t1, side="left"))
        return slice(a, max(a, b))


def _doa(samples: np.ndarray, sr: int, order: str, params: AnalysisParams,
         keep_frames: bool) -> tuple[DoaEstimate, dict | None]:
    from ..analysis import analyze_samples
    from .onsets import onset_directions

    res = analyze_samples(samples, sr, params=params)
    if res.peaks is None:
        raise FoakitError("not a 4-channel FOA clip: no directions to audit")
    window_s = res.window_frames / res.grid.frame_rate
    doa = DoaEstimate(channel_order=order, window_s=float(window_s),
                      peaks=np.asarray(res.peaks, dtype=np.float32),
                      events=[e.to_dict() for e in res.events],
                      dmap=doa_map(samples, sr, params=params),
                      onsets=onset_directions(samples, sr))
    return doa, (res.frames if keep_frames else None)


def estimate_clip(
    audio_id: str, path: str | os.PathLike, *, channel_order: str = "ambix",
    alternative: bool = False, params: AnalysisParams | None = None,
) -> ClipEstimate:
    """Analyse one clip for an audit; never raises for a bad file.

    Parameters
    ----------
    audio_id : str
    path : str or PathLike
    channel_order : {"ambix", "fuma"}
        Declared order of the file.
    alternative : bool
        Also decode the file as the other channel order and analyse that
        (:attr:`ClipEstimate.alt`), for the convention audit.
    params : AnalysisParams, optional
        Default :data:`foakit.audit.preset.AUDIT_PARAMS` (what the audits are calibrated on).

    Returns
    -------
    ClipEstimate
        ``status="error"`` and a one-line ``error`` when the file cannot be read or is not
        4-channel FOA.
    """
    from ..io import read_audio

    p = os.fspath(path)
    est = ClipEstimate(audio_id=audio_id, path=p)
    params = params or AUDIT_PARAMS
    try:
        clip = read_audio(p, channel_order=channel_order)
        est.sample_rate = clip.sample_rate
        est.duration_s = clip.duration_s
        if clip.channels != 4:
            raise FoakitError(f"{clip.channels} channel(s): the audit needs 4-channel FOA")
        est.doa, est.frames = _doa(clip.samples, clip.sample_rate, clip.channel_order,
                                   params, True)
        if alternative:
            raw = from_internal(clip.samples, clip.channel_order)
            other = other_order(clip.channel_order)
            est.alt, _ = _doa(np.ascontiguousarray(to_internal(raw, other)), clip.sample_rate,
                              other, params, False)
    except FoakitError as exc:
        est.status, est.error = "error", str(getattr(exc, "problem", None) or exc)
    except Exception as exc:  # a bug must not stop a corpus audit; keep the evidence
        est.status, est.error = "error", f"internal error: {type(exc).__name__}: {exc}"
    return est


class _Job(NamedTuple):
    """One clip to analyse; ``ref`` is its checkpoint ``(relative path, key)`` or None."""

    audio_id: str
    path: str
    alternative: bool
    ref: tuple[str, str] | None = None


def _work(jobs: list[_Job], channel_order: str, params_d: dict, folder: str | None
          ) -> list[tuple[ClipEstimate, dict | None]]:
    """Analyse a batch; with a checkpoint ``folder``, save each estimate there (the caller
    appends the index lines once the batch is back)."""
    params = AnalysisParams.from_dict(params_d)
    out = []
    for j in jobs:
        est = estimate_clip(j.audio_id, j.path, channel_order=channel_order,
                            alternative=j.alternative, params=params)
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
    workers: int | None = None,
    progress: bool = False,
    params: AnalysisParams | None = None,
    desc: str = "foakit audit",
    batch_size: int = 4,
    on_result: Callable[[ClipEstimate], None] | None = None,
    store: EstimateStore | None = None,
    retry_errors: bool = False,
    keep: bool = True,
) -> dict[str, ClipEstimate]:
    """Analyse many clips in worker processes, resuming from checkpoints.

    Parameters
    ----------
    jobs : iterable of (audio_id, path, alternative)
        ``alternative``: also decode as the other channel order.
    channel_order : {"ambix", "fuma"}
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
        order and parameters must be these.
    retry_errors : bool
        Analyse again the clips whose checkpoint records a failure.
    keep : bool
        Return the estimates; False returns an empty dict and holds none of them, so that
        memory stays flat when ``on_result`` consumes each one.

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
                                   folder=folder),
                    finish, failed, workers=workers, idle=load_one, reraise=(FoakitError,))
        if store is not None:
            store.prune()
    finally:
        if bar is not None:
            bar.close()
    return out


@dataclass
class AuditResult:
    """What an audit found.

    Attributes
    ----------
    kind : str
        ``"starss"`` or ``"sobench"``.
    verdicts : list of LabelVerdict
    summary : dict
        Counts by verdict and field, the convention block, metrics.
    failures : list of (str, str)
        Files that could not be audited and why.
    clips : mapping
        ``audio_id`` -> :class:`~foakit.audit.common.ClipEstimate` of the clips analysed
        without error (read from the checkpoints on access when the audit had a store).
    draw : dict
        Per verdict index, what plots draw as the label (times and directions).
    checkpoints : dict
        With a checkpoint store: its folder and how many clips were ``loaded`` from it and
        ``analysed`` (written to it) by this run; empty without one.
    """

    kind: str
    verdicts: list[LabelVerdict]
    summary: dict
    failures: list[tuple[str, str]] = field(default_factory=list)
    clips: Mapping[str, ClipEstimate] = field(default_factory=dict)
    draw: dict[int, dict] = field(default_factory=dict)
    checkpoints: dict = field(default_factory=dict)

    @property
    def flagged(self) -> list[LabelVerdict]:
        return [v for v in self.verdicts if v.verdict == "suspicious"]


def count_verdicts(verdicts: list[LabelVerdict]) -> dict:
    """``{"by_verdict": {...}, "by_field": {field: {verdict: n}}}``."""
    by_v = {v: 0 for v in ("consistent", "suspicious", "unverifiable")}
    by_f: dict[str, dict[str, int]] = {}
    for v in verdicts:
        by_v[v.verdict] += 1
        f = by_f.setdefault(v.field, {k: 0 for k in by_v})
        f[v.verdict] += 1
    return {"total": len(verdicts), "by_verdict": by_v, "by_field": by_f}


def best_hypothesis(scores: dict[str, float]) -> str:
    """The hypothesis that scores highest on a clip; ``declared`` wins a tie with the top."""
    top = max(scores.values())
    return "declared" if scores.get("declared", -1) >= top - 1e-9 else \
        max(scores, key=scores.get)


def directional_blocks(dmap: DoaMap, t0: float, t1: float) -> int:
    """Number of blocks of ``[t0, t1)`` with any directional energy (the DOA votes there)."""
    sl = dmap.blocks(t0, t1)
    return int(np.sum(dmap.energy[sl].reshape(sl.stop - sl.start, -1).sum(axis=1) > 0))


def mean_diffuseness(clip: ClipEstimate, t0: float, t1: float) -> float | None:
    """Mean finite diffuseness of a clip's frames in ``[t0, t1)``.

    None when the clip carries no diffuseness track; NaN when no frame there is finite.
    """
    psi = clip.frames.get("diffuseness")
    if psi is None or not len(psi):
        return None
    v = np.asarray(psi)[clip.frame_slice(t0, t1)]
    v = v[np.isfinite(v)]
    return float(np.mean(v)) if len(v) else float("nan")


def drop_doa_maps(clip: ClipEstimate) -> None:
    """Free the :class:`~foakit.audit.doamap.DoaMap` of a clip's estimates (declared and
    re-decoded) once it has been audited."""
    for d in (clip.doa, clip.alt):
        if d is not None:
            d.dmap = None


def require_positive(cfg: Any, names: Iterable[str]) -> None:
    """Raise :class:`~foakit.errors.ParameterError` unless every named threshold is > 0."""
    for name in names:
        if not getattr(cfg, name) > 0:
            raise ParameterError(f"{name}={getattr(cfg, name)!r} must be > 0")


def require_prominence_order(cfg: Any) -> None:
    """Raise :class:`~foakit.errors.ParameterError` unless
    ``0 <= doubt_prom < agree_prom <= 1``."""
    if not 0 <= cfg.doubt_prom < cfg.agree_prom <= 1:
        raise ParameterError("need 0 <= doubt_prom < agree_prom <= 1")
