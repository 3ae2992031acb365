"""The dsp baseline's calibrated distance answer and motion gate (calibration.py): known
answers on small synthetic scenes, the evidence, determinism and the error paths."""

from __future__ import annotations

import numpy as np
import pytest

from foakit.analysis import analyze_samples
from foakit.bench.sobench.calibration import (
    DISTANCE_CALIBRATION,
    DistanceCalibration,
    MotionGate,
    calibrated_distance,
    fit_distance_calibration,
    gated_motion,
)
from foakit.bench.sobench.dsp import dsp_predictions
from foakit.bench.sobench.format import QAItem
from foakit.errors import ParameterError
from foakit.synth import random_scene, render_scene

PATH = "audio/test/foa_x.wav"


def analysed_clip(scene):
    """The clips.jsonl-like record of a rendered scene, from foakit's real analysis."""
    res = analyze_samples(render_scene(scene, engine="ism"), scene.sample_rate)
    return {"path": PATH, "status": "ok", "channels": 4, "n_sources": res.n_sources,
            "events": [e.to_dict() for e in res.events]}


def ask(task, clip, question):
    it = QAItem(qa_id="q", audio_path=PATH, task_name=task, question=question,
                canonical_answer="", answer="", answer_meta={})
    return dsp_predictions([it], {PATH: clip})[0]


def distance_answer(distance_m, seed):
    scene = random_scene(seed, n_sources=1, rt60_s=0.6, snr_db=30.0,
                         distance_m=(distance_m, distance_m), duration_s=4.0)
    return ask("estimate_distance", analysed_clip(scene), "How far away is the sound?")


def test_a_far_source_in_a_room_is_answered_farther_than_a_near_one():
    near = [distance_answer(1.0, s) for s in (1, 3, 4)]
    far = [distance_answer(4.5, s) for s in (1, 3, 4)]
    d_near = [r["foakit"]["values"]["distance_m"] for r in near]
    d_far = [r["foakit"]["values"]["distance_m"] for r in far]
    assert np.mean(d_far) - np.mean(d_near) >= 0.3, (d_near, d_far)
    assert min(d_far) > max(d_near), (d_near, d_far)
    for row in near + far:  # the evidence says the answer is calibrated and how confident
        cal = row["foakit"]["calibration"]
        assert cal["method"] == "calibrated" and 0.0 < cal["confidence"] <= 1.0
        assert cal["constant_m"] == DISTANCE_CALIBRATION.constant_m
        assert "calibrated" in row["foakit"]["evidence"]
        assert "about the blind constant" in row["foakit"]["evidence"]
        assert "confidence" in row["foakit"]["evidence"]


def test_without_reverberation_the_blind_constant_is_answered_and_said():
    scene = random_scene(5, n_sources=1, rt60_s=None, snr_db=30.0, duration_s=4.0)
    row = ask("estimate_distance", analysed_clip(scene), "How far away is the sound?")
    assert row["foakit"]["values"] == {"distance_m": DISTANCE_CALIBRATION.constant_m}
    assert row["foakit"]["calibration"]["method"] == "constant"
    assert row["foakit"]["calibration"]["confidence"] == DISTANCE_CALIBRATION.constant_hit_rate
    assert "blind constant" in row["foakit"]["evidence"]
    assert "not this QA file's labels" in row["foakit"]["evidence"]


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_a_stationary_source_in_a_reverberant_room_is_answered_stationary(seed):
    scene = random_scene(seed, n_sources=1, rt60_s=0.8, snr_db=20.0, duration_s=5.0,
                         allow_motion=False)
    row = ask("classify_motion", analysed_clip(scene),
              f"Is the sound of the {scene.sources[0].label} stationary or moving?")
    assert row["foakit"]["values"] == {"motion_label": "stationary"}
    assert row["prediction"] == "Stationary."
    assert "motion gate" in row["foakit"]["evidence"]
    assert row["foakit"]["calibration"]["strong"] is False


@pytest.mark.parametrize("seed", [22, 23, 24])
def test_a_clearly_moving_anechoic_source_is_answered_moving_its_way(seed):
    scene = random_scene(seed, n_sources=1, rt60_s=None, snr_db=30.0, duration_s=5.0,
                         allow_motion=True, motion_probability=1.0)
    src = scene.sources[0]
    assert src.is_moving
    want = {"right_to_left": "moving_left", "left_to_right": "moving_right"}[src.motion]
    row = ask("classify_motion", analysed_clip(scene),
              f"Is the sound of the {src.label} stationary or moving?")
    assert row["foakit"]["values"] == {"motion_label": want}
    assert row["foakit"]["calibration"]["strong"] is True
    assert "strong evidence" in row["foakit"]["evidence"]


def _event(**kw):
    ev = {"onset_s": 1.0, "offset_s": 4.0, "azimuth_deg": 10.0, "elevation_deg": 0.0,
          "distance_m": 2.0, "distance_proxy": "diffuseness", "diffuseness": 0.7,
          "motion": "right_to_left", "azimuth_start_deg": -10.0, "azimuth_end_deg": 30.0,
          "confidence": 0.2, "energy_db": -20.0, "source": 0}
    ev.update(kw)
    return ev


