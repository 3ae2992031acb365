"""Directions of a clip's sound onsets, from the first milliseconds of each (precedence).

In a room a floor reflection arrives from the source's azimuth at a negative elevation a few
milliseconds after the direct sound (a ceiling reflection from above); averaged over an STFT
frame (32 ms here) or an event, both pull the estimate across the horizon.  During the first
few milliseconds of an onset only the direct sound has arrived, so the intensity vector
of those milliseconds, less the intensity of what was already sounding, points at the
source.  :func:`onset_directions` finds the onsets (a sharp rise of the omni energy over
its recent past) of a band-passed clip and returns that direction for each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["OnsetCheckConfig", "OnsetParams", "elevation_votes", "new_onset_direction",
           "onset_directions", "onset_side"]


@dataclass(frozen=True, kw_only=True)
class OnsetCheckConfig:
    """Thresholds of the onset elevation check, shared by the SO-Bench and STARSS audits
    (their configs inherit them; keyword-only there).

    The first 3 ms of an onset precede the floor / ceiling reflections that pull the DOA map
    and the analysed events across the horizon.  An onset votes for a label's elevation or
    for its flipped sign when within ``onset_el_tol_deg`` of it (and within
    ``onset_az_tol_deg`` of the source's azimuth); the label is flipped when at least
    ``onset_min_votes`` onsets side with -label and ``onset_ratio`` times as many as side
    with it (verdict confidence ``onset_flip_conf``); the reverse vetoes the map's and the
    events' flip verdicts.  On the clean synthetic rooms no source's onsets ever sided with
    its flipped elevation.
    """

    onset_el_tol_deg: float = 20.0
    onset_az_tol_deg: float = 25.0
    onset_min_votes: int = 2
    onset_ratio: float = 3.0
    onset_flip_conf: float = 0.7


def onset_side(vote: dict, cfg: OnsetCheckConfig, *, explained: bool = False) -> str | None:
    """"flipped" or "label" when the onsets of an :func:`elevation_votes` result side
    clearly with one sign (``cfg``'s ``onset_min_votes`` and ``onset_ratio``), else None;
    ``explained``: another source near the flipped direction would explain flipped onsets,
    so they never make "flipped"."""
    a, b = vote["label"], vote["flipped"]
    if not explained and b >= cfg.onset_min_votes and b >= cfg.onset_ratio * a:
        return "flipped"
    if a >= cfg.onset_min_votes and a >= cfg.onset_ratio * b:
        return "label"
    return None


@dataclass(frozen=True)
class OnsetParams:
    """How onsets are found and measured.

    ``frame_ms``: envelope resolution; ``look_ms``: the stretch after an onset whose
    intensity is measured (shorter than the 4-10 ms a floor or ceiling reflection lags the
    direct sound by at a 1-5 m distance); ``back_ms`` / ``gap_ms``: the past the rise is
    measured against (it ends ``gap_ms`` before the onset so that a ramp does not hide
    itself); ``rise_db``: the rise that makes an onset; ``min_sep_ms``: one onset per this;
    ``bands_hz``: the bands searched (each a causal Butterworth filter, the same on all
    channels, which leaves a plane wave's intensity direction alone); ``min_level_db``:
    onsets quieter than the clip's loudest 1 ms frames by more than this are skipped.
    """

    frame_ms: float = 1.0
    look_ms: float = 3.0
    back_ms: float = 30.0
    gap_ms: float = 3.0
    rise_db: float = 8.0
    min_sep_ms: float = 50.0
    bands_hz: tuple[tuple[float, float], ...] = ((300.0, 800.0), (800.0, 2000.0),
                                                 (2000.0, 5000.0))
    min_level_db: float = 45.0


def onset_directions(samples: np.ndarray, sample_rate: int,
                     params: OnsetParams | None = None) -> np.ndarray:
    """Direction of each onset of an ambiX clip, band by band.

    Each band of ``params.bands_hz`` is searched on its own: a quiet source starting
    while a louder one sounds often rises clearly only where its spectrum differs.

    Parameters
    ----------
    samples : ndarray [shape=(4, n)]
        ambiX (W, Y, Z, X; SN3D).
    sample_rate : int
    params : OnsetParams, optional

    Returns
    -------
    ndarray [shape=(k, 6)]
        Per onset (sorted by time): time (s), azimuth and elevation (deg), the onset's
        energy above what was sounding before (linear, for weighting), its directness
        ``||I|| / E`` (1 for one plane wave, less when other sounds or early reflections
        mix in) and the index of its band.
    """
    p = params or OnsetParams()
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] != 4 or x.shape[1] < sample_rate // 10:
        return np.zeros((0, 6))
    out = []
    for i, band in enumerate(p.bands_hz):
        lo, hi = band[0], min(band[1], 0.45 * sample_rate)
        if hi <= lo * 1.2:
            continue
        o = _band_onsets(x, sample_rate, lo, hi, p)
        out.append(np.column_stack([o, np.full(len(o), float(i))]))
    if not out:
        return np.zeros((0, 6))
    o = np.concatenate(out)
    return o[np.argsort(o[:, 0], kind="stable")]


def _band_onsets(x: np.ndarray, sample_rate: int, lo: float, hi: float,
                 p: OnsetParams) -> np.ndarray:
    from scipy.signal import butter, sosfilt

    sos = butter(2, [lo, hi], btype="band", fs=sample_rate, output="sos")
    x = sosfilt(sos, x, axis=-1)
    w, y, z, xx = x
    hop = max(1, int(round(p.frame_ms * 1e-3 * sample_rate)))
    n = x.shape[1] // hop
    if n < 10:
        return np.zeros((0, 5))

    def frames(v: np.ndarray) -> np.ndarray:
        return v[: n * hop].reshape(n, hop).sum(axis=1)

    ew = frames(w * w)
    ea = frames(0.5 * (w * w + xx * xx + y * y + z * z))
    ix, iy, iz = frames(w * xx), frames(w * y), frames(w * z)
    c = {k: np.concatenate([[0.0], np.cumsum(v)]) for k, v in
         (("w", ew), ("e", ea), ("x", ix), ("y", iy), ("z", iz))}
    look = max(1, int(round(p.look_ms / p.frame_ms)))
    back = max(1, int(round(p.back_ms / p.frame_ms)))
    gap = max(0, int(round(p.gap_ms / p.frame_ms)))
    k = np.arange(back + gap, n - look)
    if not len(k):
        return np.zeros((0, 5))

    def rate(name: str, a, b):
        return (c[name][b] - c[name][a]) / (np.asarray(b) - np.asarray(a))

    after = rate("w", k, k + look)
    before = rate("w", k - gap - back, k - gap)
    loud = np.percentile(ew, 99.5) if len(ew) else 0.0
    floor = loud * 10.0 ** (-p.min_level_db / 10.0)
    ok = (after >= 10.0 ** (p.rise_db / 10.0) * np.maximum(before, 1e-30)) & (after >= floor)
    out = []
    last = -np.inf
    sep = p.min_sep_ms / p.frame_ms
    for i in np.flatnonzero(ok):
        kk = int(k[i])
        if kk - last < sep:
            continue
        last = kk
        a, b, a0, b0 = kk, kk + look, kk - gap - back, kk - gap
        vec = np.array([rate(m, a, b) - rate(m, a0, b0) for m in ("x", "y", "z")])
        e_on = rate("e", a, b) - rate("e", a0, b0)
        nrm = float(np.linalg.norm(vec))
        if nrm <= 0 or e_on <= 0:
            continue
        az = float(np.rad2deg(np.arctan2(vec[1], vec[0])))
        el = float(np.rad2deg(np.arctan2(vec[2], np.hypot(vec[0], vec[1]))))
        out.append((kk * hop / sample_rate, az, el, e_on * look, min(1.0, nrm / e_on)))
    return np.asarray(out, dtype=float).reshape(-1, 5)


def elevation_votes(onsets: np.ndarray | None, label_el: float,
                    windows: list[tuple[float, float]], azimuth: float | None = None, *,
                    az_tol_deg: float = 25.0, el_tol_deg: float = 20.0,
                    lead_s: float = 0.05) -> dict | None:
    """Onsets that side with an elevation label or with its sign flipped.

    Counts the onsets of ``windows`` (each opened ``lead_s`` early: a label's start may be
    a frame late) that come from within ``az_tol_deg`` of ``azimuth`` (any azimuth when
    None) and whose elevation is within ``el_tol_deg`` of ``label_el`` (and nearer it than
    ``-label_el``): ``label``; likewise for ``-label_el``: ``flipped``.  None when there
    are no onsets to count (no array or no window).
    """
    if onsets is None or not windows:
        return None
    o = np.asarray(onsets, dtype=float)
    o = o.reshape(-1, o.shape[-1] if o.ndim == 2 else 6)
    t = o[:, 0]
    inside = np.zeros(len(o), dtype=bool)
    for a, b in windows:
        inside |= (t >= a - lead_s) & (t < b)
    o = o[inside]
    if azimuth is not None and len(o):
        d = np.abs((o[:, 1] - azimuth + 180.0) % 360.0 - 180.0)
        o = o[d <= az_tol_deg]
    d_lab, d_flip = np.abs(o[:, 2] - label_el), np.abs(o[:, 2] + label_el)
    n_lab = int(np.sum((d_lab < d_flip) & (d_lab <= el_tol_deg)))
    n_flip = int(np.sum((d_flip < d_lab) & (d_flip <= el_tol_deg)))
    return {"label": n_lab, "flipped": n_flip, "onsets": int(len(o)),
            "azimuth_deg": azimuth, "windows": [list(w) for w in windows]}


def new_onset_direction(onsets: np.ndarray | None, start_s: float, *, lead_s: float = 0.15,
                        look_s: float = 0.4, history_s: float = 2.0, az_tol_deg: float = 25.0,
                        min_onsets: int = 2, min_share: float = 0.6) -> dict | None:
    """The azimuth a sound said to start at ``start_s`` comes from, read from the onsets that
    are new there.

    The onsets of ``[start_s - lead_s, start_s + look_s]`` are kept when no onset of the
    preceding ``history_s`` came from within ``az_tol_deg`` of them: a sound already playing
    (speech, footsteps, a melody) has onsets of its own all along, which say nothing about
    the one that starts.  The strongest kept onset and those within ``az_tol_deg`` of it make
    the answer when they are at least ``min_onsets`` (bands or repeats) and hold at least
    ``min_share`` of the kept onsets' energy.

    Parameters
    ----------
    onsets : ndarray [shape=(k, >=4)] or None
        :func:`onset_directions` of the clip (time, azimuth, elevation, energy, ...).
    start_s : float

    Returns
    -------
    dict or None
        ``azimuth_deg`` (energy-weighted circular mean), ``elevation_deg``, ``onsets`` (how
        many agree), ``share`` (their energy share), ``first_s`` (the earliest of them),
        ``new`` (onsets kept) and ``before`` (the azimuths of the onsets of the preceding
        ``history_s``: the sounds already playing); None when no direction is clear.
    """
    if onsets is None:
        return None
    o = np.asarray(onsets, dtype=float)
    if o.ndim != 2 or o.shape[1] < 4 or not len(o):
        return None
    t, az = o[:, 0], o[:, 1]
    win = (t >= start_s - lead_s) & (t <= start_s + look_s)
    before = o[(t < start_s - lead_s) & (t >= start_s - lead_s - history_s)]

    def near(a: float, b: np.ndarray) -> np.ndarray:
        return np.abs((b - a + 180.0) % 360.0 - 180.0) <= az_tol_deg

    keep = [i for i in np.flatnonzero(win) if not near(az[i], before[:, 1]).any()]
    if not keep:
        return None
    k = o[keep]
    e = np.maximum(k[:, 3], 0.0)
    top = int(np.argmax(e))
    same = near(k[top, 1], k[:, 1])
    total = float(e.sum())
    share = float(e[same].sum()) / total if total > 0 else 0.0
    if int(same.sum()) < min_onsets or share < min_share:
        return None
    w = e[same] if float(e[same].sum()) > 0 else np.ones(int(same.sum()))
    rad = np.deg2rad(k[same, 1])
    mean_az = float(np.rad2deg(np.arctan2((w * np.sin(rad)).sum(), (w * np.cos(rad)).sum())))
    return {"azimuth_deg": round(mean_az, 1),
            "elevation_deg": round(float(np.average(k[same, 2], weights=w)), 1),
            "onsets": int(same.sum()), "share": round(share, 3),
            "first_s": round(float(k[same, 0].min()), 3), "new": len(keep),
            "before": [round(float(a), 1) for a in before[:, 1]]}
