"""benchmarks/accuracy.py --sets: the two corpora of the analysis issue and their bars."""

from __future__ import annotations

import re
import sys

import numpy as np
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


def test_a_seed_offset_moves_every_seed_and_nothing_else(accuracy):
    base = accuracy.sets_of("held-out")
    moved = accuracy.sets_of("held-out", 400)
    assert list(moved) == list(base)
    for name, s in base.items():
        assert moved[name] == s._replace(seed=s.seed + 400)
    assert accuracy.sets_of("all", 0) == accuracy.sets_of("all")
    with pytest.raises(ValueError, match="seed_offset=-1 must be >= 0"):
        accuracy.sets_of("tuned", -1)
    # an offset that lands one set on another's engine and seed is no other draw
    with pytest.raises(ValueError, match=r"seed_offset=2 renders H1 from pyroomacoustics "
                                         r"seed 13, the seed of set H2"):
        accuracy.sets_of("held-out", 2)
    with pytest.raises(ValueError, match="the seed of set R3"):
        accuracy.sets_of("tuned", 8)  # checked over every set, whatever the role


def test_run_sets_renders_the_moved_seeds_and_says_so(accuracy, monkeypatch, capsys):
    monkeypatch.setattr(accuracy, "SETS", {"X": ("ism", 3, 1, 16000, "held out")})
    accuracy.run_sets(corpus="plain", seed_offset=7)
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("; every seed + 7):")
    assert "[ism seed 10, 16000 Hz, 10 s, held out]" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--seed-offset", "5"], "--seed-offset moves the seeds of --sets"),
    (["--sets", "--seed-offset", "-2"], "--seed-offset -2 must be >= 0"),
    (["--sets", "--seed-offset", "2"], "--seed-offset: seed_offset=2 renders H1"),
    (["--sets", "--seed-offset", "0", "-400"], "--seed-offset -400 must be >= 0"),
    (["--sets", "--seed-offset", "400", "402"], r"--seed-offset: seed_offsets=\[400, 402\] "
                                                r"render H1\+402 and H2\+400"),
    (["--seed-offset", "0", "400"], "--seed-offset moves the seeds of --sets"),
])
def test_the_seed_offset_is_refused_where_it_means_nothing(accuracy, monkeypatch, argv,
                                                           message):
    def renders(*args, **kwargs):
        raise AssertionError("the offsets were not refused before rendering")

    # a check that lets the offsets through fails here at once instead of rendering rooms
    for name in ("run_sets", "run_audits", "reverberant", "anechoic"):
        monkeypatch.setattr(accuracy, name, renders)
    monkeypatch.setattr(sys, "argv", ["accuracy.py", *argv])
    with pytest.raises(SystemExit, match=message):
        accuracy.main()


def _clip(i, detected, truths=2, counted=None):
    """A clip's matches: ``truths`` stationary sources, the first ``detected`` found with
    their direction, and its count pair."""
    from foakit.evaluate import match_clip

    truth = [_truth(40.0 * k, 2.0 * k) for k in range(truths)]
    events = [{"azimuth_deg": 40.0 * k, "elevation_deg": 0.0, "onset_s": 2.0 * k,
               "offset_s": 2.0 * k + 1.0, "motion": "stationary"} for k in range(detected)]
    return match_clip(str(i), truth, events), (truths, detected if counted is None else counted)


def test_clip_intervals_resample_whole_clips(accuracy):
    same = [_clip(i, 1) for i in range(5)]
    got = accuracy.clip_intervals(same, n_boot=50)
    assert got["detected"] == (0.5, 0.5)
    assert got["count"] == (0.0, 0.0)
    assert np.isnan(got["moving_detected"][0]) and np.isnan(got["motion_label"][1])
    # one clip all found, one none: a resampling of two clips finds 0, 1/2 or all of the
    # sources, never 1/4 or 3/4 as sources drawn one by one would
    two = [_clip(0, 2), _clip(1, 0)]
    lo, hi = accuracy.clip_intervals(two, n_boot=400)["detected"]
    assert (lo, hi) == (0.0, 1.0)
    narrow = accuracy.clip_intervals(two, n_boot=400, level=0.4)["detected"]
    assert narrow == (0.5, 0.5)
    mixed = [_clip(i, i % 3) for i in range(30)]
    a = accuracy.clip_intervals(mixed, n_boot=200, seed=1)
    again = accuracy.clip_intervals(mixed, n_boot=200, seed=1)
    for k in ("detected", "azimuth", "elevation", "count"):
        assert a[k] == again[k]
    point = sum(i % 3 for i in range(30)) / 60
    assert a["detected"][0] < point < a["detected"][1]
    assert 0.0 <= a["count"][0] < 1 / 3 < a["count"][1] <= 1.0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n_boot": 0}, "n_boot=0 must be >= 1"),
    ({"level": 1.0}, "level=1.0 must be between 0 and 1"),
    ({"level": 0.0}, "level=0.0 must be between 0 and 1"),
])
def test_clip_intervals_refuse_bad_settings(accuracy, kwargs, message):
    with pytest.raises(ValueError, match=message):
        accuracy.clip_intervals([_clip(0, 1)], **kwargs)
    with pytest.raises(ValueError, match="at least one clip"):
        accuracy.clip_intervals([])


