"""Onset labels of questions that name a direction and no class the corpus follows are
checked against the analysed events from that direction."""

from __future__ import annotations

import numpy as np

from foakit.audit.estimates import ClipEstimate, DoaEstimate
from foakit.bench.sobench.audit import audit_clip, class_vocabulary, clip_claims
from foakit.bench.sobench.audit_config import SobenchAuditConfig
from foakit.bench.sobench.format import QAItem

Q = "A sound comes from the back-right (about -144 degrees azimuth). When does it start?"


def _event(onset, az, el=0.0):
    return {"onset_s": onset, "offset_s": onset + 2.0, "azimuth_deg": az, "elevation_deg": el}


def _clip(events, onsets=None):
    doa = DoaEstimate(channel_order="ambix", window_s=0.4,
                      peaks=np.zeros((25, 4, 4), np.float32), events=events, onsets=onsets)
    return ClipEstimate("a", "a.wav", sample_rate=16000, duration_s=10.0, doa=doa)


def _verdict(onset_label, events, question=Q, cfg=None, onsets=None):
    it = QAItem(qa_id="q1", audio_path="audio/a.wav", task_name="onset_from_location",
                question=question, answer=f"It starts at {onset_label} s.",
                answer_meta={"onset_time": onset_label}, record={"audio_id": "a"})
    cc = clip_claims("a", [it], class_vocabulary([it]))
    (v,), _ = audit_clip(cc, _clip(events, onsets), cfg)
    return v


def test_an_event_from_the_direction_at_the_label_agrees():
    v = _verdict(3.0, [_event(3.2, -140.0), _event(0.5, 60.0)])
    assert v.verdict == "consistent" and v.estimate == 3.2
    assert v.evidence["direction_from_question"] == -144.0


def test_a_label_far_from_every_event_from_the_direction_is_suspicious():
    v = _verdict(6.0, [_event(3.2, -150.0), _event(6.0, 60.0)])  # the 6 s event is elsewhere
    assert v.verdict == "suspicious" and v.estimate == 3.2 and "-2.8 s" in v.reason


def test_close_calls_and_other_directions_stay_unverifiable():
    assert _verdict(3.9, [_event(3.2, -140.0)]).verdict == "unverifiable"  # 0.7 s: too close
    v = _verdict(3.0, [_event(3.0, 90.0)])
    assert v.verdict == "unverifiable" and "no analysed event comes from" in v.reason


def test_clock_positions_and_sector_words_give_the_direction():
    q = "What is the onset time of the sound at 3 o'clock?"
    assert _verdict(1.0, [_event(1.1, -85.0)], question=q).verdict == "consistent"
    q = "When does the sound coming from your left begin?"
    assert _verdict(1.0, [_event(1.0, 70.0)], question=q).verdict == "consistent"


def test_the_check_can_be_turned_off():
    cfg = SobenchAuditConfig(direction_onset_conf=0.0)
    v = _verdict(6.0, [_event(3.2, -150.0)], cfg=cfg)
    # the label is then left to the time check of a source of its own, which needs the
    # energy map these events-only estimates lack
    assert v.verdict == "unverifiable" and "nearest" not in v.reason


def test_a_sound_much_nearer_the_question_s_direction_is_the_one_it_means():
    # the question's -144 deg: the event 4 deg off is its sound, the one 24 deg off another
    events = [_event(1.9, -120.0), _event(4.5, -140.0)]
    v = _verdict(2.0, events)
    assert v.verdict == "suspicious" and v.estimate == 4.5
    assert _verdict(4.5, events).verdict == "consistent"
    # two events about as near are both its candidates
    assert _verdict(2.0, [_event(1.9, -134.0), _event(4.5, -150.0)]).verdict == "consistent"
    # a wider margin keeps the farther event as a candidate
    cfg = SobenchAuditConfig(direction_onset_margin_deg=30.0)
    assert _verdict(2.0, events, cfg=cfg).verdict == "consistent"


def test_onsets_new_at_the_label_from_the_direction_keep_it_from_being_flagged():
    # the only analysed event from the question's direction starts at 3.2 s, 2.8 s from the
    # label, but onsets new at 6.0 s come from -146 deg: the sound starts at the label
    def rows(t, az):
        return [[t, az, 0.0, 1.0, 1.0, 0.0], [t + 0.05, az + 2.0, 0.0, 1.0, 1.0, 0.0]]

    events = [_event(3.2, -150.0)]
    v = _verdict(6.0, events, onsets=np.array(rows(6.0, -146.0)))
    assert v.verdict == "unverifiable" and "onsets new then come from there" in v.reason
    # onsets from elsewhere, or from that direction already before: still suspicious
    assert _verdict(6.0, events, onsets=np.array(rows(6.0, 60.0))).verdict == "suspicious"
    before = np.array(rows(4.5, -146.0) + rows(6.0, -146.0))
    assert _verdict(6.0, events, onsets=before).verdict == "suspicious"
