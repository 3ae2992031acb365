"""The RMS-AQA dsp baseline is blind: its answers do not change when the answer fields of
the QA file are removed or their letters rotated (A->B->C->D->A, options unchanged).

Files are written here in the official stage form (``rmsaqa-code`` README); analysis
records are drawn by Hypothesis, so no audio is analysed.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.bench.rmsaqa import dsp_answers, load_qa, prior_answers
from foakit.bench.rmsaqa.baselines import LABELLED

NAMES = {1: "Sound Counting", 2: "Source Localization", 3: "Temporal Detection",
         4: "Spatial Relations", 5: "Temporal Relations", 6: "Action Prediction"}
ROTATE = {"A": "B", "B": "C", "C": "D", "D": "A"}
SOUNDS = ["dog barking", "speech", "piano", "doorbell", "kettle"]


@st.composite
def options(draw, kind):
    """Four option texts of one claim kind (counts, directions, spans, onsets, actions,
    sound lists)."""
    if kind == "count":
        ns = draw(st.permutations([1, 2, 3, 4, 5]))[:4]
        return [f"{n} distinct sounds" for n in ns]
    if kind == "direction":
        hs = draw(st.permutations(list(range(1, 13))))[:4]
        return [f"At about {h} o'clock" for h in hs]
    if kind == "span":
        starts = draw(st.lists(st.integers(0, 8), min_size=4, max_size=4))
        return [f"From {a}.0 s to {a + 1}.5 s" for a in starts]
    if kind == "onset":
        ts = draw(st.lists(st.integers(0, 9), min_size=4, max_size=4))
        return [f"At about {t}.5 s" for t in ts]
    if kind == "action":
        return ["Check the door", "Pick up the phone", "Turn off the tap", "Do nothing"]
    sizes = draw(st.lists(st.integers(1, 4), min_size=4, max_size=4))
    return [" and ".join(SOUNDS[:k]) for k in sizes]


_KIND = {1: "count", 2: "direction", 3: "span", 4: "direction", 5: "onset", 6: "action"}


@st.composite
def corpus(draw):
    """QA records (with random reference letters) and an analysis record per clip."""
    recs, analysis = [], {}
    for i in range(draw(st.integers(1, 6))):
        sid = f"dev-{i:06d}"
        cid = draw(st.integers(1, 6))
        q = "When does the sound start?" if _KIND[cid] == "onset" else "What is asked?"
        if _KIND[cid] == "count":  # both kinds of counting question
            q = draw(st.sampled_from(["How many sounds are there?", "What is the maximum "
                                      "number of overlapping sounds?"]))
        opts1 = dict(zip("ABCD", draw(options("list")), strict=True))
        opts2 = dict(zip("ABCD", draw(options(_KIND[cid])), strict=True))
        recs.append({"segment_id": sid, "qa_pairs": [
            {"stage": 1, "question": "Which sounds?", "options": opts1,
             "answer": draw(st.sampled_from("ABCD"))},
            {"stage": 2, "question": q, "options": opts2,
             "answer": draw(st.sampled_from("ABCD")), "category_id": cid,
             "category_name": NAMES[cid]}]})
        events = [{"onset_s": on, "offset_s": on + dur, "azimuth_deg": az, "source": src,
                   "confidence": 0.5}
                  for on, dur, az, src in draw(st.lists(st.tuples(
                      st.floats(0, 8), st.floats(0.2, 4), st.floats(-180, 180),
                      st.integers(0, 3)), max_size=5))]
        analysis[f"dev_audio/{sid}.wav"] = draw(st.sampled_from([
            {"status": "ok", "events": events}, {"status": "error", "error": "x"}, None]))
    return recs, analysis


def _variants(recs):
    """The file as drawn, with answer fields removed, and with the letters rotated."""
    removed = [json.loads(json.dumps(r)) for r in recs]
    rotated = [json.loads(json.dumps(r)) for r in recs]
    for r in removed:
        for q in r["qa_pairs"]:
            del q["answer"]
    for r in rotated:
        for q in r["qa_pairs"]:
            q["answer"] = ROTATE[q["answer"]]
    return {"original": recs, "removed": removed, "rotated": rotated}


@settings(derandomize=True, max_examples=40, deadline=None)
@given(corpus())
def test_dsp_answers_are_identical_without_or_with_rotated_labels(drawn):
    recs, analysis = drawn
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, rows in _variants(recs).items():
            paths[name] = Path(tmp, f"{name}.json")
            paths[name].write_text(json.dumps({"records": rows}), encoding="utf-8")
        # labels=False as the command line loads it for dsp; labels=True shows the
        # answers stay the same even when the labels are in memory
        runs = {(name, labels): dsp_answers(load_qa(p, labels=labels), analysis)
                for name, p in paths.items() for labels in (False, True)
                if labels is False or name != "removed"}
        first = next(iter(runs.values()))
        assert len(first) == len(recs)
        for key, rows in runs.items():
            assert rows == first, key
        # the rotation does change every label the file holds
        orig, rot = load_qa(paths["original"]), load_qa(paths["rotated"])
        assert [ROTATE[it.stage2.answer] for it in orig] == [it.stage2.answer for it in rot]
        assert [ROTATE[it.stage1.answer] for it in orig] == [it.stage1.answer for it in rot]


def test_a_label_reading_answerer_fails_the_same_check(tmp_path):
    """The check above can fail: the prior, which reads the labels, moves with them."""
    opts = dict(zip("ABCD", SOUNDS[:4], strict=True))
    rec = {"segment_id": "dev-000000", "qa_pairs": [
        {"stage": 1, "question": "Which sounds?", "options": opts,
         "answer": "C"},
        {"stage": 2, "question": "What now?", "options": opts,
         "answer": "A", "category_id": 6, "category_name": NAMES[6]}]}
    out = {}
    for name, rows in _variants([rec]).items():
        if name != "removed":
            p = tmp_path / f"{name}.json"
            p.write_text(json.dumps({"records": rows}))
            out[name] = [(r["stage1"], r["stage2"]) for r in prior_answers(load_qa(p))]
    assert out == {"original": [("C", "A")], "rotated": [("D", "B")]}


def test_only_oracle_and_prior_read_labels():
    assert set(LABELLED) == {"oracle", "prior"}
