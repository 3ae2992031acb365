"""Reflection tests: cone axes and events that are echoes of a stronger sound.

A reflection repeats its source's onsets a few milliseconds later and starts and stops with
it; an independent source has onsets and a span of its own.  :func:`echo_axes` drops cone
axes before events are cut (used for reverberant clips, ``dry_psi``),
:func:`drop_reflection_events` events after.  Between the two, :func:`bridge_pauses` keeps
a stronger source's onset leaking into a cone (:func:`led_by_another`) from being bridged
into the cone's own louder sound that follows.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

import numpy as np

from .kernels.activity import segments
from .params import AnalysisParams

__all__ = ["PRECEDENCE_S", "bridge_pauses", "drop_reflection_events", "echo_axes",
           "led_by_another"]

#: an onset more than this much earlier (s; half a frame at the default hop) is the direct sound
PRECEDENCE_S = 0.01


class _Span(Protocol):
    """What the event test reads of a :class:`foakit.events.Event`."""

    onset_s: float
    offset_s: float
    confidence: float


E = TypeVar("E", bound=_Span)


def echo_axes(onsets: np.ndarray, share: float, *, ratio: float = 0.25) -> np.ndarray:
    """Which cone axes are not echoes of a stronger one.

    Parameters
    ----------
    onsets : ndarray [shape=(n_axes, n_frames)]
        In-cone onset energy per frame (channel 4 of :func:`foakit.kernels.cone.cone_energy`),
        axes strongest first (the order of the clip-histogram peaks: the precedence-weighted
        votes, not the onset energy in a cone, tell the direct path from a loud reflection).
    share : float
        Axis *b* is an echo of an earlier kept axis *a* when at least this share of *b*'s
        onset energy lies in frames where *a* has an onset too (in the same or the previous
        frame, at least ``ratio`` times *b*'s): a reflection repeats its source's onsets a
        few milliseconds later, an independent source has onsets of its own.  0 keeps every
        axis.
    ratio : float
        How strong *a*'s coinciding onset must be, relative to *b*'s (a reflection may
        carry more energy than the direct sound in some frames).

    Returns
    -------
    ndarray [shape=(n_axes,), dtype=bool]
    """
    n = onsets.shape[0]
    keep = np.ones(n, dtype=bool)
    if share <= 0 or n < 2:
        return keep
    on = np.asarray(onsets, dtype=np.float64)
    total = on.sum(axis=1)
    lead = np.maximum(on, np.pad(on, ((0, 0), (1, 0)))[:, :-1])  # frame t or t - 1
    for b in range(1, n):
        if total[b] <= 0:
            continue
        for a in range(b):
            if keep[a] and on[b][lead[a] >= ratio * on[b]].sum() >= share * total[b]:
                keep[b] = False
                break
    return keep


def led_by_another(onset: np.ndarray, k: int, start: int, stop: int) -> bool:
    """Whether another cone's onset outweighs cone ``k``'s first onset in ``start:stop``.

    The first frame of the segment with onset energy in cone ``k`` (its first frame when
    none has) is *led* when some other cone's onset energy in that frame, the one before or
    the one after, is larger than cone ``k``'s in that frame and the next: the onset is
    another source's, leaking or reflected into cone ``k``.  After the onset support a
    segment starts at its first onset, or a few frames of soft attack or rising bins before
    it, so that frame is its onset's.

    Parameters
    ----------
    onset : ndarray [shape=(n_tracks, n_frames)]
        In-cone onset-bin energy (channel 4 of :func:`foakit.kernels.cone.cone_energy`).
    k, start, stop : int
        The cone, and the segment's frames ``start:stop``.
    """
    row = onset[k]
    hit = np.flatnonzero(row[start:stop] > 0)
    f = start + (int(hit[0]) if len(hit) else 0)
    others = np.delete(onset[:, max(0, f - 1):f + 2], k, axis=0)
    return bool(others.size) and float(others.max()) > float(row[f:f + 2].max())


def bridge_pauses(act: np.ndarray, onset: np.ndarray, level: np.ndarray, *, max_gap: int,
                  least_db: float) -> None:
    """Bridge (in place) each cone's pauses of at most ``max_gap`` frames, as
    :func:`foakit.kernels.activity.clean_activity` does, except past another source's
    leakage ahead of a louder sound: bridged, the leakage would date that sound.

    A segment is such leakage when it is :func:`led_by_another` and the next segment of
    its cone starts within ``max_gap`` frames of its end and peaks at least ``least_db``
    above it.  It is dropped, and with it the segments before it that would be bridged into
    it and peak at least ``least_db`` below that next one (more of the same leakage); the
    segments on either side of a dropped one are not bridged across its place.

    Parameters
    ----------
    act : ndarray [shape=(n_tracks, n_frames), dtype=uint8]
        Each cone's segments after the onset support.
    onset : ndarray [shape=(n_tracks, n_frames)]
        In-cone onset-bin energy.
    level : ndarray [shape=(n_tracks, n_frames)]
        In-cone level (dB), as :func:`foakit.events.cone_level_db` smooths it.
    max_gap : int
        The longest pause bridged (frames).
    least_db : float
        How much louder the next segment must peak; 0 drops nothing.
    """
    for k in range(len(act)):
        segs = [(int(a), int(b)) for a, b in segments(act[k])]
        peak = [float(level[k, a:b].max()) for a, b in segs]
        drop = [least_db > 0 and i + 1 < len(segs) and segs[i + 1][0] - b <= max_gap
                and peak[i] <= peak[i + 1] - least_db and led_by_another(onset, k, a, b)
                for i, (a, b) in enumerate(segs)]
        for i in [i for i, d in enumerate(drop) if d]:
            j = i - 1
            while (j >= 0 and not drop[j] and segs[j + 1][0] - segs[j][1] <= max_gap
                   and peak[j] <= peak[i + 1] - least_db):
                drop[j] = True
                j -= 1
        for i in range(len(segs) - 1):
            if not drop[i] and not drop[i + 1] and segs[i + 1][0] - segs[i][1] <= max_gap:
                act[k, segs[i][1]:segs[i + 1][0]] = 1
        for (a, b), d in zip(segs, drop, strict=True):
            if d:
                act[k, a:b] = 0


def drop_reflection_events(events: list[E], params: AnalysisParams) -> list[E]:
    """Of events from different directions that start within ``echo_event_onset_s`` of each
    other and overlap by at least ``echo_event_iou`` of their union, keep one: a strong
    reflection that survived the axis tests still starts and stops with its source, while
    independent sources rarely share both their onset and their span.  With
    ``echo_event_contained`` a less confident event that starts with a kept one and ends
    inside it is one too, whatever their overlap: a reflection of an onset that leaks into
    another cone for a moment lies within its source's span.  The one kept is the one that
    starts first (the direct path is the shortest: precedence) when it leads by more than
    ``PRECEDENCE_S``, else the most confident."""
    if params.echo_event_iou <= 0:
        return events
    kept: list[E] = []
    for ev in sorted(events, key=lambda e: -e.confidence):
        for i, k in enumerate(kept):
            inter = min(ev.offset_s, k.offset_s) - max(ev.onset_s, k.onset_s)
            union = max(ev.offset_s, k.offset_s) - min(ev.onset_s, k.onset_s)
            inside = (params.echo_event_contained and ev.offset_s <= k.offset_s
                      and ev.onset_s >= k.onset_s - PRECEDENCE_S)
            if (abs(ev.onset_s - k.onset_s) <= params.echo_event_onset_s and union > 0
                    and (inter >= params.echo_event_iou * union or inside)):
                if ev.onset_s < k.onset_s - PRECEDENCE_S:
                    kept[i] = ev
                break
        else:
            kept.append(ev)
    return kept
