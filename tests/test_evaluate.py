"""foakit.evaluate: the truth-to-estimate matching behind foakit demo and
benchmarks/accuracy.py."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.evaluate import match_clip, summarise


def _src(onset, az, el=0.0):
    return {"onset_s": onset, "offset_s": onset + 1.0, "azimuth_deg": az,
            "elevation_deg": el, "azimuth_end_deg": None}


def _ev(onset, az, el=0.0):
    return {"onset_s": onset, "offset_s": onset + 1.0, "azimuth_deg": az,
            "elevation_deg": el}


def test_an_estimate_goes_to_the_true_event_it_detects():
    # e1 starts with s1 but points at s2; e2 starts 2 s after both. Least cost without the
    # onset gate pairs e1 with s2 (0.4 s apart) and e2 with s1: no detection at all
    sources = [_src(1.0, 0.0), _src(1.5, 90.0)]
    events = [_ev(1.1, 90.0), _ev(3.0, 0.0)]
    m = match_clip("a.wav", sources, events)
    assert [x.detected for x in m] == [True, False]
    assert m[0].estimate is events[0] and m[1].estimate is events[1]
    assert abs(m[0].onset_error_s - 0.1) < 1e-9
    assert abs(m[0].azimuth_error_deg - 90.0) < 1e-9


def test_among_detections_the_closer_direction_wins():
    sources = [_src(1.0, 0.0), _src(1.05, 120.0)]
    events = [_ev(1.02, 118.0), _ev(1.03, 3.0)]
    m = match_clip("a.wav", sources, events)
    assert m[0].estimate is events[1] and m[1].estimate is events[0]
    assert all(x.detected for x in m)
    s = summarise(m, [(2, 2)])
    assert s["detected"] == 2 and s["azimuth_within_tol"] == 1.0


def test_no_estimates_or_no_sources():
    assert [x.estimate for x in match_clip("a", [_src(1.0, 0.0)], [])] == [None]
    assert match_clip("a", [], [_ev(1.0, 0.0)]) == []


onsets = st.floats(0.0, 3.0).map(lambda v: round(v, 2))
azimuths = st.floats(-180.0, 179.0).map(lambda v: round(v, 1))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(onsets, azimuths), min_size=1, max_size=4),
       st.lists(st.tuples(onsets, azimuths), min_size=1, max_size=4))
def test_detections_are_the_most_any_one_to_one_matching_has(src, est):
    sources = [_src(o, a) for o, a in src]
    events = [_ev(o, a) for o, a in est]
    m = match_clip("a", sources, events)
    used = [id(x.estimate) for x in m if x.estimate is not None]
    assert len(used) == len(set(used)) == min(len(sources), len(events))
    # brute force: every injective assignment of events to sources
    best = 0
    k = min(len(sources), len(events))
    for srcs in itertools.combinations(range(len(sources)), k):
        for evs in itertools.permutations(range(len(events)), k):
            best = max(best, sum(abs(events[j]["onset_s"] - sources[i]["onset_s"]) <= 0.2
                                 for i, j in zip(srcs, evs, strict=True)))
    assert sum(x.detected for x in m) == best
