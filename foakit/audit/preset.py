"""The analysis settings the label audits are calibrated on."""

from __future__ import annotations

from ..params import AnalysisParams

__all__ = ["AUDIT_PARAMS"]

#: The :class:`~foakit.params.AnalysisParams` the audits (and :func:`~foakit.audit.doamap.
#: doa_map`) run with unless given others: the settings the audits' thresholds (prominence,
#: presence, event support, onset checks) are calibrated on.  They differ from the analysis
#: defaults, which are tuned for events rather than for checking labels (docs/method.md,
#: "Defaults"); 0.4 s DOA windows are 4 STARSS label frames, and the onset-bin and
#: frame-DOA motion tests, which no audit check reads, are off, as are the soft-attack ramp
#: and the rising-bin starts of the events (the onset checks are calibrated on starts at
#: the onset frame) and the dropping of faint events from the clip's first frames, of
#: leakage ahead of louder sounds and of weak lead-ins (the checks are calibrated with
#: them).
AUDIT_PARAMS = AnalysisParams(
    smooth_frames=5,
    psi_max=0.5,
    onset_floor=0.05,
    window_s=0.4,
    peak_rel=0.15,
    peak_min_sep_deg=25.0,
    clip_peak_rel=0.05,
    clip_blur_cells=1.5,
    steady_peak_rel=0.3,
    act_on_db=6.0,
    min_track_weight=0.05,
    echo_share=0.7,
    echo_event_iou=0.5,
    min_source_confidence=0.1,
    event_merge_gap_s=1.0,
    motion_frame_min_deg=0.0,
    motion_onset_min_deg=0.0,
    onset_ramp_s=0.0,
    rise_onset_ratio=0.0,
    leak_precursor_db=0.0,
    lead_in_db=0.0,
    start_min_confidence=0.0,
)
