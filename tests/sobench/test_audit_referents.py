"""SO-Bench audit: items that name a sound by direction only, and relations that rest on
what the audit cannot confirm (hand-made items, no audio)."""

from foakit.bench.sobench.audit import audit_clip, class_vocabulary, clip_claims

from .items import audit_item as item


def claims(items):
    return clip_claims("a", items, class_vocabulary(items))


def test_a_direction_only_item_is_about_the_class_placed_there():
    items = [
        item("l", "identify_source_by_location", "What sound is coming from the front-left?",
             "The dog.", "dog"),
        item("r", "identify_source_by_location", "Which sound do you hear from your right?",
             "The gong.", "gong"),
        item("e", "estimate_elevation", "What is the elevation of the sound at 10 o'clock?",
             "It is about 20 degrees up.", "20 degrees", {"elevation_deg": 20.0}),
        item("t", "detect_time", "When can the source 85 degrees to your right be heard?",
             "From 1 s to 3 s.", "1.0s to 3.0s", {"time_span": [1.0, 3.0]}),
    ]
    cc = claims(items)
    assert cc.subject["e"] == "dog" and cc.subject["t"] == "gong"
    assert cc.by_cue == {"e", "t"} and not cc.pseudo
    assert [(t.cls, t.kind) for t in cc.times] == [("gong", "span")]
    assert any(d.cls == "dog" and d.el == 20.0 and d.source == "label" for d in cc.dirs)


def test_direction_only_items_share_a_source_of_their_own():
    items = [
        item("o", "onset_from_location", "A sound comes from the back-right (about -144 degrees "
             "azimuth). When does it start?", "It starts at 3.2 s.", "3.2s", {"onset_time": 3.2}),
        item("e", "estimate_elevation", "How high is the sound from the back-right?",
             "About -10 degrees.", "-10 degrees", {"elevation_deg": -10.0}),
        item("a", "estimate_azimuth", "What is the azimuth of the sound on your left?",
             "About 80 degrees.", "80 degrees", {"azimuth_deg": 80.0}),
    ]
    cc = claims(items)
    assert cc.subject["o"] == cc.subject["e"] != cc.subject["a"]
    assert set(cc.pseudo) == {cc.subject["o"], cc.subject["a"]}
    assert not cc.classes  # a direction is not a sound class: counts do not see it
    # the azimuth label is checked against the direction its own question gives
    v, _ = audit_clip(cc, None)
    assert v[2].field == "azimuth"


def test_two_named_sounds_in_the_direction_leave_the_item_unassigned():
    items = [
        item("l", "identify_source_by_doa", "Which sound comes from about 40 degrees azimuth?",
             "The dog.", "dog"),
        item("m", "identify_source_by_doa", "Which sound comes from about 55 degrees azimuth?",
             "The bird.", "bird"),
        item("e", "estimate_elevation", "What is the elevation of the sound at the front-left?",
             "About 5 degrees.", "5 degrees", {"elevation_deg": 5.0}),
    ]
    cc = claims(items)
    assert cc.subject["e"] is None


def _by_id(items):
    v, _ = audit_clip(claims(items), None)
    return {x.key["qa_id"]: x for x in v}


def _relation(az_dog, az_gong, answer):
    return [
        item("d", "identify_source_by_doa", f"Which sound comes from about {az_dog} degrees "
             "azimuth?", "The dog.", "dog"),
        item("g", "identify_source_by_doa", f"Which sound comes from about {az_gong} degrees "
             "azimuth?", "The gong.", "gong"),
        item("r", "relative_left_right", "Is the sound of the dog to the left or to the right "
             "of the sound of the gong?", f"The dog is to the {answer} of the gong.", answer),
    ]


def test_left_of_is_not_judged_where_its_two_readings_disagree():
    v = _by_id(_relation(150, 100, "left"))
    # more lateral: the gong (100) is left of the dog (150); counter-clockwise: the dog
    assert v["r"].verdict == "unverifiable" and "disagree" in v["r"].reason
    v = _by_id(_relation(100, -66, "right"))
    assert v["r"].verdict == "unverifiable"  # 166 deg apart
    v = _by_id(_relation(60, -30, "right"))
    assert v["r"].verdict == "suspicious" and v["r"].estimate == "left"
    v = _by_id(_relation(60, -30, "left"))
    assert v["r"].verdict == "consistent"


