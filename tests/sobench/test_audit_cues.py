"""SO-Bench audit cues beyond class names: a question's start time read from the onsets new
then, superlatives that name one sound, labels held against the whole clip, and items whose
questions place their sounds apart."""

import numpy as np
import pytest
import soundfile as sf

from foakit.audit.estimates import DoaEstimate, estimate_clip
from foakit.bench.sobench.audit import audit_clip, class_vocabulary, clip_claims
from foakit.bench.sobench.audit_config import SobenchAuditConfig
from foakit.bench.sobench.audit_direction import (
    _Ctx,
    _names_an_earlier_sound,
    _onset_azimuth_verdict,
)
from foakit.bench.sobench.audit_support import _clip_support, _unsupported_azimuth

from ..scenes import plane_wave_scene
from .items import audit_item

START_Q = "Listen to the recording. What is the azimuth of the sound that starts around {t} s?"


@pytest.fixture(scope="module")
def late_start(tmp_path_factory):
    """A quiet sound at 60 deg from 0.3 s; a louder one at -90 deg from 2.0 s."""
    x = plane_wave_scene([(60, 0, 0.3, 3.8)], duration=4.0, seed=1) * 0.4 + \
        plane_wave_scene([(-90, 0, 2.0, 3.8)], duration=4.0, seed=2)
    p = tmp_path_factory.mktemp("late") / "a.wav"
    sf.write(p, x.T, 16000, subtype="PCM_16")
    return estimate_clip("a", p)


def _azimuth_verdict(clip, label, question):
    it = audit_item("q", "estimate_azimuth", question, "See the label.", "",
                    {"azimuth_deg": label})
    cc = clip_claims("a", [it], class_vocabulary([it]))
    verdicts, _ = audit_clip(cc, clip)
    return next(v for v in verdicts if v.key["qa_id"] == "q")


@pytest.mark.parametrize("label, want", [(-90.0, "consistent"), (-75.0, "consistent"),
                                         (60.0, "suspicious"), (150.0, "suspicious")])
def test_a_start_time_label_is_held_against_the_sound_starting_then(late_start, label, want):
    v = _azimuth_verdict(late_start, label, START_Q.format(t="2.0"))
    assert v.verdict == want, v.reason
    if want == "suspicious":
        assert abs(v.estimate + 90.0) < 20.0


def test_the_earlier_sound_is_the_answer_at_its_own_start(late_start):
    v = _azimuth_verdict(late_start, 60.0, START_Q.format(t="0.3"))
    assert v.verdict == "consistent", v.reason


def test_onset_azimuth_verdicts_by_gap():
    cfg = SobenchAuditConfig()
    got = {"azimuth_deg": -90.0, "onsets": 3, "start_s": 2.0, "before": [60.0, 61.0, 59.0]}
    key = {"qa_id": "q"}
    assert _onset_azimuth_verdict(key, -80.0, got, cfg, {}, "why").verdict == "consistent"
    bad = _onset_azimuth_verdict(key, 60.0, got, cfg, {}, "why")
    assert bad.verdict == "suspicious" and bad.confidence == cfg.onset_azimuth_conf
    assert "3 onsets new then come from -90 deg" in bad.reason
    # between the tolerance and the gap: no verdict; the gap off switch
    assert _onset_azimuth_verdict(key, -130.0, got, cfg, {}, "why") is None
    off = SobenchAuditConfig(onset_azimuth_conf=0.0)
    assert _onset_azimuth_verdict(key, 60.0, got, off, {}, "why") is None
    # a label on the sound that played before: only where its onsets came from
    assert _names_an_earlier_sound(60.0, got, cfg)
    assert not _names_an_earlier_sound(150.0, got, cfg)
    assert not _names_an_earlier_sound(-80.0, got, cfg)


def _ctx(events, onsets):
    doa = DoaEstimate("ambix", 0.4, np.zeros((1, 4, 4), np.float32), events,
                      onsets=None if onsets is None else np.asarray(onsets, float))
    return _Ctx(cc=None, clip=None, doa=doa, cfg=SobenchAuditConfig())


def _dc(events_or_ctx, onsets=None):
    """(doa, cfg) of a context, or of one made from events and onsets."""
    x = events_or_ctx if isinstance(events_or_ctx, _Ctx) else _ctx(events_or_ctx, onsets)
    return x.doa, x.cfg


