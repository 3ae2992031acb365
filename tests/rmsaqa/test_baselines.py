"""RMS-AQA baselines (oracle, chance, prior, dsp decisions), option claims, synthetic corpora."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.reader import count_kind
from foakit.bench.rmsaqa import (
    CATEGORIES,
    DspConfig,
    chance_answers,
    dsp_answer,
    load_qa,
    max_overlap,
    oracle_answers,
    overlap_count,
    prior_answers,
    prior_letters,
    read_claim,
    run_baseline,
    score_answers,
    source_count,
    write_rmsaqa_corpus,
)
from foakit.errors import ParameterError


@pytest.fixture(scope="module")
def qa_only(tmp_path_factory):
    """A QA-only corpus (no audio) big enough for the chance bar: >= 2,000 items (about
    10 s to draw the scenes, so its tests are marked slow)."""
    root = tmp_path_factory.mktemp("qa_only")
    return load_qa(write_rmsaqa_corpus(root, n_clips=1400, seed=3, render=False))


@pytest.mark.slow
def test_oracle_scores_everything(qa_only):
    r = score_answers(qa_only, oracle_answers(qa_only))
    assert r["overall"]["A_GS2"] == 1.0 and r["overall"]["A_S1"] == 1.0
    assert all(b["A_GS2"] == 1.0 for b in r["by_category"].values() if b["n"])


@pytest.mark.slow
def test_chance_is_near_its_expectation_on_2000_items(qa_only):
    assert len(qa_only) >= 2000
    o = score_answers(qa_only, chance_answers(qa_only, seed=1))["overall"]
    assert abs(o["A_S1"] - 0.25) < 0.02 and abs(o["A_S2"] - 0.25) < 0.02
    assert abs(o["A_GS2"] - 0.0625) < 0.02
    a = chance_answers(qa_only, seed=1)
    assert a == chance_answers(qa_only, seed=1) and a != chance_answers(qa_only, seed=2)


@pytest.mark.slow
def test_synthetic_answers_are_shuffled_and_categories_balanced(qa_only):
    letters = Counter(it.stage2.answer for it in qa_only)
    assert set(letters) == set("ABCD")
    assert max(letters.values()) / len(qa_only) < 0.3
    cats = Counter(it.category for it in qa_only)
    assert set(cats) == set(CATEGORIES.values())
    assert max(cats.values()) / min(cats.values()) < 1.3
    per_record = Counter(it.segment_id for it in qa_only)
    assert set(per_record.values()) == {1, 2}
    assert len({it.stage2.question for it in qa_only if it.category_id == 2}) >= 8


def test_prior_takes_the_majority_letter_per_stage_and_category(tmp_path):
    opts = {"A": "a", "B": "b", "C": "c", "D": "d"}
    recs = []
    for i, (a1, a2, cid) in enumerate([("A", "C", 1), ("B", "C", 1), ("B", "D", 1),
                                       ("D", "A", 2)]):
        recs.append({"segment_id": f"s{i}", "audio_path": "x.wav", "qa_pairs": [
            {"stage": 1, "question": "q", "options": opts, "answer": a1},
            {"stage": 2, "question": "q", "options": opts, "answer": a2, "category_id": cid}]})
    (tmp_path / "v.json").write_text(json.dumps(recs))
    qa = load_qa(tmp_path / "v.json")
    pri = prior_letters(qa)
    assert pri[(1, "Sound Counting")] == "B" and pri[(2, "Sound Counting")] == "C"
    assert pri[(2, "Source Localization")] == "A"
    rows = prior_answers(qa)
    assert [(r["stage1"], r["stage2"]) for r in rows[:3]] == [("B", "C")] * 3
    r = score_answers(qa, rows)["overall"]
    assert (r["correct_S1"], r["correct_S2"]) == (3, 3)


def _event(on, off, az, src, conf=0.1):
    return {"onset_s": on, "offset_s": off, "azimuth_deg": az, "source": src,
            "confidence": conf}


REC = {"status": "ok", "events": [_event(1.0, 4.0, 90.0, 0), _event(5.0, 8.5, -45.0, 1),
                                  _event(6.0, 6.4, -50.0, 1)]}


@pytest.mark.parametrize("question, options, letter, rule", [
    ("How many sources?", {"A": "1", "B": "Two sources", "C": "3 distinct sounds",
                           "D": "four"}, "B", "count"),
    ("Where is the dog?", {"A": "To the front right", "B": "Behind the listener",
                           "C": "At about 12 o'clock", "D": "About 150 degrees to the right"},
     "A", "direction"),
    ("Where is the dog?", {"A": "Straight ahead", "B": "At about 9 o'clock",
                           "C": "Behind", "D": "At about 3 o'clock"}, "B", "direction"),
    ("When is the dog audible?", {"A": "From 0.5 s to 1.5 s", "B": "Between 1.1 and 3.9 "
                                  "seconds", "C": "6.0-9.5 s", "D": "8.0-9.9 s"}, "B", "span"),
    ("When does the dog start?", {"A": "At about 2.5 s", "B": "Around 5.1 seconds in",
                                  "C": "Starting near 7.5 s", "D": "At about 9.0 s"},
     "B", "onset"),
])
def test_dsp_reads_each_claim_kind(question, options, letter, rule):
    got, info = dsp_answer(question, options, REC, stage=2)
    assert (got, info["rule"], info["abstained"]) == (letter, rule, False)


def test_dsp_abstains_with_no_letter_where_the_signal_cannot_decide():
    opts = {"A": "Check the dog", "B": "Pick up the phone", "C": "Turn off the tap",
            "D": "Thank the audience"}
    got, info = dsp_answer("What should the robot do?", opts, REC, stage=2)
    assert (got, info["abstained"], info["rule"]) == (None, True, "none")
    got, info = dsp_answer("How many?", {"A": "1", "B": "2", "C": "3", "D": "4"}, None,
                           stage=2)
    assert (got, info["abstained"]) == (None, True) and "no analysis" in info["why"]


def test_dsp_stage1_uses_the_count_and_breaks_ties_by_option_order():
    opts = {"A": "A dog barking", "B": "A dog barking and speech",
            "C": "Speech and a piano", "D": "Speech, a piano and a doorbell"}
    got, info = dsp_answer("Which sounds?", opts, REC, stage=1)
    assert (got, info["rule"], sorted(info["tied"])) == ("B", "sound_count", ["B", "C"])
    assert info["tie_break"] == "first letter"
    same = {"A": "A dog", "B": "Speech", "C": "A piano", "D": "A doorbell"}
    got, info = dsp_answer("Which sounds?", same, REC, stage=1)
    assert got is None and info["abstained"]


# three sources: 0 (1-4 s), 1 (3-6 s, in two events that overlap each other), 2 (4-9 s,
# starting where source 0 ends); at most two play at once
BUSY = {"status": "ok", "events": [_event(1.0, 4.0, 90.0, 0), _event(3.0, 5.5, -45.0, 1),
                                   _event(5.0, 6.0, -45.0, 1), _event(4.0, 9.0, 180.0, 2)]}
COUNTS = {"A": "1", "B": "Two sources", "C": "3 distinct sounds", "D": "four"}


@pytest.mark.parametrize("spans, n", [
    ([], 0),
    ([[(0.0, 1.0)]], 1),
    ([[(0.0, 1.0)], [(1.0, 2.0)]], 1),                  # touching ends do not overlap
    ([[(0.0, 1.0)], [(0.999, 2.0)]], 2),
    ([[(0.0, 5.0), (1.0, 2.0)], [(3.0, 4.0)]], 2),      # a source's own events count once
    ([[(0.0, 2.0)], [(1.0, 3.0)], [(2.0, 4.0)]], 2),    # 0 and 2 only touch
    ([[(0.0, 9.0)], [(1.0, 3.0)], [(2.0, 4.0)], [(2.5, 2.6)]], 4),
    ([[(3.0, 3.0)], [(2.0, 1.0)], [(0.0, 1.0)]], 1),    # empty and reversed spans do not count
])
def test_max_overlap_known_answers(spans, n):
    assert max_overlap(spans) == n


def test_dsp_reads_an_overlap_question_as_the_most_sources_at_once():
    assert (source_count(BUSY), overlap_count(BUSY)) == (3, 2)
    got, info = dsp_answer("From the audio alone, what is the maximum number of "
                           "overlapping sounds?", COUNTS, BUSY, stage=2)
    assert (got, info["rule"], info["count_kind"]) == ("B", "count", "overlap")
    assert (info["n_sources"], info["n_overlap"]) == (3, 2)
    got, info = dsp_answer("How many distinct sound sources are present in the clip?",
                           COUNTS, BUSY, stage=2)
    assert (got, info["rule"], info["count_kind"]) == ("C", "count", "distinct")
    assert "n_overlap" not in info


def test_overlap_counts_only_the_sources_the_distinct_count_keeps():
    # source 1 lasts 3.5 s in total, source 0 3 s, source 2 5 s: above 3.2 s, 1 and 2 stay
    cfg = DspConfig(min_source_s=3.2)
    assert (source_count(BUSY, cfg), overlap_count(BUSY, cfg)) == (2, 2)
    cfg = DspConfig(min_source_s=4.0)
    assert (source_count(BUSY, cfg), overlap_count(BUSY, cfg)) == (1, 1)
    got, info = dsp_answer("At most how many sounds play at the same time?", COUNTS, BUSY,
                           stage=2, cfg=cfg)
    assert (got, info["n_overlap"]) == ("A", 1)
    empty = {"status": "ok", "events": []}
    got, info = dsp_answer("What is the maximum number of overlapping sounds?",
                           {"A": "No sound", "B": "1", "C": "2", "D": "3"}, empty, stage=2)
    assert (got, info["n_overlap"]) == ("A", 0)


def test_source_count_thresholds():
    assert source_count(REC) == 2
    assert source_count(REC, DspConfig(min_source_s=3.2)) == 1
    assert source_count(REC, DspConfig(merge_deg=150.0)) == 1
    assert source_count(REC, DspConfig(min_confidence=0.2)) == 0


def test_claims_of_synthetic_option_styles():
    assert read_claim("At about 3 o'clock").azimuth_deg == -90.0
    assert read_claim("Ahead and to the left").azimuth_deg == 45.0
    assert read_claim("About 30 degrees to the right").azimuth_deg == -30.0
    assert read_claim("1.2-3.4 s").span == (1.2, 3.4)
    assert read_claim("Three sources").count == 3
    assert read_claim("4 simultaneous sounds").count == 4
    assert read_claim("1 sound at a time").count == 1
    assert read_claim("A dog barking, speech and a doorbell").n_listed == 3


@pytest.mark.slow
def test_unknown_kind_is_refused(qa_only):
    with pytest.raises(ParameterError, match="kind='magic'"):
        run_baseline(qa_only, "magic")


def test_corpus_layout_and_audio(tmp_path):
    qa_file = write_rmsaqa_corpus(tmp_path, n_clips=3, seed=9, channel_order="fuma")
    qa = load_qa(qa_file)
    assert qa_file == tmp_path / "val.json" and not qa.problems
    info = sf.info(tmp_path / qa.items[0].audio_path)
    assert (info.samplerate, info.channels, info.duration) == (24000, 4, 10.0)
    scenes = [json.loads(x) for x in open(tmp_path / "truth" / "scenes.jsonl")]
    assert {s["channel_order"] for s in scenes} == {"fuma"}
    assert all(1 <= len(s["sources"]) <= 4 for s in scenes)
    items = [json.loads(x) for x in open(tmp_path / "truth" / "items.jsonl")]
    assert len(items) == len(qa)
    x, _ = sf.read(tmp_path / qa.items[0].audio_path)
    assert np.abs(x).max() > 0.1


def test_sound_counting_pairs_ask_both_kinds_with_true_counts(tmp_path):
    """Each Sound Counting pair's question reads as its truth's kind, its right option
    states the truth's count, and an overlap count is the scene's most sources at once
    (checked here by counting the sources active inside each stretch between two source
    ends)."""
    write_rmsaqa_corpus(tmp_path, n_clips=120, seed=5, render=False)
    qa = load_qa(tmp_path / "val.json")
    scenes = {s["segment_id"]: s for s in map(json.loads, open(tmp_path / "truth" /
                                                                "scenes.jsonl"))}
    truths = {(t["segment_id"], t["item"]): t["stage2"]
              for t in map(json.loads, open(tmp_path / "truth" / "items.jsonl"))}
    kinds = Counter()
    for it in qa:
        if it.category != "Sound Counting":
            continue
        t = truths[(it.segment_id, it.index)]
        kinds[t["count_kind"]] += 1
        assert count_kind(it.stage2.question) == t["count_kind"], it.stage2.question
        counts = {x: read_claim(o).count for x, o in it.stage2.options.items()}
        assert counts[it.stage2.answer] == t["count"]
        assert len(set(counts.values())) == 4 and None not in counts.values()
        srcs = scenes[it.segment_id]["sources"]
        if t["count_kind"] == "distinct":
            assert t["count"] == len(srcs)
        else:
            ends = sorted({x for s in srcs for x in (s["onset_s"], s["offset_s"])})
            most = max(sum(s["onset_s"] < (a + b) / 2 < s["offset_s"] for s in srcs)
                       for a, b in zip(ends, ends[1:], strict=False))
            assert t["count"] == most
    assert min(kinds["distinct"], kinds["overlap"]) >= 10, kinds


def test_corpus_parameters_are_checked(tmp_path):
    with pytest.raises(ParameterError, match="n_clips"):
        write_rmsaqa_corpus(tmp_path, n_clips=0)
    with pytest.raises(ParameterError, match="category_weights"):
        write_rmsaqa_corpus(tmp_path, n_clips=1, category_weights=(1, 2), render=False)


@given(st.integers(1, 12), st.sampled_from(["At about {h} o'clock", "around {h} o'clock",
                                            "It is at {h} oclock"]))
def test_clock_positions_read_clockwise_from_the_front(h, phrase):
    claim = read_claim(phrase.format(h=h))
    expect = (-30.0 * (h % 12) + 180.0) % 360.0 - 180.0
    assert claim.azimuth_deg == pytest.approx(expect) and claim.halfwidth_deg == 15.0


@given(st.integers(1, 179), st.sampled_from(["left", "right"]))
def test_angles_left_positive(deg, side):
    az = read_claim(f"About {deg} degrees to the {side}").azimuth_deg
    assert az == (deg if side == "left" else -deg)


@given(st.integers(1, 6), st.sampled_from(["{n}", "{w} sources", "{n} distinct sounds",
                                           "Only {w}"]))
def test_counts_in_digits_and_words(n, phrase):
    words = ("one", "two", "three", "four", "five", "six")
    assert read_claim(phrase.format(n=n, w=words[n - 1])).count == n
