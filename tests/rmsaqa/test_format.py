"""RMS-AQA loading: record layouts, every malformed-record case, audio paths."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.rmsaqa import audio_file, check_audio, load_qa, read_answers, write_answers
from foakit.errors import FormatError

OPTS = {"A": "one", "B": "two", "C": "three", "D": "four"}


def s1(answer="A", **kw):
    return {"stage": 1, "question": "Which sounds?", "options": dict(OPTS), "answer": answer,
            **kw}


def s2(answer="B", cid=1, name="Sound Counting", **kw):
    d = {"stage": 2, "question": "How many?", "options": dict(OPTS), "answer": answer, **kw}
    if cid is not None:
        d["category_id"] = cid
    if name is not None:
        d["category_name"] = name
    return d


def rec(sid="seg1", pairs=None, audio="audio/seg1.wav"):
    return {"segment_id": sid, "audio_path": audio,
            "qa_pairs": pairs if pairs is not None else [s1(), s2()]}


def write(tmp_path, payload, name="val.json"):
    p = tmp_path / name
    p.write_text(json.dumps(payload), encoding="utf-8")
    return p


def problems_of(qa):
    return [str(p) for p in qa.problems]


def test_records_object_and_bare_list_load_the_same(tmp_path):
    recs = [rec("a", [s1("C"), s2("D", 2, "Source Localization"), s1(), s2(cid=3, name=None)]),
            rec("b")]
    q1 = load_qa(write(tmp_path, {"records": recs}, "x.json"))
    q2 = load_qa(write(tmp_path, recs, "y.json"))
    assert [i.key for i in q1] == [i.key for i in q2] == [("a", 0), ("a", 1), ("b", 0)]
    it = q1.items[0]
    assert (it.stage1.answer, it.stage2.answer, it.category) == ("C", "D", "Source Localization")
    assert q1.items[1].category == "Temporal Detection"  # name derived from the id
    # the official meter needs the name: the item is kept and the gap reported
    assert [(p.record, p.dropped) for p in q1.problems] == [(0, False)]
    assert "no category_name" in q1.problems[0].problem and q1.n_records == 2
    assert q1.audio_root == tmp_path


def test_layer_correct_option_task_id_and_category_from_name(tmp_path):
    p1 = {"layer": 1, "question": "q", "options": OPTS, "correct_option": "(b)", "task_id": 7}
    p2 = {"layer": "2", "question": "q", "options": OPTS, "correct_option": "Option D",
          "category_name": "action prediction"}
    qa = load_qa(write(tmp_path, [rec("s", [p1, p2])]))
    it = qa.items[0]
    assert (it.stage1.answer, it.stage1.task_id, it.stage2.answer) == ("B", "7", "D")
    assert (it.stage2.category_id, it.category) == (6, "Action Prediction")
    # no category_id: derived from the name and reported (the official meter needs the id)
    assert [(p.dropped, "no category_id" in p.problem) for p in qa.problems] == [(False, True)]


@pytest.mark.parametrize("bad, expect", [
    ("not a record", "not an object"),
    ({"audio_path": "a.wav", "qa_pairs": [s1(), s2()]}, "no segment_id"),
    ({"segment_id": "x", "audio_path": 7, "qa_pairs": [s1(), s2()]}, "is not a string"),
    ({"segment_id": "x", "audio_path": "a.wav", "qa_pairs": "nope"}, "non-empty list"),
    ({"segment_id": "x", "audio_path": "a.wav", "qa_pairs": []}, "non-empty list"),
    (rec("x", [s1(), "pair"]), "qa_pairs[1] is not an object"),
    (rec("x", [s1(), dict(s2(), stage=3)]), "stage 3 must be 1 or 2"),
    (rec("x", [s1(), dict(s2(), question="")]), "no question"),
    (rec("x", [s1(), dict(s2(), options="A or B")]), "options must be an object"),
    (rec("x", [s1(), dict(s2(), options={"A": "x", "1": "y"})]), "is not a letter"),
    (rec("x", [s1(), dict(s2(), options={"A": "x", "B": ""})]), "has no text"),
    (rec("x", [s1(), s2(answer="E")]), "answer 'E' is not among the options"),
    (rec("x", [s1(), s2(answer=None)]), "answer None is not among the options"),
    (rec("x", [s2()]), "stage-2 pair without its stage 1"),
    (rec("x", [s1()]), "the last stage-1 pair has no stage 2"),
    (rec("x", [s1(), s1(), s2()]), "a stage-1 pair follows a stage-1 pair"),
    (rec("x", [s1(answer="Z"), s2()]), "stage-2 pair dropped with its malformed stage 1"),
])
def test_each_malformed_record_is_reported_and_the_rest_loads(tmp_path, bad, expect):
    qa = load_qa(write(tmp_path, [rec("good1"), bad, rec("good2")]))
    assert {i.segment_id for i in qa} >= {"good1", "good2"}
    msgs = problems_of(qa)
    assert any(expect in m for m in msgs), msgs
    assert all(m.startswith("record 1") for m in msgs), msgs


def test_broken_stage2_drops_only_its_item(tmp_path):
    qa = load_qa(write(tmp_path, [rec("x", [s1(), s2(answer="Q"), s1("D"), s2("C")])]))
    assert [(i.index, i.stage1.answer) for i in qa] == [(0, "D")]
    assert len(qa.problems) == 1


def test_duplicate_segment_id_keeps_the_first(tmp_path):
    qa = load_qa(write(tmp_path, [rec("x", [s1("A"), s2()]), rec("x", [s1("D"), s2()])]))
    assert [i.stage1.answer for i in qa] == ["A"]
    assert "duplicate segment_id (first in record 0)" in problems_of(qa)[0]
    assert qa.problems[0].record == 1 and qa.problems[0].segment_id == "x"


@pytest.mark.parametrize("pair, expect, kept", [
    (s2(cid=None, name=None), "neither category_id nor category_name", True),
    (s2(cid=9, name=None), "unknown category_id 9", True),
    (s2(cid=None, name="Vibes"), "unknown category_name 'Vibes'", True),
    (s2(cid="two", name=None), "is not an integer", True),
    (s2(cid=1, name="sound counting"), "is not spelled as the official meter", True),
    (s2(cid=4, name="SR"), "is not spelled as the official meter", True),
    # metrics.py refuses a name that contradicts the id; neither can be trusted
    (s2(cid=1, name="Temporal Relations"), "does not match category_id 1", False),
    (s2(cid=4, name="Temporal Relations"), "does not match category_id 4", False),
    (s2(cid=2, name="Vibes"), "does not match category_id 2", False),
])
def test_category_problems_are_reported(tmp_path, pair, expect, kept):
    qa = load_qa(write(tmp_path, [rec("x", [s1(), pair])]))
    assert len(qa) == int(kept)
    msgs = problems_of(qa)
    assert any(expect in m and (("(kept)" in m) == kept) for m in msgs), msgs


def test_more_than_two_items_load_with_a_note(tmp_path):
    qa = load_qa(write(tmp_path, [rec("x", [s1(), s2(), s1(), s2(), s1(), s2()])]))
    assert len(qa) == 3
    assert "3 two-stage items" in problems_of(qa)[0]


@pytest.mark.parametrize("text, expect", [
    ("{not json", "bad JSON"),
    ('{"data": []}', "needs a 'records' list"),
    ('"a string"', "expected a list of records"),
])
def test_unreadable_files_raise(tmp_path, text, expect):
    p = tmp_path / "v.json"
    p.write_text(text)
    with pytest.raises(FormatError, match=expect) as e:
        load_qa(p)
    assert str(p) in str(e.value)


def test_missing_and_non_utf8_files_raise(tmp_path):
    with pytest.raises(FormatError, match="no such QA file"):
        load_qa(tmp_path / "none.json")
    p = tmp_path / "bin.json"
    p.write_bytes(b"\xff\xfe\x00[")
    with pytest.raises(FormatError, match="not UTF-8"):
        load_qa(p)


def _wav(path, channels=4, sr=24000):
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.zeros((sr // 10, channels), np.float32), sr, format="WAV")


def test_audio_problems_are_per_file(tmp_path):
    recs = [rec("ok", audio="audio/ok.wav"), rec("missing", audio="audio/missing.wav"),
            rec("broken", audio="audio/broken.wav"), rec("stereo", audio="audio/st.wav"),
            rec("escape", audio="../outside.wav"), rec("abs", audio="/etc/passwd")]
    p = write(tmp_path, recs)
    _wav(tmp_path / "audio/ok.wav")
    (tmp_path / "audio/broken.wav").write_bytes(b"RIFF nonsense")
    _wav(tmp_path / "audio/st.wav", channels=2)
    qa = load_qa(p)
    ok, bad = check_audio(qa)
    assert list(ok) == ["audio/ok.wav"]
    assert "no such audio file" in bad["audio/missing.wav"]
    assert "not readable audio" in bad["audio/broken.wav"]
    assert "2 channels" in bad["audio/st.wav"]
    assert "'..' component" in bad["../outside.wav"]
    assert "absolute" in bad["/etc/passwd"]
    assert len(qa) == 6  # items keep loading; their audio problems are separate


def test_audio_root_option_and_symlinked_audio_folder(tmp_path):
    real = tmp_path / "store" / "wavs"
    _wav(real / "seg1.wav")
    data = tmp_path / "data"
    data.mkdir()
    os.symlink(real, data / "audio")
    p = write(tmp_path, [rec("seg1", audio="audio/seg1.wav")], "qa.json")
    qa = load_qa(p, audio_root=data)
    ok, bad = check_audio(qa)
    assert not bad and ok["audio/seg1.wav"] == data / "audio" / "seg1.wav"
    assert os.path.realpath(audio_file(qa, qa.items[0])) == str((real / "seg1.wav").resolve())
    # without --audio-root the QA file's folder is the root, where there is no audio
    assert "no such audio file" in check_audio(load_qa(p))[1]["audio/seg1.wav"]


def test_hf_cache_like_layout(tmp_path):
    """Snapshot files are symlinks into blobs/ (the Hugging Face hub cache)."""
    repo = tmp_path / "hub" / "datasets--x--rmsaqa"
    blobs, snap = repo / "blobs", repo / "snapshots" / "abc123"
    _wav(blobs / "0f3a")
    (snap / "audio" / "val").mkdir(parents=True)
    os.symlink(os.path.relpath(blobs / "0f3a", snap / "audio" / "val"),
               snap / "audio" / "val" / "seg1.wav")
    (blobs / "9e1c").write_text(json.dumps({"records": [rec("seg1",
                                                             audio="audio/val/seg1.wav")]}))
    os.symlink(os.path.relpath(blobs / "9e1c", snap), snap / "val.json")
    qa = load_qa(snap / "val.json")
    assert qa.audio_root == snap
    ok, bad = check_audio(qa)
    assert not bad and list(ok) == ["audio/val/seg1.wav"]


def test_answers_round_trip_and_errors(tmp_path):
    p = write_answers(tmp_path / "a.jsonl", [{"segment_id": "s", "item": 1, "stage1": "A",
                                              "stage2": "The answer is B", "_x": 1}])
    rows = read_answers(p)
    assert rows == [{"segment_id": "s", "item": 1, "stage1": "A", "stage2": "The answer is B",
                     "field1": "stage1", "field2": "stage2", "status1": None,
                     "status2": None, "stage2_conditioning": "unstated", "_line": 1}]
    assert "_x" not in p.read_text()
    for text, expect in [("[1]\n", "expected a JSON object"), ('{"item": 0}\n', "segment_id"),
                         ('{"segment_id": "s", "item": -1}\n', "non-negative"),
                         ('{"segment_id": "s"\n', "bad JSON")]:
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text)
        with pytest.raises(FormatError, match=expect):
            read_answers(bad)
    with pytest.raises(FormatError, match="no such answers file"):
        read_answers(tmp_path / "none.jsonl")


_VALUES = st.one_of(st.none(), st.integers(-2, 8), st.text(max_size=6),
                    st.sampled_from(["A", "b", "(C)", "1", "2", "Sound Counting"]))
_PAIR = st.dictionaries(st.sampled_from(["stage", "layer", "question", "options", "answer",
                                         "correct_option", "category_id", "category_name"]),
                        st.one_of(_VALUES, st.just(OPTS), st.lists(st.text(max_size=3),
                                                                   max_size=5)))
_RECORD = st.one_of(_VALUES, st.fixed_dictionaries(
    {"segment_id": _VALUES, "audio_path": st.one_of(_VALUES, st.just("a.wav")),
     "qa_pairs": st.one_of(_VALUES, st.lists(st.one_of(_PAIR, st.just(s1()), st.just(s2())),
                                             max_size=5))}))


@given(st.lists(_RECORD, max_size=6))
def test_any_records_load_or_are_reported(tmp_path_factory, records):
    """Whatever the records hold, loading never raises: each item that loads is a proper
    two-stage item and every record that gives none is reported."""
    p = tmp_path_factory.mktemp("h") / "v.json"
    p.write_text(json.dumps(records))
    qa = load_qa(p)
    assert qa.n_records == len(records)
    for it in qa:
        assert it.stage1.stage == 1 and it.stage2.stage == 2
        assert it.stage1.answer in it.stage1.options and it.stage2.answer in it.stage2.options
    loaded = {it.record for it in qa}
    reported = {pr.record for pr in qa.problems}
    assert set(range(len(records))) <= loaded | reported


def test_numeric_option_values_read_as_their_text(tmp_path):
    """The official loader and prompt read an option value as str(value) (dataset.py
    _normalize_answer, mcq.py format_mcq_options), so numbers are options too."""
    nums = {"A": 1, "B": 2, "C": 3, "D": 4.5}
    p = write(tmp_path, {"records": [
        rec("dev-1", [s1("C", options=dict(nums)), s2("D", options=dict(nums))]),
        rec("dev-2", [dict(s1(), options={"A": True, "B": 2}), s2()]),
        {"segment_id": "dev-3", "qa_pairs": [
            {"layer": 1, "question": "q", "options": dict(nums), "answer": 2},
            {"layer": 2, "question": "q", "options": dict(nums), "answer": 4.5,
             "category_id": 1, "category_name": "Sound Counting"}]}]})
    qa = load_qa(p)
    first, legacy = qa.items
    assert first.stage1.options == {"A": "1", "B": "2", "C": "3", "D": "4.5"}
    assert (first.stage1.answer, first.stage2.answer) == ("C", "D")
    assert (legacy.segment_id, legacy.stage1.answer, legacy.stage2.answer) == ("dev-3", "B", "D")
    assert problems_of(qa) == ["record 1 ('dev-2') in " + str(p)
                               + ": qa_pairs[0]: option 'A' has no text",
                               "record 1 ('dev-2') in " + str(p)
                               + ": qa_pairs[1]: stage-2 pair dropped with its malformed stage 1"]