def test_a_relation_never_flags_against_a_label_the_audit_did_not_confirm():
    items = [
        item("a1", "estimate_azimuth", "What is the azimuth of the sound of the dog?",
             "The dog is at 60 degrees.", "60 degrees", {"azimuth_deg": 60.0}),
        item("a2", "estimate_azimuth", "What is the azimuth of the sound of the gong?",
             "The gong is at -30 degrees.", "-30 degrees", {"azimuth_deg": -30.0}),
        item("r", "relative_left_right", "Is the sound of the dog to the left or to the right "
             "of the sound of the gong?", "The dog is to the right of the gong.", "right"),
    ]
    v, _ = audit_clip(claims(items), None)  # no audio: the labels stay unverifiable
    assert v[0].verdict == v[1].verdict == "unverifiable"
    assert v[2].verdict == "unverifiable" and "does not confirm" in v[2].reason
    items[2] = item("r", "relative_left_right", items[2].question,
                    "The dog is to the left of the gong.", "left")
    v, _ = audit_clip(claims(items), None)
    assert v[2].verdict == "consistent"


def test_the_only_sound_a_start_time_and_an_order_word_name_a_class():
    items = [
        item("s", "detect_source", "What sound can be heard?", "A dog.", "dog"),
        item("e", "estimate_elevation", "How high is the only source, in degrees?",
             "About 10 degrees.", "10 degrees", {"elevation_deg": 10.0}),
    ]
    cc = claims(items)
    assert cc.subject["e"] == "dog"
    items = [
        item("t1", "detect_time", "When is the dog heard?", "The dog is heard from 1 s to 3 s.",
             "1.0s to 3.0s", {"time_span": [1.0, 3.0]}),
        item("t2", "detect_time", "When is the gong heard?", "The gong is heard from 4 s to 6 s.",
             "4.0s to 6.0s", {"time_span": [4.0, 6.0]}),
        item("a", "estimate_azimuth", "What is the azimuth of the sound that starts around "
             "4.1 s?", "Azimuth: 30 degrees.", "30 degrees", {"azimuth_deg": 30.0}),
        item("c", "estimate_elevation", "At what elevation is the sound that begins at 8.0 s?",
             "5 deg", "5 degrees", {"elevation_deg": 5.0}),
    ]
    cc = claims(items)
    assert cc.subject["a"] == "gong"
    # no named sound starts at 8 s: a source of its own, known by that start
    assert cc.subject["c"] == "sound starting at 8.0 s" and cc.pseudo[cc.subject["c"]] is None
    assert any(t.cls == cc.subject["c"] and t.kind == "onset" and t.a == 8.0 for t in cc.times)
    assert cc.by_cue == {"a", "c"}


def test_order_words_and_ambiguous_cues_leave_the_item_unassigned_and_say_why():
    items = [
        item("t1", "onset_from_location", "When does the dog start?", "The dog starts at 1.0 s.",
             "1.0s", {"onset_time": 1.0}),
        item("t2", "onset_from_location", "When does the gong start?",
             "The gong starts at 1.2 s.", "1.2s", {"onset_time": 1.2}),
        item("b", "estimate_azimuth", "What is the azimuth of the first sound?", "About 5.",
             "5 degrees", {"azimuth_deg": 5.0}),
        item("c", "estimate_elevation", "How high is the sound that starts at 1.1 s?", "10 deg",
             "10 degrees", {"elevation_deg": 10.0}),
    ]
    cc = claims(items)
    # the starts come from labels, which may be wrong: order words are not followed
    assert cc.subject["b"] is None and "b" not in cc.unresolved
    assert cc.subject["c"] is None and "dog, gong" in cc.unresolved["c"]
    v, _ = audit_clip(cc, None)
    assert "fits two named sounds" in next(x for x in v if x.key["qa_id"] == "c").reason