def test_clip_support_counts_events_and_onsets_from_a_direction():
    ev = {"onset_s": 1.0, "offset_s": 3.0, "azimuth_deg": 40.0, "elevation_deg": 0.0,
          "motion": "stationary", "source": 0}
    ons = [[1.0, 42.0, 0.0, 1.0, 1.0, 0.0], [1.0, 38.0, 0.0, 1.0, 1.0, 1.0],
           [2.0, -100.0, 0.0, 1.0, 1.0, 0.0]]
    sup = _clip_support(*_dc([ev], ons), 40.0)
    assert sup == {"events": 1, "events_all": 1, "onsets": 2, "onsets_all": 3}
    sup = _clip_support(*_dc([ev], ons), 140.0)
    assert sup["events"] == 0 and sup["onsets"] == 0
    # the events' tolerance is the sector slack wider than the label tolerance
    assert _clip_support(*_dc([ev], ons), 40.0 + 30.0)["events"] == 1
    assert _clip_support(*_dc([ev], None), 40.0)["onsets_all"] == 0
    # nothing analysed, or a moving event: no support figures
    assert _clip_support(*_dc([], ons), 40.0) is None
    assert _clip_support(*_dc([dict(ev, motion="left_to_right")], ons), 40.0) is None


def test_superlatives_name_one_sound_per_clip():
    items = [
        audit_item("az", "estimate_azimuth", "What is the azimuth of the nearest source?",
                   "About 30 degrees.", "", {"azimuth_deg": 30.0}),
        audit_item("t", "detect_time", "When can you hear the closest sound?",
                   "From 1 to 3 s.", "", {"time_span": [1.0, 3.0]}),
        audit_item("far", "estimate_elevation", "At what elevation is the farthest sound?",
                   "About 10 degrees.", "", {"elevation_deg": 10.0}),
    ]
    cc = clip_claims("a", items, class_vocabulary(items))
    assert cc.subject["az"] == cc.subject["t"] == "the closest sound"
    assert cc.subject["far"] == "the farthest sound"
    assert any(t.cls == "the closest sound" and t.kind == "span" for t in cc.times)


def test_an_unnamed_sound_keeps_its_question_start_time():
    from foakit.bench.sobench.audit_claims import anonymous_sources

    # two named sounds start at 2.0 s: the start time names neither, but still says when
    items = [
        audit_item("d1", "detect_time", "When is the dog heard?", "The dog is heard from 2.0 "
                   "to 4.0 s.", "", {"time_span": [2.0, 4.0]}),
        audit_item("d2", "detect_time", "When is the bell heard?", "The bell is heard from "
                   "2.1 to 3.0 s.", "", {"time_span": [2.1, 3.0]}),
        audit_item("q", "estimate_azimuth", "What is the azimuth of the sound that starts "
                   "around 2.0 s?", "About 30 degrees.", "", {"azimuth_deg": 30.0}),
    ]
    cc = clip_claims("a", items, ["dog", "bell"])
    assert cc.subject["q"] is None and "fits two named sounds" in cc.unresolved["q"]
    anonymous_sources(cc)
    name = cc.subject["q"]
    assert cc.pseudo_start[name] == 2.0
    assert any(t.cls == name and t.kind == "onset" and t.a == 2.0 for t in cc.times)


def test_time_labels_of_items_placed_apart_do_not_contradict():
    from foakit.bench.sobench.audit_direction import _Ctx as Ctx
    from foakit.bench.sobench.audit_time import _two_places

    items = [
        audit_item("front", "detect_time", "When can you hear the sound in front of you?",
                   "", "", {"time_span": [1.0, 5.0]}),
        audit_item("left", "onset_from_location", "When does the sound 60 degrees to your "
                   "left begin?", "", "", {"onset_time": 3.0}),
        audit_item("near", "onset_from_location", "When does the sound 10 degrees to your "
                   "left begin?", "", "", {"onset_time": 3.0}),
    ]
    cc = clip_claims("a", items, [])
    x = Ctx(cc=cc, clip=None, doa=None, cfg=SobenchAuditConfig())
    assert _two_places(x, "front", "left")  # 60 deg > 22.5 + 7.5 + 5
    assert not _two_places(x, "front", "near")
    assert not _two_places(x, "front", "missing")


