"""Thresholds of the SO-Bench label audit (:mod:`foakit.audit.sobench`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...audit.config import require_positive, require_prominence_order
from ...audit.onsets import OnsetCheckConfig

__all__ = ["SobenchAuditConfig"]


@dataclass(frozen=True)
class SobenchAuditConfig(OnsetCheckConfig):
    """Thresholds of the SO-Bench audit (degrees, seconds, 0-1 scores); the onset
    elevation check's (``onset_*``) are :class:`~foakit.audit.onsets.OnsetCheckConfig`'s."""

    az_tol_deg: float = 25.0
    dir_tol_deg: float = 30.0
    el_tol_deg: float = 15.0
    sector_half_deg: float = 22.5
    sector_slack_deg: float = 10.0
    explicit_tol_deg: float = 15.0
    elevation_ctx_tol_deg: float = 12.0
    agree_prom: float = 0.5
    doubt_prom: float = 0.3
    doubt_prom_elevation: float = 0.1
    elevation_max_psi: float = 0.6
    flip_min_abs_deg: float = 8.0
    flip_gain: float = 0.4
    event_flip_conf: float = 0.6
    min_votes_blocks: int = 4
    # the onset elevation check's thresholds: OnsetCheckConfig (keyword-only)
    # without a known azimuth, the onset check takes it from the analysed events starting
    # within this of the class's time windows (all must agree), never from all onsets:
    # another source's onsets in the window then vote too (two false flags on seed 0)
    onset_event_s: float = 0.3
    # a source a question says starts at some time is heard from the direction of the onsets
    # that are new then (foakit.audit.onsets.new_onset_direction, which these parametrise):
    # they confirm an azimuth label within az_tol_deg of them and contradict one
    # onset_azimuth_gap_deg or more away (confidence onset_azimuth_conf; 0 = off) where the
    # direction map alone is not decisive
    onset_start_lead_s: float = 0.15
    onset_start_look_s: float = 0.4
    onset_history_s: float = 2.0
    onset_azimuth_gap_deg: float = 50.0
    onset_azimuth_conf: float = 0.6
    # a label held against the whole clip (no time window known) from whose azimuth no
    # analysed event and fewer than onset_min_votes onsets come is suspicious with this
    # confidence (0 = off)
    unsupported_conf: float = 0.5
    # likewise an elevation label no onset of the clip comes from while the mirrored
    # elevation has onsets (see audit_direction._elevation_nowhere; 0 = off)
    nowhere_conf: float = 0.5
    diffuse_psi: float = 0.9
    onset_window_s: float = 1.5
    min_shift_s: float = 1.0
    max_shift_s: float = 4.0
    span_gain: float = 0.2
    onset_gain: float = 0.6
    onset_max_at_label: float = 0.1
    unknown_min_best: float = 0.7
    unknown_gain: float = 0.3
    unknown_margin: float = 0.3
    presence_rise_db: float = 4.0
    presence_min_share: float = 0.15
    presence_smooth: int = 5
    arbitration_margin: float = 0.15
    agree_override_gain: float = 0.4
    arbitration_on: float = 0.5
    arbitration_off: float = 0.1
    time_ctx_tol_s: float = 0.5
    # a time label that starts farther than own_start_tol_s from the start its own question
    # gives ("the sound that starts around 2.5 s") is suspicious with own_start_conf (0 =
    # off); the tolerance covers a question that rounds the start to the second
    own_start_tol_s: float = 0.75
    own_start_conf: float = 0.8
    # two items whose questions place their sounds farther apart than the cues' half-widths
    # plus this may be about two sounds: their time labels do not contradict each other
    place_slack_deg: float = 5.0
    # a time label is at the class event's onset within this (s); the event-based time
    # check's confidence (0 = off; see foakit.audit.sobench)
    event_time_tol_s: float = 0.5
    event_shift_conf: float = 0.6
    # where neither the direction nor the class's events decide a span, the only analysed
    # event (of any direction) that is the span moved as a whole, with none starting at the
    # label, makes it suspicious with span_move_conf (0 = off)
    span_move_conf: float = 0.55
    # an onset question that names a direction but no class the corpus follows is checked
    # against the analysed events from that direction (within the cue's precision plus
    # direction_onset_tol_deg): an event starting within event_time_tol_s of the label
    # agrees; when the nearest such event starts direction_onset_shift_s or more away, the
    # label is suspicious with direction_onset_conf (0 = off)
    direction_onset_tol_deg: float = 20.0
    # of several such events, those more than direction_onset_margin_deg farther from the
    # question's direction than the nearest are other sounds
    direction_onset_margin_deg: float = 15.0
    direction_onset_shift_s: float = 1.2
    direction_onset_conf: float = 0.6
    # a label item the audit cannot tie to a named sound is held against the whole clip
    anonymous_sources: bool = True
    relation_min_sin: float = 0.1
    # a left/right relation between sounds this far apart is not judged (the lateral and
    # the counter-clockwise reading of "left of" part ways towards 180 deg)
    relation_max_sep_deg: float = 150.0
    relation_min_el_deg: float = 5.0
    relation_min_dist_m: float = 0.3
    convention_clips: int = 40

    def __post_init__(self) -> None:
        require_prominence_order(self)
        require_positive(self, ("az_tol_deg", "dir_tol_deg", "el_tol_deg", "max_shift_s",
                                "event_time_tol_s", "own_start_tol_s"))
