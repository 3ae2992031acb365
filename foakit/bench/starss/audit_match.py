"""Label tracks against DOA peaks window by window: the references a window holds, their
Hungarian matching on angular distance, and DCASE-style class-agnostic metrics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from ...audit.estimates import (
    DoaEstimate,
)
from ...audit.hypotheses import (
    apply_hypothesis,
)
from ...conventions import direction_to_vector
from .audit_config import StarssAuditConfig
from .format import LABEL_HOP_S, SourceTrack

__all__ = [
    "window_references",
    "match_window",
]


def _frame_windows(frames: np.ndarray, window_s: float) -> np.ndarray:
    return np.floor((frames + 0.5) * LABEL_HOP_S / window_s + 1e-9).astype(np.int64)


def window_references(
    track: SourceTrack, window_s: float, *, hypothesis: str = "declared", shift: int = 0,
) -> dict[int, np.ndarray]:
    """Window -> unit vector of a track's labelled direction there.

    Parameters
    ----------
    track : SourceTrack
    window_s : float
        DOA window length (s).
    hypothesis : str
        Angle map applied to the labels first.
    shift : int
        Windows added to every window index (to test labels that lag or lead).

    Returns
    -------
    dict
        Windows where at least half the label frames carry the track.
    """
    if len(track) == 0:
        return {}
    az, el = apply_hypothesis(hypothesis, track.azimuth_deg, track.elevation_deg)
    vec = direction_to_vector(az, el)
    win = _frame_windows(track.frames, window_s)
    per_window = max(1, int(round(window_s / LABEL_HOP_S)))
    need = max(1, int(math.ceil(per_window / 2)))
    out: dict[int, np.ndarray] = {}
    order = np.argsort(win, kind="stable")
    win, vec = win[order], vec[order]
    bounds = np.flatnonzero(np.diff(win)) + 1
    for idx in np.split(np.arange(len(win)), bounds):
        if len(idx) >= need:
            v = vec[idx].sum(axis=0)
            n = np.linalg.norm(v)
            if n > 0:
                out[int(win[idx[0]]) + shift] = v / n
    return out


def _angles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angles (deg) between every row of ``a`` (n, 3) and of ``b`` (m, 3): (n, m)."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    return np.rad2deg(np.arccos(np.clip(a @ b.T, -1.0, 1.0)))


def match_window(refs: np.ndarray, ests: np.ndarray) -> list[tuple[int, int, float]]:
    """Hungarian matching of reference and estimated unit vectors on angular distance.

    Returns
    -------
    list of (ref_index, est_index, angle_deg)
    """
    if len(refs) == 0 or len(ests) == 0:
        return []
    cost = _angles(refs, ests)
    ri, ci = linear_sum_assignment(cost)
    return [(int(i), int(j), float(cost[i, j])) for i, j in zip(ri, ci, strict=True)]


@dataclass
class _ClipMatch:
    """Window matching of one clip under one hypothesis."""

    err: dict[tuple[int, int], dict[int, float]]      # track -> window -> matched error
    support: dict[tuple[int, int], dict[int, bool]]   # track -> window -> peak within support
    has_peak: dict[tuple[int, int], dict[int, bool]]
    tp: int = 0
    fp_spatial: int = 0
    fp: int = 0
    fn: int = 0
    n_ref: int = 0
    errors: list[float] = field(default_factory=list)


def _match_clip(tracks: dict[tuple[int, int], SourceTrack], doa: DoaEstimate,
                cfg: StarssAuditConfig, hypothesis: str = "declared",
                shifts: dict[tuple[int, int], int] | None = None) -> _ClipMatch:
    refs = {k: window_references(t, doa.window_s, hypothesis=hypothesis,
                                 shift=(shifts or {}).get(k, 0)) for k, t in tracks.items()}
    windows = sorted({w for r in refs.values() for w in r})
    m = _ClipMatch(err={k: {} for k in tracks}, support={k: {} for k in tracks},
                   has_peak={k: {} for k in tracks})
    n_win = doa.peaks.shape[0]
    for w in windows:
        keys = [k for k in tracks if w in refs[k]]
        rv = np.stack([refs[k][w] for k in keys])
        ev = doa.window_peaks(w)
        m.n_ref += len(keys)
        pairs = match_window(rv, ev)
        ang = _angles(rv, ev)
        for i, k in enumerate(keys):
            m.has_peak[k][w] = len(ev) > 0
            m.support[k][w] = bool(len(ev) and ang[i].min() <= cfg.support_deg)
        for i, _, e in pairs:
            m.err[keys[i]][w] = e
            m.errors.append(e)
        tp = sum(1 for *_, e in pairs if e <= cfg.match_deg)
        m.tp += tp
        m.fp_spatial += len(pairs) - tp
        m.fn += len(keys) - len(pairs)
        m.fp += len(ev) - len(pairs)
    # peaks in windows without any reference are false positives too
    labelled = set(windows)
    for w in range(n_win):
        if w not in labelled:
            m.fp += len(doa.window_peaks(w))
    return m


def _metrics(m: _ClipMatch) -> dict:
    denom = m.tp + m.fp_spatial + 0.5 * (m.fp + m.fn)
    return {
        "F20": m.tp / denom if denom > 0 else None,
        "LE_deg": float(np.mean(m.errors)) if m.errors else None,
        "LR": (m.n_ref - m.fn) / m.n_ref if m.n_ref else None,
        "TP": m.tp, "FP_spatial": m.fp_spatial, "FP": m.fp, "FN": m.fn, "n_ref": m.n_ref,
    }