def test_a_named_sounds_question_start_is_a_claim():
    items = [
        audit_item("st", "spatial_temporal", "For the sound that starts around 2.5 s, give its "
                   "class, its direction and its time span.", "An alarm behind you, from 5.4 "
                   "to 6.4 seconds.", "", {"time_span": [5.4, 6.4]}),
        audit_item("loc", "identify_source_by_location", "What sound comes from behind you?",
                   "The alarm.", "alarm"),
    ]
    cc = clip_claims("a", items, class_vocabulary(items))
    assert cc.subject["st"] == "alarm"
    asked = [t for t in cc.times if t.qa_id == "st" and t.source != "label"]
    assert [(t.kind, t.a) for t in asked] == [("onset", 2.5)]


def test_an_elevation_no_onset_comes_from():
    from foakit.audit.estimates import ClipEstimate
    from foakit.bench.sobench.audit_direction import _elevation_nowhere

    def ctx(rows, **cfg):
        doa = DoaEstimate("ambix", 0.4, np.zeros((1, 4, 4), np.float32), [],
                          onsets=np.array([[t, az, el, 1.0, 1.0, 0.0] for t, az, el in rows]))
        clip = ClipEstimate("a", "a.wav", sample_rate=16000, duration_s=10.0, doa=doa)
        return _Ctx(cc=None, clip=clip, doa=doa, cfg=SobenchAuditConfig(**cfg))

    below = [(1.0, 40.0, -25.0), (1.0, 42.0, -27.0), (3.0, -100.0, -20.0), (3.0, -98.0, -22.0)]
    v = _elevation_nowhere(ctx(below), {"qa_id": "q"}, 25.0, {})
    assert v is not None and v.verdict == "suspicious" and v.estimate == -25.0
    # one onset at the label's elevation, too few at the mirrored one, a level label, off
    assert _elevation_nowhere(ctx(below + [(5.0, 0.0, 24.0)]), {"qa_id": "q"}, 25.0, {}) is None
    assert _elevation_nowhere(ctx(below[:3]), {"qa_id": "q"}, 25.0, {}) is None
    assert _elevation_nowhere(ctx(below), {"qa_id": "q"}, 3.0, {}) is None
    assert _elevation_nowhere(ctx(below, nowhere_conf=0.0), {"qa_id": "q"}, 25.0, {}) is None


FIRST_Q = "Audio task. Give the direction of the first sound to start in degrees. Be brief."


@pytest.mark.parametrize("label, want", [(60.0, "consistent"), (-90.0, "suspicious")])
def test_an_order_word_label_on_the_sound_starting_later_is_suspicious(late_start, label,
                                                                       want):
    # the map shows energy at -90 deg, but that sound starts 1.7 s after the first one
    v = _azimuth_verdict(late_start, label, FIRST_Q)
    assert v.verdict == want, v.reason
    if want == "suspicious":
        assert abs(v.estimate - 60.0) < 20.0
        assert "nearer the analysed sound from" in v.reason and "not 0.3 s" in v.reason
        assert v.evidence["other_sound"]["onset_s"] == pytest.approx(2.0, abs=0.2)


def test_no_rank_where_the_clip_has_more_sounds_than_the_analysis_hears(late_start):
    items = [
        audit_item("q", "estimate_azimuth", FIRST_Q, "See the label.", "",
                   {"azimuth_deg": -90.0}),
        audit_item("n", "count_sources", "How many sources are active?", "Three.", "3",
                   {"active_count": 3}),
    ]
    cc = clip_claims("a", items, class_vocabulary(items))
    verdicts, _ = audit_clip(cc, late_start)
    v = next(v for v in verdicts if v.key["qa_id"] == "q")
    # a third, missed sound could start first: the ranking says nothing
    assert not any(d.by_rank for d in cc.dirs)
    assert v.verdict != "suspicious", v.reason


@pytest.fixture(scope="module")
def one_source(tmp_path_factory):
    """One sound at 60 deg from 1.0 to 3.5 s of a 6 s clip."""
    x = plane_wave_scene([(60, 0, 1.0, 3.5)], duration=6.0, seed=3, snr_db=30)
    p = tmp_path_factory.mktemp("one") / "a.wav"
    sf.write(p, x.T, 16000, subtype="PCM_16")
    return estimate_clip("a", p)