def test_the_motion_gate_on_hand_made_events():
    assert gated_motion(_event())[0] == "right_to_left"  # 40 deg, confidence 0.2
    label, info = gated_motion(_event(confidence=0.01))
    assert label == "stationary" and not info["strong"] and "weak evidence" in info["text"]
    assert gated_motion(_event(confidence=0.02))[0] == "right_to_left"  # at the floor
    assert gated_motion(_event(azimuth_end_deg=4.0))[0] == "stationary"  # 14 deg < 15
    assert gated_motion(_event(azimuth_end_deg=5.0))[0] == "right_to_left"  # 15 deg
    # the change is measured across the +-180 deg seam
    assert gated_motion(_event(azimuth_start_deg=170.0, azimuth_end_deg=-150.0))[1][
        "change_deg"] == 40.0
    assert gated_motion(_event(motion="stationary"))[0] == "stationary"
    assert gated_motion(_event(), MotionGate(min_change_deg=50.0))[0] == "stationary"
    with pytest.raises(ParameterError, match="min_confidence"):
        MotionGate(min_confidence=1.5)


def test_the_distance_answer_is_weighted_clipped_and_monotone():
    cal = DISTANCE_CALIBRATION
    confs = [0.01, 0.03, 0.1, 0.3, 0.9]
    answers = [cal.answer(c) for c in confs]
    assert answers == sorted(answers, reverse=True)  # less direct sound, farther
    lo, hi = cal.range_m
    for c in confs:  # the answer sits on the estimate's side of the constant, weight times
        est, ans = cal.estimate(c), cal.answer(c)
        expect = min(max(cal.constant_m + cal.weight * (est - cal.constant_m), lo), hi)
        assert ans == pytest.approx(expect)
        assert (ans - cal.constant_m) * (est - cal.constant_m) >= 0
    for w, inside in ((0.5, True), (1.5, False)):  # below 1 shrinks, above 1 spreads
        k = DistanceCalibration(**{**cal.__dict__, "weight": w})
        est = k.estimate(0.9)
        assert (min(est, k.constant_m) <= k.answer(0.9) <= max(est, k.constant_m)) == inside
    low = DistanceCalibration(intercept=3.0, slope=0.0, constant_m=2.0, weight=1.0,
                              range_m=(0.5, 6.0), min_confidence=0.01, bin_edges=(),
                              bin_hit_rates=(0.5,), constant_hit_rate=0.5)
    assert low.answer(0.5) == 6.0  # exp(3) clipped
    d, info = calibrated_distance(_event(confidence=None))
    assert d == cal.constant_m and info["method"] == "constant"
    assert calibrated_distance(_event()) == calibrated_distance(_event())


def test_the_fit_is_deterministic_and_recovers_a_known_relation():
    rng = np.random.default_rng(0)
    truth = rng.uniform(0.8, 4.5, 400)
    conf = np.exp(-(np.log(truth) - 0.4) / 0.5 + rng.normal(0, 0.3, 400))  # log r = 0.4 - 0.5 log c
    a = fit_distance_calibration(conf, truth, no_cue_truth_m=truth[:50])
    b = fit_distance_calibration(list(conf), list(truth), no_cue_truth_m=list(truth[:50]))
    assert a == b
    assert a.slope < 0 and a.weight > 0.5
    assert 1.5 <= a.constant_m <= 3.5
    assert len(a.bin_hit_rates) == len(a.bin_edges) + 1 == 4
    hits = np.mean(np.abs(np.array([a.answer(c) for c in conf]) - truth) <= 1.0)
    best_const = max(np.mean(np.abs(c - truth) <= 1.0) for c in np.arange(1.0, 4.0, 0.05))
    assert hits > best_const + 0.1


def test_fit_and_calibration_errors_name_the_bad_value():
    with pytest.raises(ParameterError, match="equal 1-d shapes"):
        fit_distance_calibration([0.1, 0.2], [1.0])
    with pytest.raises(ParameterError, match="n_bins"):
        fit_distance_calibration([0.1] * 10, [1.0] * 10, n_bins=0)
    kw = dict(intercept=0.0, slope=0.0, constant_m=2.0, weight=1.0, range_m=(0.5, 6.0),
              min_confidence=0.01, bin_edges=(0.1,), bin_hit_rates=(0.5, 0.5),
              constant_hit_rate=0.5)
    for bad, match in ((dict(range_m=(3.0, 1.0)), "range_m"), (dict(constant_m=9.0), "constant_m"),
                       (dict(weight=3.0), "weight"), (dict(min_confidence=0.0), "min_confidence"),
                       (dict(bin_hit_rates=(0.5,)), "bin_hit_rates")):
        with pytest.raises(ParameterError, match=match):
            DistanceCalibration(**{**kw, **bad})


def test_a_question_by_class_is_not_assumed_to_mean_the_moving_sound():
    loud = _event(motion="stationary", azimuth_start_deg=10.0, azimuth_end_deg=10.0,
                  energy_db=-10.0, confidence=0.5, source=0)
    mover = _event(azimuth_deg=-90.0, onset_s=5.0, offset_s=8.0, energy_db=-25.0,
                   azimuth_start_deg=-120.0, azimuth_end_deg=-60.0, confidence=0.4, source=1)
    clip = {"path": PATH, "status": "ok", "channels": 4, "n_sources": 2,
            "events": [loud, mover]}
    row = ask("classify_motion", clip, "Is the sound of the dog stationary or moving?")
    assert row["foakit"]["values"] == {"motion_label": "stationary"}
    assert "most salient" in row["foakit"]["why"]
    # asked by its time, the moving sound is found and answered moving
    row = ask("classify_motion", clip, "Is the sound heard at 6 s stationary or moving?")
    assert row["foakit"]["values"] == {"motion_label": "moving_left"}
