"""Time evidence on a presence sequence: does a labelled span or onset sit where a
direction sounds, or would it fit much better shifted?

A *presence* sequence says, per time block, whether a direction is sounding
(:meth:`foakit.audit.doamap.DoaMap.presence`); NaN means "no evidence" and counts as absent.

* :func:`span_shift`: IoU of a span with the presence, unshifted and at its best shift.
* :func:`onset_score` / :func:`best_onset`: does the presence start at a time, or where?
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ShiftFit", "span_shift", "onset_score", "best_onset"]


@dataclass
class ShiftFit:
    """How a labelled span fits a presence sequence, and its best shift.

    Attributes
    ----------
    iou : float
        IoU of the span as labelled.
    best_shift_s : float
        The shift (s) with the highest IoU (ties: the smallest shift).
    best_iou : float
        Its IoU.
    """

    iou: float
    best_shift_s: float
    best_iou: float


def span_shift(pres: np.ndarray, block_s: float, t0: float, t1: float, *,
               max_shift_s: float = 4.0) -> ShiftFit:
    """IoU of the span ``[t0, t1)`` with where a direction is present, and its best shift.

    Parameters
    ----------
    pres : ndarray [shape=(n_blocks,)]
        Presence per block (> 0.5 = present; NaN = absent).
    block_s : float
        Block length (s); block ``b`` is centred at ``(b + 0.5) * block_s``.
    t0, t1 : float
        The labelled span (s).
    max_shift_s : float
        Shifts tried, in whole blocks, up to this much either way.  Only a region of
        ``max_shift_s`` around the span is compared, so presence elsewhere in the clip
        (another event from the same direction) weighs little.

    Returns
    -------
    ShiftFit
    """
    p = np.nan_to_num(np.asarray(pres, dtype=float), nan=0.0) > 0.5
    n = len(p)
    k_max = int(round(max_shift_s / block_s))
    centres = (np.arange(n) + 0.5) * block_s
    region = (centres >= max(0.0, t0 - max_shift_s)) & (centres < t1 + max_shift_s)
    best, best_iou, iou0 = 0, -1.0, 0.0
    for s in range(-k_max, k_max + 1):
        a, b = t0 + s * block_s, t1 + s * block_s
        if a < -block_s or b > n * block_s + block_s:
            continue
        lab = (centres >= a) & (centres < b)
        inter = np.sum(lab & p & region)
        union = np.sum((lab | p) & region)
        iou = inter / union if union else 0.0
        if s == 0:
            iou0 = iou
        if iou > best_iou + 1e-9 or (abs(iou - best_iou) <= 1e-9 and abs(s) < abs(best)):
            best, best_iou = s, iou
    return ShiftFit(float(iou0), best * block_s, float(max(best_iou, 0.0)))


def onset_score(pres: np.ndarray, block_s: float, t: float, *, span_s: float = 1.0) -> float:
    """Presence in ``[t, t + span_s)`` minus presence in ``[t - span_s, t)`` (-1..1).

    High when a direction's sound starts at ``t``; NaN blocks count as absent.
    """
    p = np.nan_to_num(np.asarray(pres, dtype=float), nan=0.0)
    centres = (np.arange(len(p)) + 0.5) * block_s
    after = p[(centres >= t) & (centres < t + span_s)]
    before = p[(centres >= t - span_s) & (centres < t)]
    a = float(after.mean()) if len(after) else 0.0
    b = float(before.mean()) if len(before) else 0.0
    return a - b


def best_onset(pres: np.ndarray, block_s: float, t: float, *, max_shift_s: float = 4.0,
               span_s: float = 1.0) -> tuple[float, float]:
    """The time within ``max_shift_s`` of ``t`` with the highest :func:`onset_score`.

    Returns
    -------
    time_s, score : float
        Ties go to the time nearest ``t``.
    """
    k = int(round(max_shift_s / block_s))
    best_t, best_s = t, onset_score(pres, block_s, t, span_s=span_s)
    for i in range(-k, k + 1):
        tt = t + i * block_s
        if tt < 0:
            continue
        s = onset_score(pres, block_s, tt, span_s=span_s)
        if s > best_s + 1e-9 or (abs(s - best_s) <= 1e-9 and abs(tt - t) < abs(best_t - t)):
            best_t, best_s = tt, s
    return float(best_t), float(best_s)
