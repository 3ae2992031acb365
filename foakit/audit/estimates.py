"""Per-clip signal evidence for the audits: DOA peaks, events, the DOA map, onsets."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ..conventions import from_internal, to_internal
from ..errors import FoakitError
from ..params import AnalysisParams
from .conventions import normalisation_stats
from .doamap import DoaMap, doa_map
from .hypotheses import other_order
from .preset import AUDIT_PARAMS

__all__ = [
    "ClipEstimate",
    "DoaEstimate",
    "directional_blocks",
    "drop_doa_maps",
    "estimate_clip",
    "mean_diffuseness",
]


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
    norm_stats : ndarray [shape=(3,)] or None
        :func:`foakit.audit.conventions.normalisation_stats` of the clip as read (SN3D when
        the declared normalisation is right): dipole power, omni power, bins used.
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
    norm_stats: np.ndarray | None = None

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
    normalisation: str | None = None,
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
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Declared normalisation of the file (None: the order's own); the clip is converted
        to SN3D when read, and its :attr:`ClipEstimate.norm_stats` measured on the result.

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
        clip = read_audio(p, channel_order=channel_order, normalisation=normalisation)
        est.sample_rate = clip.sample_rate
        est.duration_s = clip.duration_s
        if clip.channels != 4:
            raise FoakitError(f"{clip.channels} channel(s): the audit needs 4-channel FOA")
        est.doa, est.frames = _doa(clip.samples, clip.sample_rate, clip.channel_order,
                                   params, True)
        est.norm_stats = normalisation_stats(clip.samples, clip.sample_rate)
        if alternative:
            # the other order is tested on the SN3D signal, with each order's own W gain, so
            # the re-decoding is the same whichever normalisation the file was converted from
            raw = from_internal(clip.samples, clip.channel_order)
            other = other_order(clip.channel_order)
            est.alt, _ = _doa(np.ascontiguousarray(to_internal(raw, other)), clip.sample_rate,
                              other, params, False)
    except FoakitError as exc:
        est.status, est.error = "error", str(getattr(exc, "problem", None) or exc)
    except Exception as exc:  # a bug must not stop a corpus audit; keep the evidence
        est.status, est.error = "error", f"internal error: {type(exc).__name__}: {exc}"
    return est


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
