"""The SO-Bench dsp baseline is blind: its predictions do not change when the QA file's
answer fields (``answer``, ``canonical_answer``, ``answer_meta``) are removed or moved to
other records.

QA files are written here in SO-Bench's layout (``qa/test.jsonl``); the analysis records
are drawn by Hypothesis, so no audio is analysed.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.bench.sobench.baselines import dsp_predictions, oracle_predictions
from foakit.bench.sobench.format import load_qa

ANSWER_FIELDS = ("answer", "canonical_answer", "answer_meta")
QUESTIONS = [
    ("estimate_azimuth", "What is the azimuth of the sound at 2 s?"),
    ("estimate_elevation", "What is the elevation of the sound on the left?"),
    ("estimate_distance", "How far away is the last sound?"),
    ("onset_from_location", "When does the sound coming from the front-right begin?"),
    ("detect_time", "During which time interval can the gong be heard?"),
    ("spatial_temporal", "When and where is the dog heard?"),
    ("count_sources", "How many sources are active at 3 s?"),
    ("count_sources", "How many sound sources are there?"),
    ("classify_motion", "Is the sound of the car stationary or moving?"),
    ("relative_left_right", "Is the sound at 2 s to the left or right of the sound at 6 s?"),
    ("compare_elevation", "Is the sound at 6 s higher or lower than the sound at 2 s?"),
    ("compare_distance", "Which is closer, the sound at 2 s or the sound at 6 s?"),
    ("identify_source_by_doa", "Which sound comes from 90 degrees?"),
    ("speech_content", "What does the speaker say?"),
]
_ANSWER = st.fixed_dictionaries({
    "answer": st.sampled_from(["45 degrees", "2.5 s", "3", "left", "closer", "a dog"]),
    "canonical_answer": st.sampled_from(["45", "2.5", "3", "left", "higher", "dog"]),
    "answer_meta": st.fixed_dictionaries({
        "angle_deg": st.floats(-180, 180), "onset_time_s": st.floats(0, 10),
        "count": st.integers(1, 5), "distance_m": st.floats(0.5, 5)})})


def _event(on, dur, az, el, src, dist, moving):
    return {"onset_s": on, "offset_s": on + dur, "azimuth_deg": az, "elevation_deg": el,
            "distance_m": dist, "distance_proxy": 0.5, "diffuseness": 0.2,
            "motion": "left_to_right" if moving else "stationary",
            "azimuth_start_deg": az, "azimuth_end_deg": az - 40.0 if moving else az,
            "confidence": 0.9, "energy_db": -20.0 - src, "source": src}


@st.composite
def corpus(draw):
    """QA records with drawn answers, and a clip record per audio file."""
    records, clips = [], {}
    for i in range(draw(st.integers(1, 8))):
        clip_no = draw(st.integers(0, 2))
        task, question = draw(st.sampled_from(QUESTIONS))
        path = f"audio/test/clip{clip_no}.wav"
        records.append({"qa_id": f"q{i}", "audio_path": path, "task_name": task,
                        "question": question, **draw(_ANSWER)})
        if path not in clips:
            events = [_event(*e) for e in draw(st.lists(st.tuples(
                st.floats(0, 8), st.floats(0.3, 3), st.floats(-180, 180), st.floats(-60, 60),
                st.integers(0, 3), st.floats(0.5, 5), st.booleans()), max_size=5))]
            clips[path] = draw(st.sampled_from([
                {"status": "ok", "channels": 4, "duration_s": 10.0, "events": events,
                 "n_sources": len({e["source"] for e in events})},
                {"status": "error", "error": "truncated", "events": []},
                "the audio file is missing"]))
    return records, clips


def _variants(records):
    """As drawn, without answer fields, and with each record's answers moved to the next."""
    removed = [{k: v for k, v in r.items() if k not in ANSWER_FIELDS} for r in records]
    moved = [dict(r, **{k: records[(i + 1) % len(records)][k] for k in ANSWER_FIELDS})
             for i, r in enumerate(records)]
    return {"original": records, "removed": removed, "moved": moved}


@settings(derandomize=True, max_examples=25, deadline=None)
@given(corpus())
def test_dsp_predictions_are_identical_without_or_with_moved_answers(drawn):
    records, clips = drawn
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, rows in _variants(records).items():
            root = Path(tmp, name)
            (root / "qa").mkdir(parents=True)
            (root / "qa" / "test.jsonl").write_text(
                "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            runs[name] = dsp_predictions(load_qa(root).items, clips)
    assert len(runs["original"]) == len(records)
    assert runs["removed"] == runs["original"]
    assert runs["moved"] == runs["original"]


def test_a_label_reading_answerer_fails_the_same_check(tmp_path):
    """The check above can fail: the oracle, which reads the answers, moves with them."""
    base = {"audio_path": "audio/test/clip0.wav", "task_name": "estimate_azimuth",
            "question": "What is the azimuth of the sound?"}
    records = [dict(base, qa_id="q0", answer="30 degrees", canonical_answer="30",
                    answer_meta={}),
               dict(base, qa_id="q1", answer="-90 degrees", canonical_answer="-90",
                    answer_meta={})]
    got = {}
    for name, rows in _variants(records).items():
        (tmp_path / name / "qa").mkdir(parents=True)
        (tmp_path / name / "qa" / "test.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows))
        got[name] = [r["prediction"]
                     for r in oracle_predictions(load_qa(tmp_path / name).items)]
    assert got["original"] == ["30", "-90"] and got["moved"] == ["-90", "30"]
