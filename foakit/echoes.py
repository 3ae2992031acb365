"""Reflection tests: cone axes and events that are echoes of a stronger sound.

A reflection repeats its source's onsets a few milliseconds later and starts and stops with
it; an independent source has onsets and a span of its own.  :func:`echo_axes` drops cone
axes before events are cut (used for reverberant clips, ``dry_psi``),
:func:`drop_reflection_events` events after.  Between the two, :func:`bridge_pauses` keeps
a stronger source's onset leaking into a cone (:func:`led_by_another`) from being bridged
into the cone's own louder sound that follows, and :func:`cut_lead_ins` cuts other sources'
reverberation from the start of a segment whose own sound starts later.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

import numpy as np

from .kernels.activity import segments
from .params import AnalysisParams

__all__ = ["PRECEDENCE_S", "bridge_pauses", "cut_lead_ins", "drop_reflection_events",
           "echo_axes", "led_by_another"]

#: an onset more than this much earlier (s; half a frame at the default hop) is the direct sound
PRECEDENCE_S = 0.01

#: :func:`cut_lead_ins`: a segment whose frames -1..+4 hold at most ``LEAD_IN_MAX_BINS``
#: onset bins each is a lead-in candidate; its own sound starts at a frame of at least
#: ``LEAD_IN_ONSET_BINS``, ``LEAD_IN_MIN_S`` to ``LEAD_IN_REACH_S`` after the segment's
#: start, judged by the mean in-cone energy of the ``LEAD_IN_HOLD_S`` from it
LEAD_IN_MAX_BINS = 3
LEAD_IN_ONSET_BINS = 5
LEAD_IN_MIN_S = 0.3
LEAD_IN_REACH_S = 3.5
LEAD_IN_HOLD_S = 0.5


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


def cut_lead_ins(act: np.ndarray, cones: np.ndarray, *, frame_rate: float,
                 least_db: float) -> None:
    """Start (in place) each segment that opens on a weak lead-in at its own sound.

    Other sources' reverberation fills a cone with sound of no onsets of its own; when it
    is loud enough to be active just before the cone's own source starts, the onset support
    keeps it (a rising bin or a stray onset bin there is enough) and the event is dated
    seconds early.  A segment whose frames -1..+4 hold at most :data:`LEAD_IN_MAX_BINS`
    onset bins each, and which reaches a frame of at least :data:`LEAD_IN_ONSET_BINS` from
    :data:`LEAD_IN_MIN_S` to :data:`LEAD_IN_REACH_S` after its start whose next
    :data:`LEAD_IN_HOLD_S` (within the segment) carry a mean in-cone energy at least
    ``least_db`` above the mean of all the segment's frames before it, starts at the first
    such frame that is not :func:`led_by_another` (another source's onset leaking into the
    cone is not its own sound).

    Parameters
    ----------
    act : ndarray [shape=(n_tracks, n_frames), dtype=uint8]
        Each cone's segments, pauses bridged.
    cones : ndarray [shape=(n_tracks, n_frames, CONE_CHANNELS)]
        :func:`foakit.kernels.cone.cone_energy` output: the in-cone energy (channel 3), the
        onset bins' energy (channel 4) and number (channel 8) per frame; without channel 8
        nothing is cut.
    frame_rate : float
        Frames per second.
    least_db : float
        How much louder the sound must be than its lead-in; 0 cuts nothing.
    """
    if least_db <= 0 or cones.shape[2] <= 8:
        return
    lo = max(1, int(round(LEAD_IN_MIN_S * frame_rate)))
    reach = int(round(LEAD_IN_REACH_S * frame_rate))
    hold = max(1, int(round(LEAD_IN_HOLD_S * frame_rate)))
    ratio = 10.0 ** (least_db / 10.0)
    for k in range(len(act)):
        bins = cones[k, :, 8]
        for a, b in segments(act[k]):
            a, b = int(a), int(b)
            if float(bins[max(0, a - 1):a + 5].max()) > LEAD_IN_MAX_BINS:
                continue
            hits = np.flatnonzero(bins[a + lo:min(b, a + reach)] >= LEAD_IN_ONSET_BINS)
            if not len(hits):
                continue
            cum = np.concatenate([[0.0], np.cumsum(cones[k, a:min(b, a + reach + hold), 3],
                                                   dtype=np.float64)])
            for t in (a + lo + hits).tolist():
                if led_by_another(cones[..., 4], k, t, t + 1):
                    continue
                end = min(b, t + hold)
                before = cum[t - a] / (t - a)
                after = (cum[end - a] - cum[t - a]) / (end - t)
                if after >= ratio * before:
                    act[k, a:t] = 0
                    break


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