def _shifted_pair(place: bool):
    """A span and an onset of the dog, both 1.5 s late (shifted alike); with ``place``, a
    question puts the dog at 60 deg."""
    items = [
        audit_item("s", "detect_time", "When is the dog heard?", "From 2.5 s to 5.0 s.",
                   "2.5s to 5.0s", {"time_span": [2.5, 5.0]}),
        audit_item("o", "onset_from_location", "When does the dog start?", "At 2.5 s.",
                   "2.5s", {"onset_time": 2.5}),
        audit_item("n", "count_sources", "How many sources are active?", "One.", "1",
                   {"active_count": 1}),
        audit_item("w", "detect_source", "What sound can be heard?", "A dog.", "dog"),
    ]
    if place:
        items.append(audit_item("i", "identify_source_by_doa", "What is the sound at an "
                                "azimuth of about 60 degrees?", "A dog.", "dog"))
    return items


@pytest.mark.parametrize("place", [True, False])
def test_labels_shifted_alike_lose_each_others_support(one_source, place):
    items = _shifted_pair(place)
    cc = clip_claims("a", items, class_vocabulary(items))
    verdicts, _ = audit_clip(cc, one_source)
    v = {x.key["qa_id"]: x for x in verdicts}
    # the signal overrules the agreeing span; the onset then stands alone and is caught too
    assert v["s"].verdict == "suspicious", v["s"].reason
    assert v["o"].verdict == "suspicious", v["o"].reason
    assert v["o"].evidence["dropped_support"] == ["s"]
    assert v["o"].estimate == pytest.approx(1.0, abs=0.5)
    # without a question placing it, the one analysed source is the dog
    assert any(d.source.startswith("the analysed events (the only source") for d in cc.dirs) \
        is not place


def test_the_only_source_needs_one_named_class_and_no_larger_count(one_source):
    items = _shifted_pair(False)
    items[2] = audit_item("n", "count_sources", "How many sources are active?", "Two.", "2",
                          {"active_count": 2})
    cc = clip_claims("a", items, class_vocabulary(items))
    audit_clip(cc, one_source)
    assert not any(d.source.startswith("the analysed") for d in cc.dirs)
    items = _shifted_pair(False) + [
        audit_item("g", "detect_source", "What else can be heard?", "A gong.", "gong")]
    cc = clip_claims("a", items, class_vocabulary(items))
    audit_clip(cc, one_source)
    assert not any(d.source.startswith("the analysed") for d in cc.dirs)


def test_a_smeared_presence_does_not_overrule_an_event_starting_at_the_label(one_source,
                                                                             monkeypatch):
    import foakit.bench.sobench.audit_time as audit_time

    items = [audit_item("o", "onset_from_location", "When does the dog start?", "At 1.0 s.",
                        "1.0s", {"onset_time": 1.0}),
             audit_item("i", "identify_source_by_doa", "What is the sound at an azimuth of "
                        "about 60 degrees?", "A dog.", "dog")]
    # the presence at the dog's direction fits a start 1.5 s later (as reverberation or a
    # sound nearby makes it); the analysed event from 60 deg starts at the label
    fit = {"status": "shifted", "known": True, "fits": [],
           "fit": {"direction": 60.0, "from": "i", "at_label": 0.1, "best_shift_s": 1.5,
                   "best": 0.9, "gain": 0.8}}
    monkeypatch.setattr(audit_time, "_time_fit", lambda *a, **k: fit)
    cc = clip_claims("a", items, class_vocabulary(items))
    v = next(x for x in audit_clip(cc, one_source)[0] if x.key["qa_id"] == "o")
    assert v.verdict == "unverifiable" and "starts at the label" in v.reason
    items[0] = audit_item("o", "onset_from_location", "When does the dog start?", "At 2.5 s.",
                          "2.5s", {"onset_time": 2.5})
    cc = clip_claims("a", items, class_vocabulary(items))
    v = next(x for x in audit_clip(cc, one_source)[0] if x.key["qa_id"] == "o")
    assert v.verdict == "suspicious"