def test_an_answer_subject_names_a_class_its_question_names_too():
    items = [
        item("t", "detect_time", "When is the chirping bird heard?",
             "The chirping bird is heard from 8.0s to 12.3s.", "8.0s to 12.3s",
             {"time_span": [8.0, 12.3]}),
        item("o", "onset_from_location", "When does the sound behind you start?",
             "The sound behind you starts at 10.3 s.", "10.3s", {"onset_time": 10.3}),
        item("d", "estimate_distance", "How far away is the dog?",
             "The distance is 2 m.", "2 m", {"distance_m": 2.0}),
        item("p", "detect_time", "When do you hear the dog's barking?",
             "The dog's barking starts at 1 s and ends at 2 s.", "1.0s to 2.0s",
             {"time_span": [1.0, 2.0]}),
        item("n", "detect_time", "When is the gong heard?", "The piano is heard from 1 s.",
             "1.0s to 2.0s", {"time_span": [1.0, 2.0]}),
    ]
    # "you", "distance" and "sound" are no classes; "piano" is not in its question
    assert set(class_vocabulary(items)) == {"bird", "dog"}


def test_a_label_against_what_its_own_question_says_is_suspicious():
    items = [item("t", "detect_time", "When is the sound that starts around 3.4 s heard?",
                  "From 5.0 s to 7.0 s.", "5.0s to 7.0s", {"time_span": [5.0, 7.0]})]
    v = _by_id(items)["t"]
    assert v.verdict == "suspicious" and v.estimate == [3.4, 5.4]
    assert "own question says its sound starts around 3.4 s, 1.6 s from the label" in v.reason
    items = [item("t", "detect_time", "When is the sound that starts around 3.4 s heard?",
                  "From 3.5 s to 7.0 s.", "3.5s to 7.0s", {"time_span": [3.5, 7.0]})]
    assert _by_id(items)["t"].verdict == "consistent"


def test_no_signal_reading_overrules_what_an_item_s_own_question_says():
    import numpy as np

    from foakit.audit.doamap import DoaMap
    from foakit.audit.estimates import ClipEstimate, DoaEstimate
    from foakit.bench.sobench.audit_config import SobenchAuditConfig

    items = [
        item("l", "identify_source_by_doa", "Which sound comes from about 40 degrees azimuth?",
             "The dog.", "dog"),
        item("t", "spatial_temporal", "For the dog that starts around 3.4 s, give its "
             "direction and its time span.", "The dog, to the front-left, from 5.0 to 7.0 s.",
             "", {"time_span": [5.0, 7.0]}),
    ]
    # an analysed event from the dog's direction starts at the label: the arbitration
    # between the question and the label would side with the label
    dog = {"onset_s": 5.0, "offset_s": 7.0, "azimuth_deg": 40.0, "elevation_deg": 0.0,
           "motion": "stationary", "source": 0}
    dmap = DoaMap(0.1, 10.0, 10.0, np.zeros((100, 36, 18), np.float32),
                  np.zeros(100, np.float32))
    doa = DoaEstimate("ambix", 0.4, np.zeros((25, 4, 4), np.float32), [dog], dmap)
    clip = ClipEstimate("a", "a.wav", sample_rate=16000, duration_s=10.0, doa=doa)

    def verdict(**cfg):
        v, _ = audit_clip(claims(items), clip, SobenchAuditConfig(**cfg))
        return next(x for x in v if x.key["qa_id"] == "t")

    v = verdict()
    assert v.verdict == "suspicious" and v.estimate == [3.4, 5.4] and v.confidence == 0.8
    assert verdict(own_start_conf=0.0).verdict == "consistent"  # the check turned off
    assert verdict(own_start_tol_s=2.0).verdict == "consistent"  # 1.6 s is within 2 s