def test_interval_line_names_the_figures_the_draw_could_turn(accuracy):
    bar = accuracy.CORPORA["fan"]["bar"]
    line = accuracy.interval_line({"detected": (0.80, 0.86), "azimuth": (0.90, 0.95),
                                   "elevation": (0.91, 0.96),
                                   "count": (float("nan"), float("nan"))}, bar)
    assert line.startswith("    95% interval over the clips (1000 resamplings): detected "
                           "80.0%-86.0%, azimuth 90.0%-95.0%, elevation 91.0%-96.0%, count -")
    assert line.endswith("; the bar inside the interval: azimuth")
    assert accuracy.interval_line({"detected": (0.9, 0.95)}, {"detected": 0.88}).endswith(
        "inside the interval: none")
    # a bar on the interval's edge lies inside it
    assert accuracy.interval_line({"detected": (0.88, 0.9)}, {"detected": 0.88}).endswith(
        "inside the interval: detected")
    assert accuracy.interval_line({"detected": (0.8, 0.88)}, {"detected": 0.88},
                                  level=0.5, n_boot=10).startswith(
        "    50% interval over the clips (10 resamplings): detected 80.0%-88.0%")


def test_by_clip_keeps_each_clips_sources_with_its_count(accuracy):
    clips = [_clip(0, 2, counted=2), _clip(1, 0, truths=1, counted=3), _clip(2, 1)]
    s = {"matches": [m for ms, _ in clips for m in ms], "counts": [c for _, c in clips]}
    got = accuracy._by_clip(s)
    assert [len(ms) for ms, _ in got] == [2, 1, 2]
    assert [c for _, c in got] == [(2, 2), (1, 3), (2, 1)]
    assert all(m.audio_path == str(i) for i, (ms, _) in enumerate(got) for m in ms)


def test_run_sets_prints_the_interval_under_each_bar(accuracy, monkeypatch, capsys):
    monkeypatch.setattr(accuracy, "SETS", {"X": ("ism", 3, 2, 16000, "held out")})
    accuracy.run_sets(corpus="fan", moving=0.0)
    lines = capsys.readouterr().out.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("    against the bar"))
    assert lines[i + 1].startswith("    95% interval over the clips (1000 resamplings): detected")


def test_main_passes_the_seed_offset_to_the_sets_and_the_audits(accuracy, monkeypatch):
    seen = {}
    monkeypatch.setattr(accuracy, "run_sets", lambda *a, **k: seen.setdefault("sets", a))
    monkeypatch.setattr(accuracy, "run_audits", lambda *a, **k: seen.setdefault("audits", a))
    monkeypatch.setattr(sys, "argv", ["accuracy.py", "--sets", "--audits", "--seed-offset",
                                      "400", "--role", "held-out"])
    assert accuracy.main() == 0
    assert seen["sets"][-1] == (400,) and seen["sets"][3] == "held-out"
    assert seen["audits"][-1] == (400,) and seen["audits"][3] == "held-out"


def test_main_passes_several_offsets_as_draws(accuracy, monkeypatch):
    seen = {}
    monkeypatch.setattr(accuracy, "run_sets", lambda *a, **k: seen.setdefault("sets", a))
    monkeypatch.setattr(sys, "argv", ["accuracy.py", "--sets", "--seed-offset", "0", "400",
                                      "800"])
    assert accuracy.main() == 0
    assert seen["sets"][-1] == (0, 400, 800)


def test_draws_name_each_set_by_its_offset_and_keep_draws_apart(accuracy):
    one = accuracy.sets_of("held-out")
    got = accuracy.draws_of("held-out", (0, 400))
    assert list(got) == [*one, *(f"{n}+400" for n in one)]
    for name, spec in one.items():
        assert got[name] == spec
        assert got[f"{name}+400"] == spec._replace(seed=spec.seed + 400)
    # one offset is one draw, named as the sets are
    assert accuracy.draws_of("tuned", 400) == {
        n: s for n, s in accuracy.sets_of("tuned", 400).items()}
    with pytest.raises(ValueError, match=r"seed_offsets=\[400, 400\] repeat an offset"):
        accuracy.draws_of("held-out", (400, 400))
    with pytest.raises(ValueError, match="needs at least one offset"):
        accuracy.draws_of("held-out", ())
    # each offset alone is fine, but H1 + 402 is H2 + 400: pyroomacoustics seed 413 twice
    accuracy.sets_of("all", 402)
    with pytest.raises(ValueError, match=r"render H1\+402 and H2\+400 from pyroomacoustics "
                                         r"seed 413"):
        accuracy.draws_of("held-out", (400, 402))
    # checked over every set, whatever the role: T1 + 21 is H3 (ism seed 21)
    with pytest.raises(ValueError, match="renders T1 from ism seed 21"):
        accuracy.draws_of("room-model", (0, 21))
    # and between draws over every set too: T2 + 409 (tuned) is H1 + 400, pyroomacoustics 411
    with pytest.raises(ValueError, match=r"render T2\+409 and H1\+400 from pyroomacoustics "
                                         r"seed 411"):
        accuracy.draws_of("held-out", (400, 409))


