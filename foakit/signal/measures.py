"""Per-clip signal measures for mono and stereo audits (:func:`measure_clip`).

Levels are in dBFS (0 dBFS = a full-scale sample value 1.0).  Frame measures use 20 ms
frames of the mono signal (the channel mean; the louder channel when the mean cancels, see
``stereo.downmix_loss_db``):

* **silent**: frame RMS below ``silence_dbfs`` (default -60 dBFS);
* **noise floor**: the 10th percentile of the non-silent frames' levels;
* **active** (energy detector): frames above the noise floor by ``active_margin_db``
  (default 6 dB) and not silent;
* **speech**: :func:`foakit.signal.speech_activity`;
* **SNR**: the mean power of the speech frames (the active frames when there is no speech)
  over the mean power of the frames that are neither, minus one, in dB (None when either
  set is empty; the noise power is floored at -100 dBFS so digital silence gives a finite
  figure);
* **loudness**: ITU-R BS.1770-4 integrated loudness (LUFS) by pyloudnorm, None for clips
  under 0.4 s or with every gating block below -70 LUFS;
* **clipping**: the share of samples at full scale (|x| >= 0.999) or in runs of >= 3 equal
  samples at the clip's peak (a signal clipped and then scaled down);
* **stereo**: L/R correlation; identical channels; a dead channel (at least 40 dB below the
  other or digital silence); phase inversion (correlation <= -0.5); and the level change of
  the mono downmix against the channels' mean power (0 dB identical, -3 dB uncorrelated,
  very negative when inverted channels cancel).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ..errors import ParameterError
from .speech import resolve_detector, speech_activity

__all__ = ["ClipMeasures", "measure_clip", "frame_levels_db", "stereo_measures"]

_FLOOR_DB = -100.0


def _db(p: float) -> float:
    return float(10.0 * np.log10(max(p, 1e-20)))


def frame_levels_db(x: np.ndarray, sr: int, *, hop_s: float = 0.02) -> np.ndarray:
    """RMS level (dBFS) of consecutive ``hop_s`` frames of a mono signal.

    Returns
    -------
    ndarray [shape=(frames,)]
        -200 for digitally silent frames; a last partial frame is dropped (kept when it is
        the only one).
    """
    x = np.asarray(x, dtype=np.float64)
    hop = max(int(round(hop_s * sr)), 1)
    nf = max(len(x) // hop, 1 if len(x) else 0)
    if nf == 0:
        return np.zeros(0)
    fr = x[: nf * hop].reshape(nf, hop) if len(x) >= hop else x[None, :]
    p = np.mean(fr * fr, axis=1)
    return np.where(p > 0, 10 * np.log10(np.maximum(p, 1e-30)), -200.0)


def stereo_measures(samples: np.ndarray) -> dict:
    """L/R relations of a stereo clip (see the module docstring).

    Parameters
    ----------
    samples : ndarray [shape=(2, n)]

    Returns
    -------
    dict
        ``correlation`` (None when a channel is constant), ``identical``,
        ``dead_channel`` (None, "left" or "right"), ``inverted``, ``downmix_loss_db``,
        ``left_rms_dbfs``, ``right_rms_dbfs``.
    """
    s = np.asarray(samples, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != 2:
        raise ParameterError(f"samples has shape {s.shape}; expected (2, n)")
    left, right = s
    pl, pr = float(np.mean(left * left)), float(np.mean(right * right))
    lc, rc = left - left.mean(), right - right.mean()
    den = float(np.sqrt(np.sum(lc * lc) * np.sum(rc * rc)))
    corr = float(np.sum(lc * rc) / den) if den > 0 else None
    peak = float(max(np.max(np.abs(left)), np.max(np.abs(right)))) if s.size else 0.0
    identical = bool(peak > 0 and np.max(np.abs(left - right)) <= 1e-4 * peak)
    dead = None
    if max(pl, pr) > 1e-10:
        if pl == 0 or _db(pl) < _db(pr) - 40:
            dead = "left"
        elif pr == 0 or _db(pr) < _db(pl) - 40:
            dead = "right"
    mid = 0.5 * (left + right)
    mean_p = 0.5 * (pl + pr)
    loss = _db(float(np.mean(mid * mid))) - _db(mean_p) if mean_p > 0 else None
    return {"correlation": None if corr is None else round(corr, 4),
            "identical": identical, "dead_channel": dead,
            "inverted": bool(corr is not None and corr <= -0.5 and dead is None),
            "downmix_loss_db": None if loss is None else round(max(loss, -100.0), 2),
            "left_rms_dbfs": round(max(_db(pl), -200.0), 2),
            "right_rms_dbfs": round(max(_db(pr), -200.0), 2)}


@dataclass
class ClipMeasures:
    """What the signal says about one clip (see the module docstring for each measure).

    Attributes
    ----------
    duration_s, sample_rate, channels
    peak_dbfs : float or None
        None for an all-zero clip.
    clipped_share : float
    dc_offset : float
        The largest channel mean (signed).
    rms_dbfs : float or None
    noise_floor_dbfs : float or None
    silent_share, active_share, speech_share : float
        Frame shares.
    speech_segments : list of [onset_s, offset_s]
    snr_db : float or None
    loudness_lufs : float or None
    stereo : dict or None
        None for mono, else :func:`stereo_measures`.
    speech_detector : str or None
        The speech detector behind ``speech_share`` (``silero`` or ``features``), None
        when speech was not measured.
    """

    duration_s: float
    sample_rate: int
    channels: int
    peak_dbfs: float | None
    clipped_share: float
    dc_offset: float
    rms_dbfs: float | None
    noise_floor_dbfs: float | None
    silent_share: float
    active_share: float
    speech_share: float
    speech_segments: list = field(default_factory=list)
    snr_db: float | None = None
    loudness_lufs: float | None = None
    stereo: dict | None = None
    speech_detector: str | None = None

    def to_dict(self) -> dict:
        """Plain JSON-able dict (floats rounded)."""
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, float):
                d[k] = round(float(v), 5 if k in ("clipped_share", "dc_offset") else 3)
        return d


def _clipped_share(s: np.ndarray) -> float:
    a = np.abs(s)
    peak = float(a.max()) if a.size else 0.0
    if peak == 0:
        return 0.0
    full = a >= 0.999
    at_peak = a >= peak * (1 - 1e-6)
    # runs of >= 3 consecutive samples at the peak (per channel)
    run = at_peak[:, 2:] & at_peak[:, 1:-1] & at_peak[:, :-2]
    flat = np.zeros_like(at_peak)
    flat[:, 2:] |= run
    flat[:, 1:-1] |= run
    flat[:, :-2] |= run
    return float(np.mean(full | flat))


def _loudness(samples: np.ndarray, sr: int) -> float | None:
    if samples.shape[1] < int(0.4 * sr) + 1:
        return None
    import pyloudnorm

    try:
        v = float(pyloudnorm.Meter(sr).integrated_loudness(samples.T.astype(np.float64)))
    except (ValueError, ZeroDivisionError):
        return None
    return v if np.isfinite(v) else None


def measure_clip(samples: np.ndarray, sr: int, *, hop_s: float = 0.02,
                 silence_dbfs: float = -60.0, active_margin_db: float = 6.0,
                 speech: bool = True, loudness: bool = True,
                 speech_detector: str = "auto") -> ClipMeasures:
    """Measure one decoded clip.

    Parameters
    ----------
    samples : ndarray [shape=(channels, n), dtype=float32]
        Values in [-1, 1]; 1 or 2 channels.
    sr : int
        Sample rate (Hz).
    hop_s : float
        Frame length of the level measures and hop of the speech detector (s).
    silence_dbfs : float
        Frames below this RMS are silent.
    active_margin_db : float
        Frames this far above the noise floor are active.
    speech : bool
        Run the speech detector (``speech_share`` 0 and no segments when False).
    loudness : bool
        Measure the integrated loudness.
    speech_detector : str
        The ``detector`` of :func:`foakit.signal.speech_activity`.

    Returns
    -------
    ClipMeasures

    Raises
    ------
    ParameterError
        Not 2-D, more than 2 channels, no samples, or ``sr`` <= 0.
    """
    s = np.asarray(samples)
    if s.ndim != 2 or s.shape[0] not in (1, 2):
        raise ParameterError(f"samples has shape {s.shape}; expected (1 or 2, n)")
    if s.shape[1] == 0:
        raise ParameterError("samples has no frames")
    if sr <= 0:
        raise ParameterError(f"{sr=} must be > 0")
    s64 = s.astype(np.float64)
    peak = float(np.max(np.abs(s64)))
    st = stereo_measures(s64) if s.shape[0] == 2 else None
    mono = s64.mean(axis=0)
    if st is not None and st["downmix_loss_db"] is not None and st["downmix_loss_db"] < -6:
        mono = s64[int(np.argmax(np.mean(s64 * s64, axis=1)))]
    lev = frame_levels_db(mono, sr, hop_s=hop_s)
    silent = lev < silence_dbfs
    floor = float(np.percentile(lev[~silent], 10)) if (~silent).any() else None
    active = ~silent & (lev > (floor if floor is not None else 0.0) + active_margin_db)
    detector = resolve_detector(speech_detector) if speech else None
    sa = speech_activity(mono, sr, hop_s=hop_s, detector=detector) if speech and peak > 0 \
        else None
    speech_share = float(sa.share) if sa is not None else 0.0
    # frame powers on the level frames; speech frames mapped by time
    p = 10 ** (lev / 10)
    sig_mask = active
    if sa is not None and sa.active.any():
        t = (np.arange(len(lev)) + 0.5) * hop_s
        idx = np.minimum(np.searchsorted(sa.times, t), len(sa.active) - 1)
        sig_mask = sa.active[idx]
    noise_mask = ~sig_mask & ~active
    snr = None
    if sig_mask.any() and noise_mask.any():
        pn = max(float(p[noise_mask].mean()), 10 ** (_FLOOR_DB / 10))
        ps = float(p[sig_mask].mean())
        snr = _db(ps / pn - 1.0) if ps > pn else None
    rms = float(np.sqrt(np.mean(s64 * s64)))
    means = s64.mean(axis=1)
    return ClipMeasures(
        duration_s=s.shape[1] / float(sr), sample_rate=int(sr), channels=int(s.shape[0]),
        peak_dbfs=20 * np.log10(peak) if peak > 0 else None,
        clipped_share=_clipped_share(s64),
        dc_offset=float(means[int(np.argmax(np.abs(means)))]),
        rms_dbfs=20 * np.log10(rms) if rms > 0 else None,
        noise_floor_dbfs=floor,
        silent_share=float(silent.mean()) if len(lev) else 1.0,
        active_share=float(active.mean()) if len(lev) else 0.0,
        speech_share=speech_share,
        speech_segments=[list(x) for x in sa.segments] if sa is not None else [],
        snr_db=snr,
        loudness_lufs=_loudness(s64, sr) if loudness and peak > 0 else None,
        stereo=st, speech_detector=detector)