def test_a_span_moved_as_a_whole_is_found_by_the_one_event_as_long_as_it():
    import numpy as np

    from foakit.audit.doamap import DoaMap
    from foakit.audit.estimates import ClipEstimate, DoaEstimate
    from foakit.bench.sobench.audit_config import SobenchAuditConfig

    items = [item("t", "detect_time", "When can you hear the knock on a door?",
                  "From 3.8 to 7.9 s.", "3.8s to 7.9s", {"time_span": [3.8, 7.9]})]

    def ev(a, b, az):
        return {"onset_s": a, "offset_s": b, "azimuth_deg": az, "elevation_deg": 0.0,
                "motion": "stationary", "source": az}

    def verdict(events, **cfg):
        # an empty energy map: the knock's direction is unknown and nothing sounds in it
        dmap = DoaMap(0.1, 10.0, 10.0, np.zeros((100, 36, 18), np.float32),
                      np.zeros(100, np.float32))
        doa = DoaEstimate("ambix", 0.4, np.zeros((25, 4, 4), np.float32), events, dmap)
        clip = ClipEstimate("a", "a.wav", sample_rate=16000, duration_s=10.0, doa=doa)
        (v,), _ = audit_clip(claims(items), clip, SobenchAuditConfig(**cfg))
        return v

    moved, short = ev(1.9, 6.0, 40.0), ev(0.5, 1.2, -90.0)
    v = verdict([moved, short])
    assert v.verdict == "suspicious" and v.estimate == [1.9, 6.0] and "-1.9 s" in v.reason
    # an event starts at the label, two events fit, the check is off: no verdict
    assert verdict([moved, short, ev(3.7, 5.0, 120.0)]).verdict == "unverifiable"
    assert verdict([moved, ev(5.7, 9.8, -90.0)]).verdict == "unverifiable"
    assert verdict([moved, short], span_move_conf=0.0).verdict == "unverifiable"


def _refs_items(refs):
    def r(k):
        return None if refs is None else [refs[k]]
    return [
        item("d", "identify_source_by_doa", "Which sound comes from about 40 degrees azimuth?",
             "The dog.", "dog", refs=r(0)),
        item("b", "identify_source_by_location", "What sound is coming from behind you?",
             "The bird.", "bird", refs=r(1)),
        item("s", "detect_source", "Name the sound you hear between 4 s and 6 s.", "Birdsong.",
             "birdsong", refs=r(1)),
        item("a", "estimate_azimuth", "What is the azimuth of the first event?",
             "About -140 degrees.", "-140 degrees", {"azimuth_deg": -140.0}, refs=r(0)),
        item("t", "detect_time", "When is the birdsong heard?", "From 4 s to 6 s.",
             "4.0s to 6.0s", {"time_span": [4.0, 6.0]}, refs=r(1)),
    ]


def test_items_of_one_source_in_source_refs_share_its_class():
    for refs in ((0, 1), ("src-a", "src-b")):
        cc = claims(_refs_items(refs))
        # "the first event" is the dog its source's other item names; the bird and the
        # birdsong are one sound, under the name most of its items use
        assert cc.subject["a"] == "dog" and "a" in cc.by_cue
        assert cc.subject["b"] == cc.subject["s"] == cc.subject["t"] == "birdsong"
        assert cc.classes == {"dog", "birdsong"}
        v = _by_id(_refs_items(refs))
        # its label is then held against the direction the dog's question gives
        assert v["a"].verdict == "suspicious" and v["a"].estimate == 40.0
    cc = claims(_refs_items(None))
    assert cc.subject["a"] is None and cc.subject["b"] == "bird"
    assert cc.classes == {"dog", "bird", "birdsong"}
    assert _by_id(_refs_items(None))["a"].verdict == "unverifiable"


def test_a_class_named_for_two_sources_is_not_followed_through_source_refs():
    items = [
        item("d1", "identify_source_by_doa", "Which sound comes from about 40 degrees azimuth?",
             "A dog.", "dog", refs=[0]),
        item("d2", "identify_source_by_doa", "Which sound comes from about -90 degrees "
             "azimuth?", "A dog.", "dog", refs=[1]),
        item("a", "estimate_azimuth", "What is the azimuth of the first event?",
             "About -140 degrees.", "-140 degrees", {"azimuth_deg": -140.0}, refs=[0]),
        item("r", "relative_left_right", "Is the first event left or right of the last one?",
             "Left.", "left", refs=[0, 1]),
    ]
    cc = claims(items)
    assert cc.subject["a"] is None and cc.subject["d1"] == cc.subject["d2"] == "dog"
    # several refs (a relation) link nothing
    items[2] = item("a", "estimate_azimuth", "What is the azimuth of the first event?",
                    "About -140 degrees.", "-140 degrees", {"azimuth_deg": -140.0}, refs=[0, 1])
    assert claims(items[:1] + items[2:3]).subject["a"] is None
