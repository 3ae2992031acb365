"""Analysis parameters and how the STFT grid follows the sample rate.

STFT grid
---------
Hop 20 ms (the DCASE SELD front end's hop: 480 samples at 24 kHz), so frame times line up
with DCASE label grids (100 ms = 5 frames) and onsets resolve to 20 ms.  Window: Hann of the
power-of-two length nearest 32 ms (512 at 16 kHz, 1024 at 24 kHz, 2048 at 48 kHz): a power of
two keeps the FFT fast, 32-43 ms gives 23-31 Hz bins, fine enough to separate overlapping
sources in time-frequency while keeping 50 frames per second.  ``n_fft`` equals the window.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields

from .errors import ParameterError

__all__ = ["AnalysisParams", "StftGrid", "stft_grid"]


@dataclass(frozen=True)
class StftGrid:
    """Window, hop and FFT length in samples for one sample rate."""

    sample_rate: int
    win_length: int
    hop_length: int
    n_fft: int

    @property
    def frame_rate(self) -> float:
        return self.sample_rate / self.hop_length

    @property
    def n_bins(self) -> int:
        return self.n_fft // 2 + 1

    def band(self, fmin_hz: float, fmax_hz: float) -> tuple[int, int]:
        """First and one-past-last bin index inside ``[fmin_hz, fmax_hz]``."""
        df = self.sample_rate / self.n_fft
        lo = max(1, int(math.ceil(fmin_hz / df)))
        hi = min(self.n_bins, int(math.floor(min(fmax_hz, 0.95 * self.sample_rate / 2) / df)) + 1)
        if hi <= lo:
            raise ParameterError(f"band {fmin_hz=}..{fmax_hz=} holds no bin at {self.sample_rate=}")
        return lo, hi

    def n_frames(self, n_samples: int) -> int:
        """Frames of a centred STFT of ``n_samples`` samples (one per hop, from t = 0)."""
        return 1 + n_samples // self.hop_length


def stft_grid(sample_rate: int, *, hop_s: float = 0.02, win_s: float = 0.032) -> StftGrid:
    """The STFT grid foakit uses at ``sample_rate`` (see the module docstring)."""
    if not (isinstance(sample_rate, int | float) and sample_rate >= 1000):
        raise ParameterError(f"{sample_rate=} must be a number >= 1000 Hz")
    if not 0 < hop_s <= win_s:
        raise ParameterError(f"{hop_s=} must be > 0 and <= {win_s=}")
    sr = int(sample_rate)
    hop = max(1, int(round(hop_s * sr)))
    win = 2 ** int(round(math.log2(win_s * sr)))
    win = max(win, hop)
    return StftGrid(sample_rate=sr, win_length=win, hop_length=hop, n_fft=win)


@dataclass(frozen=True)
class AnalysisParams:
    """Every knob of the analysis, with the defaults foakit is calibrated for.

    Units are in the names.  The manifest of every run records all of them.
    """

    # STFT grid (see module docstring)
    hop_s: float = 0.02
    win_s: float = 0.032
    # band that votes for directions: above room modes / handling noise, below where
    # real tetrahedral arrays alias
    fmin_hz: float = 100.0
    fmax_hz: float = 8000.0
    # How the defaults below were chosen, and on what data: docs/method.md ("Defaults").
    # The audits run with their own settings (foakit.audit.preset.AUDIT_PARAMS).
    # DirAC diffuseness: time average over this many frames (centred), per bin; a short
    # average lets a source's direct sound through before reverberation builds up in the bin
    smooth_frames: int = 3
    # bins more diffuse than this do not vote for a direction
    psi_max: float = 0.4
    # a bin votes for a direction only while its energy rises by this factor over the mean
    # of its previous onset_frames frames (the direct sound leads its reflections); 0 = all
    onset_ratio: float = 16.0
    onset_frames: int = 2
    # weight of the votes of bins that do not rise (keeps steady sources visible)
    onset_floor: float = 0.025
    # clip histograms count agreeing frequency bins, not energy: each bin's votes are divided
    # by its clip total to this power (kernels.spatial.whiten_votes; 0 = plain energy)
    vote_whitening: float = 1.0
    # DOA histogram grid
    az_bins: int = 72
    el_bins: int = 36
    # DOA windows for per-window histograms and tracking
    window_s: float = 0.48  # 24 frames at the 20 ms hop
    # peaks: relative height, separation, how many, vectors summed for refinement
    peak_rel: float = 0.1
    peak_min_sep_deg: float = 26.0
    peak_refine_deg: float = 15.0
    max_sources: int = 4
    # the clip histogram sums the window histograms, each divided by its total to this power
    # (a quiet source heard alone is not outvoted by a loud one elsewhere; 0 = plain sum)
    window_weighting: float = 0.75
    # clip-level peaks (stationary sources) relative to the clip histogram's highest
    clip_peak_rel: float = 0.03
    # Gaussian blur (in cells) of the clip histogram before its peaks are picked
    clip_blur_cells: float = 2.1
    # steady sources (few onsets): peaks of the plain energy histogram at least this high
    # relative to its top, away from the onset peaks, are sources too; 0 = off
    steady_peak_rel: float = 0.27
    # a clip whose active frames' median diffuseness is below dry_psi is dry (no reflection
    # peaks to fear): its clip peaks need only these relative heights
    dry_psi: float = 0.4
    clip_peak_rel_dry: float = 0.1
    steady_peak_rel_dry: float = 0.15
    # activity: hysteresis above the noise floor
    floor_percentile: float = 10.0
    act_on_db: float = 4.5
    act_off_db: float = 3.0
    min_event_s: float = 0.2
    merge_gap_s: float = 0.3
    # whole-clip activity when the dynamic range is below act_on_db but the level is above
    abs_active_dbfs: float = -60.0
    # events: a track follows peaks within this angle from window to window
    track_gate_deg: float = 30.0
    # a stationary track of window peaks lasting at least this many windows, at least
    # track_axis_sep_deg from every other axis, is a source's constant axis too (one the
    # clip histogram outvotes: short, or under louder sources); 0 = off, the default (5
    # finds a few more sources of several and costs single-source rooms a phantom or two)
    track_axis_windows: int = 0
    track_axis_sep_deg: float = 40.0
    track_max_gap_windows: int = 2
    # tracks lighter than this fraction of the heaviest are dropped (mixture bins between
    # overlapping sources and reflections make short, weak phantom tracks)
    min_track_weight: float = 0.1
    cone_deg: float = 25.0
    # a per-source event starts at an onset inside its cone at most this many dB below the
    # cone's loud level (energy a cone gets from other sources' reverberation has no onsets
    # of its own); segments with none are dropped unless they start the clip; 0 = off
    event_onset_db: float = 15.0
    # an axis whose in-cone onsets coincide (same or next frame) with a stronger axis's (an
    # earlier clip-histogram peak)
    # onsets for this share of its onset energy is a reflection of it and dropped; 0 = off
    echo_share: float = 0.55
    # events from different directions starting within echo_event_onset_s and overlapping
    # by echo_event_iou of their union are one sound and its reflection: the one that starts
    # first stays (the direct path is the shortest), the most confident on a tie; 0 = off.
    # (a wider onset window merges real sources that start close together)
    echo_event_iou: float = 0.6
    echo_event_onset_s: float = 0.1
    # ... and a less confident event starting with a kept one and ending inside it is one
    # too, whatever the overlap (an onset's reflection leaking into another cone briefly)
    echo_event_contained: bool = True
    # a stationary source's event points where the onset bins inside its cone point, each
    # bin one unit vote, when the event holds at least this many (else, and at 0, the clip
    # histogram's peak): a peak of energy-weighted votes leans toward coherent floor and
    # ceiling reflections
    onset_direction_bins: int = 5
    # sources whose most confident event is below this fraction of the most confident
    # source's are dropped (faint, diffuse candidates: reverberation); 0 = keep all
    min_source_confidence: float = 0.08
    # per-source events: pauses up to this long stay inside one event (a barking dog, a
    # series of knocks is one event, as label sets annotate it)
    event_merge_gap_s: float = 1.3
    # before the onset support, dips up to this long are bridged (one sound, one onset)
    onset_merge_gap_s: float = 0.2
    # a soft attack rises in its cone before any bin rises by onset_ratio: a segment's start
    # moves back from its first onset over the frames where the cone's level climbs at least
    # onset_ramp_db per frame, by at most onset_ramp_s (0 = the onset frame itself)
    onset_ramp_s: float = 0.2
    onset_ramp_db: float = 2.0
    # a segment whose first onset another cone's onset outweighs (that source's leakage or
    # reflection in this cone), followed within event_merge_gap_s by a segment of its cone
    # at least this many dB louder, is dropped with the segments bridged into it that are
    # as faint, and no pause is bridged across its place: bridged, the leakage would date
    # the louder sound that follows it (foakit.echoes.bridge_pauses); 0 = off
    leak_precursor_db: float = 10.0
    # a segment that starts with next to no onset bins in its cone and, within a few
    # seconds, reaches a frame of many whose next half second is at least this many dB
    # louder than all of the segment before it starts at that frame: what came before is
    # other sources' reverberation in the cone, not this sound (foakit.echoes.cut_lead_ins);
    # 0 = off
    lead_in_db: float = 15.0
    # a source starting under louder ones rises less above the sound already in its bins:
    # a segment with an onset starts at the first frame where its cone's bins that rose by
    # this factor (over onset_frames, as onset_ratio) carry energy within event_onset_db of
    # its loud level and more than any other cone's do in that frame and the next and
    # previous (a reflection of another source's onset rises less than the source itself),
    # when that frame comes before its first onset (the soft-attack ramp then applies from
    # it); 0 = off
    rise_onset_ratio: float = 8.0
    # an event from a clip's first frames below this confidence is the noise floor, not a
    # sound already playing (the onset test compares those frames with silence before the
    # clip, so the floor itself "starts" there); 0 keeps them
    start_min_confidence: float = 0.05
    # motion: total azimuth change for left/right motion
    motion_min_deg: float = 20.0
    # a source moving through a room often gives a stationary histogram peak (the middle of
    # its path, where its smeared votes pile up) and its cone sees only part of the path;
    # an event still stationary is then tested on the clip's per-frame DOA within this many
    # degrees of it: moving when the straight-line fit of its 0.2 s blocks' azimuth changes
    # by at least motion_frame_min_deg and fits them within motion_frame_resid_deg (RMS).
    # 0 turns the test off.  Set on foakit.synth single-source sets (see events.py)
    motion_frame_cone_deg: float = 30.0
    motion_frame_min_deg: float = 25.0
    motion_frame_resid_deg: float = 15.0
    # before that, on the onset bins in its cone: the azimuth of each motion_onset_block_s
    # block with at least motion_onset_min_bins of them, moving when their straight-line fit
    # over k such blocks changes by at least motion_onset_min_deg * sqrt(3 / k), k counted up
    # to 25 (0 turns it off; foakit.sources.onset_motion)
    motion_onset_min_deg: float = 35.0
    motion_onset_block_s: float = 0.4
    motion_onset_min_bins: int = 3
    # where that line has its three blocks but falls short, the per-frame DOA's motion stands
    # only when the line changes the same way by at least motion_onset_agree times its own
    # threshold, and then a change of motion_frame_agreed_deg is enough (at most
    # motion_frame_min_deg; foakit.sources.label_frame_motion)
    motion_onset_agree: float = 0.4
    motion_frame_agreed_deg: float = 15.0
    # distance proxy r = rc * sqrt(psi / (1 - psi)), clipped; rc fitted on foakit.synth rooms
    # by benchmarks/distance_calibration.py (see events.py)
    distance_rc_m: float = 1.2
    # below this clip diffuseness (median over active frames) there is no reverberation to
    # measure the direct sound against (anechoic or a near-field close-up): distance_m is
    # None rather than the proxy's floor (reverberant rooms sit far above it, anechoic
    # clips far below)
    distance_min_psi: float = 0.15
    distance_range_m: tuple[float, float] = field(default=(0.3, 10.0))

    def __post_init__(self) -> None:
        checks = [
            ("smooth_frames", self.smooth_frames >= 1),
            ("onset_frames", self.onset_frames >= 1),
            ("psi_max", 0.0 < self.psi_max <= 1.0),
            ("az_bins", self.az_bins >= 8),
            ("el_bins", self.el_bins >= 4),
            ("window_s", self.window_s > 0),
            ("peak_rel", 0.0 < self.peak_rel <= 1.0),
            ("max_sources", self.max_sources >= 1),
            ("track_axis_windows", self.track_axis_windows >= 0),
            ("track_axis_sep_deg", 0.0 < self.track_axis_sep_deg <= 180.0),
            ("act_on_db", self.act_on_db >= self.act_off_db >= 0.0),
            ("min_event_s", self.min_event_s >= 0.0),
            ("merge_gap_s", self.merge_gap_s >= 0.0),
            ("floor_percentile", 0.0 <= self.floor_percentile <= 100.0),
            ("fmin_hz", 0.0 <= self.fmin_hz < self.fmax_hz),
            ("vote_whitening", 0.0 <= self.vote_whitening <= 2.0),
            ("window_weighting", 0.0 <= self.window_weighting <= 1.0),
            ("event_onset_db", self.event_onset_db >= 0.0),
            ("onset_merge_gap_s", 0.0 <= self.onset_merge_gap_s <= self.event_merge_gap_s),
            ("onset_ramp_s", self.onset_ramp_s >= 0.0),
            ("onset_ramp_db", self.onset_ramp_db > 0.0),
            ("rise_onset_ratio", self.rise_onset_ratio >= 0.0),
            ("leak_precursor_db", self.leak_precursor_db >= 0.0),
            ("lead_in_db", self.lead_in_db >= 0.0),
            ("start_min_confidence", 0.0 <= self.start_min_confidence <= 1.0),
            ("echo_share", 0.0 <= self.echo_share <= 1.0),
            ("onset_direction_bins", self.onset_direction_bins >= 0),
            ("echo_event_iou", 0.0 <= self.echo_event_iou <= 1.0),
            ("echo_event_onset_s", self.echo_event_onset_s >= 0.0),
            ("min_source_confidence", 0.0 <= self.min_source_confidence <= 1.0),
            ("distance_min_psi", 0.0 <= self.distance_min_psi < 1.0),
            ("motion_frame_cone_deg", 0.0 < self.motion_frame_cone_deg <= 180.0),
            ("motion_frame_min_deg", self.motion_frame_min_deg >= 0.0),
            ("motion_frame_resid_deg", self.motion_frame_resid_deg > 0.0),
            ("motion_onset_min_deg", self.motion_onset_min_deg >= 0.0),
            ("motion_onset_block_s", self.motion_onset_block_s > 0.0),
            ("motion_onset_min_bins", self.motion_onset_min_bins >= 1),
            ("motion_onset_agree", 0.0 <= self.motion_onset_agree <= 1.0),
            ("motion_frame_agreed_deg", self.motion_frame_agreed_deg > 0.0),
        ]
        for name, ok in checks:
            if not ok:
                raise ParameterError(f"{name}={getattr(self, name)!r} is out of range")

    def grid(self, sample_rate: int) -> StftGrid:
        return stft_grid(sample_rate, hop_s=self.hop_s, win_s=self.win_s)

    def window_frames(self, grid: StftGrid) -> int:
        return max(1, int(round(self.window_s * grid.frame_rate)))

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> AnalysisParams:
        names = {f.name for f in fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ParameterError(f"unknown analysis parameters: {sorted(unknown)}")
        kw = dict(d)
        if "distance_range_m" in kw:
            kw["distance_range_m"] = tuple(kw["distance_range_m"])
        return cls(**kw)
