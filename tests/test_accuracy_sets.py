"""benchmarks/accuracy.py --sets: the two corpora of the analysis issue and their bars."""

from __future__ import annotations

import re
import sys

import pytest


@pytest.fixture()
def accuracy(bench_script):
    return bench_script("accuracy")


def _truth(az, onset, motion="stationary"):
    t = {"azimuth_deg": az, "elevation_deg": 0.0, "onset_s": onset, "offset_s": onset + 1.0,
         "motion": motion}
    if motion != "stationary":
        t["azimuth_end_deg"] = az + 60.0
    return t


def test_bar_line_says_met_or_not_met_for_each_figure(accuracy):
    from foakit.evaluate import match_clip, summarise

    truth = [_truth(0.0, 1.0), _truth(90.0, 3.0), _truth(-90.0, 5.0, "right_to_left")]
    # the first found with its direction, the second 30 deg off, the moving one found
    # with the wrong label; one clip whose count is right
    events = [{"azimuth_deg": 0.0, "elevation_deg": 0.0, "onset_s": 1.0, "offset_s": 2.0,
               "motion": "stationary"},
              {"azimuth_deg": 120.0, "elevation_deg": 0.0, "onset_s": 3.0, "offset_s": 4.0,
               "motion": "stationary"},
              {"azimuth_deg": -60.0, "elevation_deg": 0.0, "onset_s": 5.0, "offset_s": 6.0,
               "motion": "stationary"}]
    matches = match_clip("c", truth, events)
    s = summarise(matches, [(3, 3)])
    s["matches"] = matches
    # each kind's sources, detected, labels right
    assert accuracy._moving(matches) == (1, 1, 0)
    assert accuracy._moving(matches, moving=False) == (2, 2, 2)
    line = accuracy.bar_line(s, accuracy.CORPORA["plain"]["bar"])
    assert line.startswith("    against the bar: detected 100.0% (>= 93%: met)")
    assert "azimuth 50.0% (>= 95%: not met)" in line
    assert "elevation 100.0% (>= 93%: met)" in line
    assert "count 100.0% (>= 88%: met)" in line
    assert "moving detected 100.0% (>= 85%: met)" in line
    assert line.endswith("motion label 0.0% (>= 80%: not met)")
    # without moving sources their two figures are not judged
    still = match_clip("c", truth[:2], events[:2])
    s = summarise(still, [(2, 3)])
    s["matches"] = still
    line = accuracy.bar_line(s, accuracy.CORPORA["plain"]["bar"])
    assert "count 0.0% (>= 88%: not met)" in line
    assert line.endswith("moving detected - (>= 85%: -), motion label - (>= 80%: -)")


def test_the_corpora_hold_the_issue_settings_and_bars(accuracy):
    fan, plain = accuracy.CORPORA["fan"], accuracy.CORPORA["plain"]
    assert (fan["sources"], fan["rt60"], fan["fan"], fan["yaw"]) == ((1, 4), (0.2, 0.9), 0.5,
                                                                      True)
    assert (plain["sources"], plain["rt60"], plain["fan"], plain["yaw"], plain["moving"]) == (
        (1, 3), (0.2, 0.8), 0.0, False, 0.2)
    assert list(fan["bar"].values()) == [0.88, 0.92, 0.90, 0.80]
    assert list(plain["bar"].values()) == [0.93, 0.95, 0.93, 0.88, 0.85, 0.80]