def test_run_audits_audits_and_pools_every_draw(accuracy, monkeypatch, capsys):
    monkeypatch.setattr(accuracy, "SETS", {"X": ("ism", 3, 1, 16000, "held out")})
    calls = []

    def fake_audit(name, engine, seed, clips, rate, tmp, **kw):
        calls.append((name, engine, seed))
        return {"labels": 10, "clean_flagged": 1, "false_flags": 0,
                "injected": (2, 4), "elevation_only": (1, 2), "starss_sources": 5,
                "starss_clean_flagged": 0, "starss_injected": (1, 1), "starss_false_flags": 0,
                **{f: (1, 1) for f in accuracy.FIELDS}}

    monkeypatch.setattr(accuracy, "audit_set", fake_audit)
    accuracy.run_audits(seed_offset=(0, 7))
    out = capsys.readouterr().out.splitlines()
    assert calls == [("X", "ism", 3), ("X+7", "ism", 10)]
    assert out[0].endswith("; the draws of every seed + 0, + 7, pooled):")
    pooled = [ln for ln in out if ln.startswith("  held out ")]
    assert len(pooled) == 1
    assert "clean labels flagged 10.0% (2/20)" in pooled[0]
    assert "corrupted labels flagged 50.0% (4/8)" in pooled[0]


def _spy_on_intervals(accuracy, monkeypatch) -> list:
    """The count pairs of the clips each ``clip_intervals`` call pools, one list a call."""
    pooled = []
    real = accuracy.clip_intervals

    def spy(clips, **kw):
        pooled.append([c for _, c in clips])
        return real(clips, **kw)

    monkeypatch.setattr(accuracy, "clip_intervals", spy)
    return pooled


def test_run_sets_pools_every_draw(accuracy, monkeypatch, capsys):
    monkeypatch.setattr(accuracy, "SETS", {"X": ("ism", 3, 1, 16000, "held out")})
    pooled = _spy_on_intervals(accuracy, monkeypatch)
    accuracy.run_sets(corpus="plain", seed_offset=(0, 7))
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("; the draws of every seed + 0, + 7, pooled):")
    assert "[ism seed 3, 16000 Hz, 10 s, held out]" in out
    assert "  X+7 " in out and "[ism seed 10, 16000 Hz, 10 s, held out]" in out
    # one held-out pool of both draws' clips: one interval over two clips
    assert len(pooled) == 1 and len(pooled[0]) == 2
    held = [ln for ln in out.splitlines() if ln.startswith("  held out ")]
    assert len(held) == 1 and " of  2," in held[0]


def test_clip_intervals_hold_the_level_asked_for(accuracy):
    # half the clips with every source found, half with none: each resampling's detection is
    # a binomial share of 100 clips, sd 0.05, so a 95 % interval is about 0.5 +- 0.098 and a
    # 50 % one about 0.5 +- 0.034
    clips = [_clip(i, 2 if i % 2 else 0) for i in range(100)]
    lo, hi = accuracy.clip_intervals(clips, n_boot=2000, level=0.95)["detected"]
    assert 0.18 < hi - lo < 0.215 and abs((lo + hi) / 2 - 0.5) < 0.02
    lo, hi = accuracy.clip_intervals(clips, n_boot=2000, level=0.5)["detected"]
    assert 0.05 < hi - lo < 0.085


def test_clip_intervals_skip_resamplings_with_nothing_to_count(accuracy):
    from foakit.evaluate import match_clip

    moving = _truth(0.0, 1.0, "left_to_right")
    found = [{"azimuth_deg": 30.0, "elevation_deg": 0.0, "onset_s": 1.0, "offset_s": 2.0,
              "motion": "left_to_right"}]
    clips = [(match_clip("m", [moving], found), (1, 1))] + [_clip(i, 1) for i in range(9)]
    got = accuracy.clip_intervals(clips, n_boot=300)
    # about a third of the resamplings draw no moving source; the others find it, labelled
    assert got["moving_detected"] == (1.0, 1.0)
    assert got["motion_label"] == (1.0, 1.0)


def test_run_sets_pools_the_clips_of_every_set_for_the_interval(accuracy, monkeypatch,
                                                                capsys):
    monkeypatch.setattr(accuracy, "SETS", {"X": ("ism", 3, 1, 16000, "held out"),
                                           "Y": ("ism", 4, 2, 16000, "held out")})
    pooled = _spy_on_intervals(accuracy, monkeypatch)
    accuracy.run_sets(corpus="fan", moving=0.0)
    capsys.readouterr()
    assert len(pooled) == 1 and len(pooled[0]) == 3
