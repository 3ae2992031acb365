"""Reflection tests: cone axes and events that are echoes of a stronger sound.

A reflection repeats its source's onsets a few milliseconds later and starts and stops with
it; an independent source has onsets and a span of its own.  :func:`echo_axes` drops cone
axes before events are cut (used for reverberant clips, ``dry_psi``),
:func:`drop_reflection_events` events after.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

import numpy as np

from .params import AnalysisParams

__all__ = ["PRECEDENCE_S", "drop_reflection_events", "echo_axes"]

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
