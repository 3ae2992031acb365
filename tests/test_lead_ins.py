"""A segment that opens on other sources' reverberation starts at its own sound
(foakit.echoes.cut_lead_ins)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from foakit.echoes import (
    LEAD_IN_HOLD_S,
    LEAD_IN_MAX_BINS,
    LEAD_IN_MIN_S,
    LEAD_IN_ONSET_BINS,
    LEAD_IN_REACH_S,
    cut_lead_ins,
)
from foakit.errors import ParameterError
from foakit.kernels.cone import CONE_CHANNELS
from foakit.params import AnalysisParams

RATE = 40.0  # frames per second: the constants below are whole frames
N, START, STOP, AT = 300, 10, 250, 60
MIN = round(LEAD_IN_MIN_S * RATE)
REACH = round(LEAD_IN_REACH_S * RATE)
HOLD = round(LEAD_IN_HOLD_S * RATE)


def _cone(*, at: int = AT, jump_db: float = 20.0, bins: float = 8.0, n_tracks: int = 1):
    """One segment ``START:STOP`` of weight 1 and no onset bins up to frame ``at``, then
    ``jump_db`` louder from a frame of ``bins`` onset bins on."""
    cones = np.zeros((n_tracks, N, CONE_CHANNELS), np.float32)
    cones[0, START:STOP, 3] = 1.0
    cones[0, at:STOP, 3] = 10.0 ** (jump_db / 10.0)
    cones[0, at, 8] = bins
    act = np.zeros((n_tracks, N), np.uint8)
    act[0, START:STOP] = 1
    return act, cones


def _start(act, k: int = 0) -> int | None:
    hit = np.flatnonzero(act[k])
    return int(hit[0]) if len(hit) else None


def _cut(act, cones, least_db: float = 15.0):
    cut_lead_ins(act, cones, frame_rate=RATE, least_db=least_db)
    return act


def test_the_constants_are_whole_frames_at_this_rate():
    assert (MIN, REACH, HOLD) == (12, 140, 20)
    assert LEAD_IN_MAX_BINS < LEAD_IN_ONSET_BINS


def test_a_weak_lead_in_is_cut_at_the_cones_own_onset():
    act = _cut(*_cone())
    assert _start(act) == AT and act[0, AT:STOP].all() and not act[0, STOP:].any()


@pytest.mark.parametrize(("jump_db", "least_db", "cut"), [(20.0, 15.0, True),
                                                           (14.0, 15.0, False),
                                                           (16.0, 15.0, True),
                                                           (20.0, 0.0, False)])
def test_the_sound_must_be_least_db_louder_than_its_lead_in(jump_db, least_db, cut):
    act = _cut(*_cone(jump_db=jump_db), least_db=least_db)
    assert _start(act) == (AT if cut else START)


@pytest.mark.parametrize(("bins", "cut"), [(LEAD_IN_ONSET_BINS, True),
                                           (LEAD_IN_ONSET_BINS - 1, False)])
def test_the_sound_starts_on_a_frame_of_enough_onset_bins(bins, cut):
    act = _cut(*_cone(bins=bins))
    assert _start(act) == (AT if cut else START)


@pytest.mark.parametrize(("frame", "bins", "cut"), [
    (START - 1, LEAD_IN_MAX_BINS + 1, False),  # frames -1..+4 of the segment are its start
    (START + 4, LEAD_IN_MAX_BINS + 1, False),
    (START - 2, LEAD_IN_MAX_BINS + 1, True),
    (START + 5, LEAD_IN_MAX_BINS + 1, True),
    (START, LEAD_IN_MAX_BINS, True),  # a stray bin or three do not make an onset
])
def test_a_segment_that_starts_on_onset_bins_of_its_own_is_kept(frame, bins, cut):
    act, cones = _cone()
    cones[0, frame, 8] = bins
    assert _start(_cut(act, cones)) == (AT if cut else START)


@pytest.mark.parametrize(("at", "cut"), [(START + MIN - 1, False), (START + MIN, True),
                                         (START + REACH - 1, True), (START + REACH, False)])
def test_the_onset_is_sought_from_lead_in_min_s_to_lead_in_reach_s(at, cut):
    act = _cut(*_cone(at=at))
    assert _start(act) == (at if cut else START)


def test_the_first_frame_that_qualifies_is_taken():
    act, cones = _cone(at=80)
    cones[0, AT, 8] = 9.0  # many onset bins, but the cone is no louder after it yet
    cones[0, 100, 8] = 9.0  # qualifies too (the cone 40 dB up from there)
    cones[0, 100:STOP, 3] = 1.0e4
    assert _start(_cut(act, cones)) == 80


def test_the_lead_in_is_the_mean_of_all_the_frames_before():
    act, cones = _cone(jump_db=18.0)
    cones[0, START:START + 5, 3] = 10.0 ** 2.0  # a loud moment early in the lead-in
    assert _start(_cut(act, cones)) == START
    act, cones = _cone(jump_db=18.0)
    cones[0, AT - 2:AT, 3] = 10.0 ** 1.0  # its last frames alone rise 8 dB: the mean decides
    assert _start(_cut(act, cones)) == AT


def test_the_sound_is_judged_over_lead_in_hold_s_within_the_segment():
    act, cones = _cone(jump_db=20.0)
    cones[0, AT + 1:STOP, 3] = 1.0  # one loud frame: 1/HOLD of the hold is loud
    assert _start(_cut(act, cones)) == START
    for frame, cut in ((AT + HOLD - 1, True), (AT + HOLD, False)):
        act, cones = _cone(jump_db=0.0)
        cones[0, frame, 3] = 1.0e3  # one very loud frame: the last of the hold, or the next
        assert _start(_cut(act, cones)) == (AT if cut else START)
    act, cones = _cone(jump_db=16.0)
    act[0, AT + 2:] = 0  # the segment ends two frames in: the mean of those two
    cones[0, AT + 1, 3] = 1.0
    cones[0, AT + 2:, 3] = 1000.0  # what follows the segment does not count
    assert _start(_cut(act, cones)) == START
    cones[0, AT + 1, 3] = 10.0 ** 1.6
    assert _start(_cut(act, cones)) == AT


def test_an_onset_another_cone_leads_is_not_the_cones_own():
    act, cones = _cone(n_tracks=2)
    cones[0, AT, 4] = 1.0  # the onset bins' energy in cone 0's onset frame
    cones[1, AT + 1, 4] = 2.0  # another cone's stronger onset in the next frame
    assert _start(_cut(act.copy(), cones)) == START
    cones[1, AT + 1, 4] = 0.5  # weaker: the onset is cone 0's own
    assert _start(_cut(act.copy(), cones)) == AT
    cones[1, AT + 1, 4] = 2.0
    cones[0, 80, 8] = 9.0  # a later onset of its own, the cone 20 dB louder from there
    cones[0, 80, 4] = 1.0
    cones[0, 80:STOP, 3] = 1.0e4
    assert _start(_cut(act.copy(), cones)) == 80


def test_each_cone_and_segment_is_judged_on_its_own():
    act, cones = _cone(n_tracks=2)
    act[1, START:STOP] = 1
    cones[1, START:STOP, 3] = 1.0  # no onset of its own anywhere
    act[0, 260:290] = 1  # a second segment of cone 0, with no lead-in
    cones[0, 260, 8] = 9.0
    act = _cut(act, cones)
    assert _start(act, 0) == AT and act[0, 260:290].all() and act[0, STOP:260].sum() == 0
    assert act[1, START:STOP].all()


def test_cones_without_onset_bin_numbers_are_left_alone():
    act, cones = _cone()
    _cut(act, cones[..., :8])
    assert _start(act) == START
    assert _start(_cut(act, np.ascontiguousarray(cones[..., :9]))) == AT


def test_a_segment_from_the_clips_first_frame():
    act, cones = _cone()
    act[0, :START] = 1
    cones[0, :START, 3] = 1.0
    assert _start(_cut(act.copy(), cones)) == AT
    cones[0, 4, 8] = LEAD_IN_MAX_BINS + 1  # frame 4 is the start's: its own onset
    assert _start(_cut(act.copy(), cones)) == 0


def test_lead_in_db_is_validated_and_the_audits_run_without_it():
    from foakit.audit.preset import AUDIT_PARAMS

    with pytest.raises(ParameterError, match="lead_in_db"):
        AnalysisParams(lead_in_db=-1.0)
    assert AUDIT_PARAMS.lead_in_db == 0.0
    assert AnalysisParams().lead_in_db == 15.0


def test_a_rendered_room_dates_the_source_the_lead_in_hid(bench_script):
    """Clip 43 of the tuned fan / yaw set at 24 kHz (ISM, seed 7, RT60 0.27 s): a source at
    (57, 7) from 0.4 to 3.4 s and one at (-156, -21) from 2.8 s.  The second one's cone
    holds the first one's reverberation from its onset on: without the cut that lead-in
    dates the second source at 0.4 s, and of two events starting together one stays."""
    from foakit.analysis import analyze_samples
    from foakit.evaluate import match_clip
    from foakit.synth.render import yawed_truth

    acc = bench_script("accuracy")
    scene, _, yaw, x, _ = acc.render_clip(43, 7, "ism", (0.2, 0.9), rate=24000,
                                          sources=(1, 4), fan=0.5, yaw=True, moving=0.0)
    truth = [yawed_truth(s.to_dict(), yaw) for s in scene.sources]
    assert [round(t["onset_s"], 1) for t in truth] == [0.4, 2.8]
    found = {}
    for least_db in (15.0, 0.0):
        res = analyze_samples(x, scene.sample_rate,
                              params=dataclasses.replace(AnalysisParams(), lead_in_db=least_db))
        matches = match_clip("43", truth, [e.to_dict() for e in res.events])
        found[least_db] = (matches, res.n_sources)
    matches, n_sources = found[15.0]
    assert [m.detected for m in matches] == [True, True] and n_sources == 2
    assert all(abs(m.azimuth_error_deg) <= 20.0 for m in matches)
    matches, n_sources = found[0.0]
    assert n_sources == 1 and not matches[1].detected
    early = matches[0].estimate  # "detected" at 0.4 s by an event from the second one
    assert abs(early["onset_s"] - 0.4) <= 0.1 and abs(early["azimuth_deg"] + 156.0) <= 20.0