def test_run_sets_renders_the_corpus_asked_for(accuracy, monkeypatch, capsys):
    monkeypatch.setattr(accuracy, "SETS", {"X": ("ism", 3, 1, 16000, "held out")})
    with pytest.raises(ValueError, match="corpus='dry'"):
        accuracy.run_sets(corpus="dry")
    accuracy.run_sets(corpus="plain")
    out = capsys.readouterr().out
    assert out.startswith("plain sets (RT60 0.2-0.8 s, 1-3 sources, no fan")
    assert "a share 0.2 of the sources moving" in out
    assert "[ism seed 3, 16000 Hz, 10 s, held out]" in out
    assert "against the bar: detected" in out and "motion label" in out
    # no fan in the plain scenes: each line says how often a background was reported anyway
    assert re.search(r"; a background without a fan \d/1\n", out)
    assert "fan as background" not in out
    accuracy.run_sets(corpus="fan", moving=0.0)
    out = capsys.readouterr().out
    assert out.startswith("fan / yaw sets (RT60 0.2-0.9 s, 1-4 sources")
    assert "a share 0 of the sources moving" in out
    bar = [ln for ln in out.splitlines() if "against the bar" in ln]
    assert len(bar) == 1 and "(>= 88%" in bar[0] and "moving detected" not in bar[0]
    assert re.search(r"; (fan as background \d/1|a background without a fan \d/1)\n", out)


def test_each_held_out_role_is_set_against_the_bar(accuracy, monkeypatch, capsys):
    monkeypatch.setattr(accuracy, "SETS", {"X": ("ism", 3, 1, 16000, "held out"),
                                           "Y": ("ism", 4, 1, 16000, "other room model"),
                                           "Z": ("ism", 5, 1, 16000, "tuned")})
    accuracy.run_sets(corpus="fan", moving=0.0)
    lines = capsys.readouterr().out.splitlines()
    pooled = [i for i, ln in enumerate(lines) if re.match(r"  (tuned|held out|other room model)",
                                                         ln)]
    assert [lines[i].split()[0] for i in pooled] == ["held", "other", "tuned"]
    bars = [i + 2 < len(lines) and lines[i + 2].startswith("    against the bar")
            for i in pooled]
    assert bars == [True, True, False]


def test_elevation_by_surface_splits_the_bands_rooms_by_what_reflects_more(accuracy):
    from foakit.evaluate import match_clip

    truth = [_truth(0.0, 1.0), _truth(90.0, 3.0), _truth(-90.0, 5.0)]
    for t, el in zip(truth, (20.0, 20.0, -10.0), strict=True):
        t["elevation_deg"] = el
    events = [{"azimuth_deg": az, "elevation_deg": el, "onset_s": on, "offset_s": on + 1.0}
              for az, el, on in ((0.0, 5.0, 1.0), (90.0, 18.0, 3.0), (-90.0, -4.0, 5.0))]
    matches = match_clip("c", truth, events)
    assert accuracy.elevation_by_surface(matches) == {}  # not a bands room
    for m, more in zip(matches, ("floor", "floor", "ceiling"), strict=True):
        m.extra["reflects_more"] = more
    got = accuracy.elevation_by_surface(matches)
    assert got["floor"] == (1, 2, pytest.approx(-8.5))
    assert got["ceiling"] == (1, 1, pytest.approx(6.0))


def test_the_audits_refuse_the_plain_corpus(accuracy, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["accuracy.py", "--sets", "--audits", "--corpus", "plain"])
    with pytest.raises(SystemExit, match="--audits writes the fan / yaw corpora only"):
        accuracy.main()


def test_reflects_more_follows_the_surface_engines_draw(accuracy):
    from foakit.synth import random_scene
    from foakit.synth.surfaces import draw_surfaces

    seen = set()
    for seed in range(20):
        scene = random_scene(seed, n_sources=1, rt60_s=0.5, duration_s=1.0)
        want = "floor" if draw_surfaces(scene).floor_hard else "ceiling"
        assert accuracy._reflects_more(scene, "ism-surfaces") == want
        assert accuracy._reflects_more(scene, "pyroomacoustics-surfaces") == want
        assert accuracy._reflects_more(scene, "ism") is None
        seen.add(want)
    assert seen == {"floor", "ceiling"}
    tuned = accuracy.sets_of("tuned")
    assert {"U1", "U2", "U3", "U4"} <= set(tuned)
    assert {tuned[n].engine for n in tuned if n.startswith("U")} == {
        "ism-surfaces", "pyroomacoustics-surfaces"}
