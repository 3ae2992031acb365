"""Thresholds of the STARSS label audit (:mod:`foakit.audit.starss`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...audit.config import require_positive, require_prominence_order
from ...audit.onsets import OnsetCheckConfig

__all__ = ["StarssAuditConfig"]


@dataclass(frozen=True)
class StarssAuditConfig(OnsetCheckConfig):
    """Thresholds of the STARSS audit (degrees, seconds, 0-1 scores).

    ``match_deg`` is the DCASE threshold of the metrics; ``support_deg`` / ``az_tol_deg``
    the cone and wedge half-widths of the prominence; ``exclude_deg`` the half-width of the
    cones of the other sources labelled at the same time that the prominence removes first
    (in a room a loud source's early reflections land 20-40 deg from it), narrowed towards
    ``exclude_near_deg`` where it would reach into the tested direction's own cone (and
    ``exclude_near_deg`` wide in a dry track); ``masking_min_psi``: the mean diffuseness
    below which a track is dry and the map's weak support blames it whatever its onsets;
    ``agree_prom`` / ``doubt_prom`` the
    prominences above / below which a track's direction is consistent / suspicious;
    ``flip_gain`` how much more prominent the mirrored elevation must be; ``chunk_s`` the
    pieces a (moving) track is scored in; ``presence_*`` as
    :meth:`foakit.audit.doamap.DoaMap.presence`; ``event_support_*``: an analysed event
    within this angle of a stationary track's direction that starts within this time of the
    start of one of its labelled spans vouches for the label (see :func:`_event_support`;
    ``event_support_min_s``: how long it must overlap the track, or half the track when
    that is shorter; a tonal source's onset is often the only part of it whose direction a
    room does not smear); ``contradict_*``: an unexplained event starting with the
    track far from its label and where a convention error would put it makes the label
    suspicious (see :func:`_onset_contradiction`; ``contradict_any_deg``: how far an event
    matching no hypothesis must be, three times the DCASE threshold and beyond the
    40-50 deg errors reverberant onset events show; ``contradict_el_hyp_deg``: the tighter
    match an elevation-sign hypothesis needs, since floor and ceiling reflections pull an
    event's elevation towards the mirrored one); the event-span time test
    (:func:`_event_shift`) uses ``event_support_deg``, ``min_shift_s``, ``max_shift_s``,
    ``shift_gain`` and ``shift_min_iou`` as the map's presence test does, except that an
    event already sounding when the labels start (it began 1-4 s before them, and no
    onset marks the labelled start) needs only ``lead_shift_gain``.
    """

    match_deg: float = 20.0
    support_deg: float = 30.0
    az_tol_deg: float = 25.0
    exclude_deg: float = 40.0
    exclude_near_deg: float = 20.0
    masking_min_psi: float = 0.3
    agree_prom: float = 0.5
    doubt_prom: float = 0.3
    flip_gain: float = 0.4
    flip_min_abs_deg: float = 8.0
    hypothesis_prom: float = 0.9
    hypothesis_gain: float = 0.5
    peak_disagree_deg: float = 30.0
    chunk_s: float = 1.0
    min_frames: int = 5
    diffuse_psi: float = 0.9
    max_shift_s: float = 4.0
    min_shift_s: float = 1.0
    shift_gain: float = 0.3
    shift_min_iou: float = 0.6
    presence_rise_db: float = 4.0
    presence_min_share: float = 0.15
    presence_smooth: int = 5
    convention_clips: int = 40
    event_support_deg: float = 20.0
    event_support_onset_s: float = 0.5
    event_support_min_s: float = 0.5
    contradict_onset_s: float = 0.3
    contradict_deg: float = 40.0
    contradict_claim_deg: float = 30.0
    contradict_hyp_deg: float = 20.0
    contradict_el_hyp_deg: float = 10.0
    contradict_any_deg: float = 60.0
    lead_shift_gain: float = 0.1
    # the onset elevation check's thresholds (starss_events._onset_elevation): those of
    # OnsetCheckConfig (keyword-only), the SO-Bench audit's

    def __post_init__(self) -> None:
        require_positive(self, ("match_deg", "support_deg", "az_tol_deg", "max_shift_s",
                                "chunk_s"))
        require_prominence_order(self)


# ----------------------------------------------------------------------------------------
# windows, references, matching
# ----------------------------------------------------------------------------------------
