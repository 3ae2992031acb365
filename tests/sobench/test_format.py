"""SO-Bench files: QA loading, safe audio paths, predictions I/O, question cues."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from foakit.bench.sobench.format import (
    TASKS,
    load_qa,
    parse_question,
    prediction_text,
    read_predictions,
    referents,
    resolve_audio_path,
    write_predictions,
)
from foakit.errors import FormatError, ParameterError


def _record(qa_id, task="estimate_azimuth", **kw):
    rec = {"qa_id": qa_id, "split": "test", "audio_id": "foa_a",
           "audio_path": "audio/test/foa_a.wav", "task_name": task,
           "question": "Where is the sound?", "answer": "It is at 30 degrees.",
           "canonical_answer": "30", "answer_meta": {"azimuth_deg": 30.0}}
    rec.update(kw)
    return rec


def _write_qa(root: Path, lines: list) -> Path:
    (root / "qa").mkdir(parents=True, exist_ok=True)
    path = root / "qa" / "test.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_load_qa_keeps_order_and_fields(tmp_path):
    _write_qa(tmp_path, [_record("q1"), "", _record("q2", task="detect_time",
                                                   answer_meta={"time_span": [1, 2]})])
    qa = load_qa(tmp_path)
    assert [it.qa_id for it in qa] == ["q1", "q2"] and len(qa) == 2
    assert qa.items[1].line == 3 and qa.items[1].answer_meta == {"time_span": [1, 2]}
    assert qa.items[0].canonical_answer == "30" and qa.items[0].record["split"] == "test"
    assert qa.duplicates == {} and qa.unknown_tasks == {}
    assert load_qa(tmp_path / "qa" / "test.jsonl").items[0].qa_id == "q1"
    assert len(TASKS) == 16


def test_duplicate_ids_and_unknown_tasks_are_reported(tmp_path):
    _write_qa(tmp_path, [_record("q1"), _record("q2"), _record("q1", task="new_task")])
    qa = load_qa(tmp_path)
    assert len(qa) == 3
    assert qa.duplicates == {"q1": [1, 3]}
    assert qa.unknown_tasks == {"new_task": 1}


@pytest.mark.parametrize("bad,message", [
    ('{"qa_id": "q2", "audio_path": ', "bad JSON"),
    (json.dumps({"qa_id": "q2", "audio_path": "a.wav", "task_name": "x"}), "question"),
    (json.dumps(["not", "an", "object"]), "JSON object"),
    (json.dumps(_record("q2", answer_meta=[1, 2])), "answer_meta"),
    (json.dumps(_record("q2", audio_path=7)), "audio_path must be a string"),
])
def test_bad_records_name_file_and_line(tmp_path, bad, message):
    path = _write_qa(tmp_path, [_record("q1"), bad])
    with pytest.raises(FormatError) as err:
        load_qa(tmp_path)
    assert f"{path}:2" in str(err.value) and message in str(err.value)
    assert err.value.line == 2


def test_missing_qa_file(tmp_path):
    with pytest.raises(FormatError, match="qa/test.jsonl"):
        load_qa(tmp_path)


def test_resolve_audio_path_refuses_escapes(tmp_path):
    root = tmp_path / "root"
    (root / "audio").mkdir(parents=True)
    (root / "audio" / "a.wav").write_bytes(b"x")
    outside = tmp_path / "outside.wav"
    outside.write_bytes(b"x")
    assert resolve_audio_path(root, "audio/a.wav") == root / "audio" / "a.wav"
    assert resolve_audio_path(root, "./audio/a.wav") == root / "audio" / "a.wav"
    assert resolve_audio_path(root, "audio/missing.wav") == root / "audio" / "missing.wav"
    for bad, why in [(str(outside), "absolute"), ("../outside.wav", "'..'"),
                     ("audio/../../outside.wav", "'..'"), ("C:\\data\\a.wav", "absolute"),
                     ("\\\\server\\share\\a.wav", "absolute"), ("", "empty")]:
        with pytest.raises(FormatError, match=why):
            resolve_audio_path(root, bad)
    # symlinks are followed wherever they lead, as foakit analyze follows them (HF hub
    # snapshots are symlinks into blobs/; audio folders are often symlinked)
    os.symlink(outside, root / "audio" / "link.wav")
    os.symlink(tmp_path, root / "linked_dir")
    assert resolve_audio_path(root, "audio/link.wav").read_bytes() == b"x"
    assert resolve_audio_path(root, "linked_dir/outside.wav").read_bytes() == b"x"
    os.symlink(root / "audio" / "a.wav", root / "inside.wav")
    assert resolve_audio_path(root, "inside.wav") == root / "inside.wav"


def test_predictions_round_trip(tmp_path):
    rows = [{"qa_id": "q1", "prediction": "30 degrees azimuth", "_private": 1,
             "foakit": {"values": {"angle_deg": 30.0}}},
            {"qa_id": "q2", "prediction": "Déjà vu"}]
    path = write_predictions(tmp_path / "sub" / "p.jsonl", rows)
    assert not list(path.parent.glob(".*tmp"))
    back = read_predictions(path)
    assert [r["qa_id"] for r in back] == ["q1", "q2"]
    assert "_private" not in path.read_text() and back[1]["_line"] == 2
    assert back[0]["foakit"]["values"]["angle_deg"] == 30.0 and back[1]["prediction"] == "Déjà vu"
    path.write_text('{"qa_id": "q1"}\n\n[1]\n')
    with pytest.raises(FormatError, match=r"p\.jsonl:3"):
        read_predictions(path)
    with pytest.raises(FormatError, match="no such predictions file"):
        read_predictions(tmp_path / "none.jsonl")


def test_prediction_text_follows_the_readme_order_on_request():
    def readme(row):
        return prediction_text(row, order="readme")

    assert readme({"prediction": "b", "prediction_cleaned": "a"}) == "b"
    assert readme({"prediction": "", "prediction_cleaned": "a"}) == "a"
    assert readme({"prediction": "b", "prediction_raw": "c"}) == "b"
    assert readme({"prediction": " ", "prediction_raw": "c"}) == "c"
    assert readme({}) == ""


def test_prediction_text_follows_the_official_code_by_default():
    # score_sobench.py reads `prediction_cleaned or prediction or prediction_raw or ""`
    assert prediction_text({"prediction": "b", "prediction_cleaned": "a"}) == "a"
    assert prediction_text({"prediction": "b", "prediction_cleaned": ""}) == "b"
    assert prediction_text({"prediction": "b", "prediction_cleaned": None}) == "b"
    assert prediction_text({"prediction": "", "prediction_raw": "c"}) == "c"
    # truthiness, not blankness: a field of spaces is taken, as `or` takes it
    assert prediction_text({"prediction_cleaned": " ", "prediction": "b"}) == " "
    assert prediction_text({}) == ""
    with pytest.raises(ParameterError, match="order="):
        prediction_text({}, order="other")


# ---- question cues --------------------------------------------------------------------

SO_BENCH_QUESTION = (
    "Listen to the audio clip and answer based only on what you hear. During which time "
    "interval can the sound of the gong be heard? Based on the audio clip, state which sound "
    "sources are audible and when each one occurs. Answer in one natural sentence and report "
    "times in seconds.")


@pytest.mark.parametrize("question,expect", [
    (SO_BENCH_QUESTION, {}),
    ("When does the sound coming from the front-left start?", {"azimuth_deg": 45.0}),
    ("When does the sound from behind you begin?", {"azimuth_deg": 180.0}),
    ("What is the elevation of the sound on your right?", {"azimuth_deg": -90.0}),
    ("At what time does the sound at azimuth 60 degrees and elevation -10 degrees begin?",
     {"azimuth_deg": 60.0, "elevation_deg": -10.0, "azimuth_explicit": True}),
    ("When does the sound at 30 degrees to the right start?", {"azimuth_deg": -30.0}),
    ("What is the elevation of the sound heard at 3.2 s?", {"time_s": 3.2}),
    ("How many sources are active between 2.0 s and 5.5 s?", {"window": (2.0, 5.5)}),
    ("How many sources are active after 4 seconds?", {"window": (4.0, float("inf"))}),
    ("What is the azimuth of the second sound?", {"order": 1}),
    ("What is the azimuth of the last sound to start?", {"order": -1}),
    ("Which direction does the loudest sound come from?", {"superlative": "loudest"}),
    ("Where is the sound coming from above?", {"elevation_sign": 1}),
    ("Is the sound moving left, right, or stationary?", {}),
    ("Give the azimuth (0 = front, 90 = left, counter-clockwise) of the dog. Where is it?", {}),
    ("How far is the sound? Use near <1.5 m / mid-range 1.5-4.0 m / far >4.0 m.", {}),
    ("How many sounds does this first-order ambisonics clip hold?", {}),
])
def test_parse_question(question, expect):
    cues = parse_question(question)
    got = {k: getattr(cues, k) for k in expect}
    assert got == expect, cues.matched
    if not expect:
        assert cues.empty, cues.matched
    else:
        assert not cues.empty


def test_referents_of_relation_questions():
    refs = referents("Is the sound at 2 s to the left or right of the sound at 5 s?")
    assert [r.time_s for r in refs] == [2.0, 5.0]
    assert refs[0].text == "at 2 s"
    refs = referents("Which is higher: the sound from the front-left or the sound from behind?")
    assert [r.azimuth_deg for r in refs] == [45.0, 180.0]
    refs = referents("Is the sound at 30 degrees azimuth, 10 degrees elevation closer or "
                     "farther than the sound at -60 degrees?")
    assert len(refs) == 2 and refs[0].elevation_deg == 10.0 and refs[1].azimuth_deg == -60.0
    refs = referents("Between the first sound and the second sound, which is closer?")
    assert [r.order for r in refs] == [0, 1]
    assert referents("Is the dog to the left or right of the car?") == []
