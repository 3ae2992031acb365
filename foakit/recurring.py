"""Stationary axes where the windows' strongest peaks recur away from the clip peaks.

A quiet source that mostly plays under louder ones gets few onset votes of its own, so the
clip histogram (the whole clip's onset-weighted votes, :func:`foakit.analysis.clip_axes`)
shows no peak for it; where the louder sources pause, it is the strongest peak of its
window.  :func:`recurring_axes` groups the windows' strongest peaks by direction and offers
a group as a stationary cone axis when it recurs (strongest peaks within
``RECURRING_RADIUS_DEG`` of the group's direction in at least ``recurring_windows``
windows) away from the axes already found (further than ``peak_min_sep_deg`` from each).
Only the strongest peak of each window counts: a reflection, or the leakage of a louder
sound, trails the peaks of the sounds it comes from.  The cone tests that follow (echo
axes, onset support, weak sources) judge its events like any other axis's.
"""

from __future__ import annotations

import numpy as np

from .params import AnalysisParams

__all__ = ["RECURRING_MAX_AXES", "RECURRING_RADIUS_DEG", "recurring_axes"]

#: A window's strongest peak within this angle of a group's direction belongs to it (deg)
RECURRING_RADIUS_DEG = 20.0
#: At most this many axes are added per clip (the heaviest groups first)
RECURRING_MAX_AXES = 2
#: Mean-shift steps that move a group's direction to the weighted mean of its members
_STEPS = 3


def recurring_axes(peaks: np.ndarray, found: np.ndarray, params: AnalysisParams) -> np.ndarray:
    """Directions where the windows' strongest peaks recur away from the axes found (see
    the module docstring).

    Parameters
    ----------
    peaks : ndarray [shape=(n_windows, max_peaks, 4)]
        Window peaks (unit vector, weight; weight 0 pads), from
        :func:`foakit.kernels.peaks.pick_peaks`.
    found : ndarray [shape=(n_found, 3)]
        Unit vectors of the axes already found (clip peaks, and the directions of moving
        tracks).
    params : AnalysisParams
        ``recurring_windows`` (0: none) and ``peak_min_sep_deg``.

    Returns
    -------
    ndarray [shape=(n_axes, 4), dtype=float32]
        Unit vector and summed peak weight of each group kept, heaviest seed first;
        ``n_axes <= RECURRING_MAX_AXES``.
    """
    out = np.zeros((0, 4), np.float32)
    need = params.recurring_windows
    if need <= 0 or len(peaks) == 0:
        return out
    # each window's strongest peak (pick_peaks writes them strongest first; argmax says so
    # for any order)
    top = peaks[np.arange(len(peaks)), np.argmax(peaks[:, :, 3], axis=1)]
    win = np.flatnonzero(top[:, 3] > 0)
    if len(win) < need:
        return out
    vec = top[win, :3].astype(np.float64)
    vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
    wgt = top[win, 3].astype(np.float64)
    found = np.asarray(found, dtype=np.float64).reshape(-1, 3)
    cos_r = np.cos(np.deg2rad(RECURRING_RADIUS_DEG))
    cos_sep = np.cos(np.deg2rad(params.peak_min_sep_deg))
    free = np.ones(len(win), dtype=bool)
    rows: list[list[float]] = []
    # seeds heaviest first; ties in the order of the windows (stable sort)
    for seed in np.argsort(-wgt, kind="stable"):
        if not free[seed]:
            continue
        c = vec[seed]
        for _ in range(_STEPS):
            member = free & (vec @ c >= cos_r)
            s = (wgt[member, None] * vec[member]).sum(axis=0)
            c = s / max(float(np.linalg.norm(s)), 1e-12)
        member = free & (vec @ c >= cos_r)
        member[seed] = True
        free &= ~member
        if int(member.sum()) < need:  # one strongest peak per window: members = windows
            continue
        if len(found) and float(np.max(found @ c)) >= cos_sep:
            continue
        if any(float(np.dot(r[:3], c)) >= cos_sep for r in rows):
            continue
        rows.append([*c, float(wgt[member].sum())])
        if len(rows) >= RECURRING_MAX_AXES:
            break
    if rows:
        out = np.asarray(rows, dtype=np.float32)
    return out