def test_a_direction_read_in_a_suspicious_labels_window_is_set_aside():
    from foakit.audit.verdicts import LabelVerdict
    from foakit.bench.sobench.audit import _without_suspicious_windows

    def run(time_verdict="suspicious", fld="azimuth", context=()):
        x = _Ctx(cc=None, clip=None, doa=None, cfg=SobenchAuditConfig())
        x.verdict["t"] = LabelVerdict({"qa_id": "t"}, "time_span", time_verdict, [4.0, 5.0],
                                      [1.0, 2.0], 0.8, "shifted")
        x.verdict["a"] = LabelVerdict({"qa_id": "a"}, fld, "suspicious", 60.0, -90.0, 0.7,
                                      "the signal shows little energy from the label",
                                      {"signal": {"window_from": "t"},
                                       "context": list(context)})
        _without_suspicious_windows(x)
        return x.verdict["a"]

    v = run()
    assert v.verdict == "unverifiable" and "time window of t" in v.reason
    assert v.evidence["set_aside"].startswith("the signal shows little energy")
    assert run(time_verdict="consistent").verdict == "suspicious"
    # an elevation sign flip shows wherever the source sounds; a context conflict stands
    assert run(fld="elevation").verdict == "suspicious"
    assert run(context=[{"qa_id": "q", "agrees": False}]).verdict == "suspicious"


def test_an_unsupported_azimuth_is_suspicious_even_where_the_map_is_diffuse():
    from foakit.bench.questions import parse_question

    ev = {"onset_s": 1.0, "offset_s": 3.0, "azimuth_deg": 40.0, "elevation_deg": 0.0,
          "motion": "stationary", "source": 0}
    ons = [[1.0 + 0.1 * i, 40.0 + i, 0.0, 1.0, 1.0, 0.0] for i in range(5)]
    x = _ctx([ev], ons)
    cues = parse_question("What is the azimuth of the nearest sound?")
    # nothing analysed comes from -120 deg: the diffuse map does not save the label
    v = _unsupported_azimuth(*_dc(x), {"qa_id": "q"}, -120.0, None, cues, {})
    assert v.verdict == "suspicious" and v.estimate == 40.0 and "diffuse" in v.reason
    assert v.confidence == x.cfg.unsupported_conf
    # a label the event supports, a label near it, the farthest sound, too few onsets: none
    assert _unsupported_azimuth(*_dc(x), {"qa_id": "q"}, 45.0, None, cues, {}) is None
    assert _unsupported_azimuth(*_dc(x), {"qa_id": "q"}, -120.0, (-100.0, 0.4), cues, {}) is None
    far = parse_question("What is the azimuth of the farthest sound?")
    assert _unsupported_azimuth(*_dc(x), {"qa_id": "q"}, -120.0, None, far, {}) is None
    assert _unsupported_azimuth(*_dc(_ctx([ev], ons[:3])), {"qa_id": "q"}, -120.0, None, cues,
                                {}) is None


@pytest.fixture(scope="module")
def high_and_low(tmp_path_factory):
    """A sound at 150 deg, 30 deg up, over 0.3-3.8 s; another at -60 deg, 30 deg down, over
    1.0-3.8 s."""
    x = plane_wave_scene([(150, 30, 0.3, 3.8), (-60, -30, 1.0, 3.8)], duration=4.0, seed=3)
    p = tmp_path_factory.mktemp("hl") / "a.wav"
    sf.write(p, x.T, 16000, subtype="PCM_16")
    return estimate_clip("a", p)


@pytest.mark.parametrize("label, want", [(-30.0, "consistent"), (30.0, "suspicious")])
def test_an_elevation_is_read_where_its_own_question_places_the_sound(high_and_low, label,
                                                                        want):
    it = audit_item("q", "estimate_elevation", "How high or low is the sound at an azimuth of "
                    "about -60 degrees, in degrees?", "See the label.", "",
                    {"elevation_deg": label})
    cc = clip_claims("a", [it], class_vocabulary([it]))
    v = next(v for v in audit_clip(cc, high_and_low)[0] if v.key["qa_id"] == "q")
    assert v.verdict == want, v.reason
    # the question's azimuth, not the whole clip, is where the map was read
    assert v.evidence["signal"].get("azimuth_from") == "q"
