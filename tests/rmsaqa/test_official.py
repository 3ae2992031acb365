"""RMS-AQA as its official code defines it (``rmsaqachallenge/rmsaqa-code`` at
``bd0b89d3``): the extraction rule of ``spatial_af3/mcq.py``, the forms
``spatial_af3/dataset.py`` loads, the log ``spatial_af3/evaluation.py`` writes and the
meter of ``spatial_af3/metrics.py``.

Every file here is written by the tests, from the README's example record and the
loader's rules, never by foakit's writers; expected letters, statuses and scores are
worked out by hand from the official rules (the reasoning is in the comments).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.bench.rmsaqa import (
    STATUSES,
    check_audio,
    derived_audio_path,
    extract_letter,
    load_qa,
    oracle_answers,
    prior_letters,
    read_answers,
    run_baseline,
    score_answers,
)
from foakit.errors import FormatError, ParameterError

# (text, expected letter, expected status); options A-D
TABLE = [
    # 1. <answer> tags: the LAST one whose letter is an option
    ("<answer>B</answer>", "B", "answer_tag"),
    ("<answer>(c)</answer>", "C", "answer_tag"),
    ("<answer>A</answer> on second thought <answer>D</answer>", "D", "answer_tag"),
    ("<answer>B) dog</answer>", "B", "answer_tag"),
    ("<ANSWER> c </ANSWER>", "C", "answer_tag"),
    ("A) cat\nB) dog\n<answer>A</answer>", "A", "answer_tag"),
    # E is no option: the tag gives nothing, the phrase after it decides
    ("<answer>E</answer> The answer is B.", "B", "regex_match"),
    # "Bird": the letter is not followed by a delimiter, and no rule finds a letter
    ("<answer>Bird</answer>", None, "no_option_found"),
    # 2. answer phrases: the LAST of (every phrase match, then every "therefore" match)
    ("The answer is (B).", "B", "regex_match"),
    ("the answer is b", "B", "regex_match"),
    ("<Final answer>: (C) The clip contains indoor cricket chorus.", "C", "regex_match"),
    ("<Final answer>: (A) The recording includes key drop.", "A", "regex_match"),
    ("Final answer: d", "D", "regex_match"),
    ("I think it is A. Final answer: C", "C", "regex_match"),
    ("The answer is A. On reflection, the answer is D.", "D", "regex_match"),
    ("Option C is correct", "C", "regex_match"),
    ("option b", "B", "regex_match"),
    ("Selected option: A", "A", "regex_match"),
    ("Therefore, the answer is B", "B", "regex_match"),
    # phrases [C, A], then "therefore" [C]: the list ends in C although A is written last
    ("Therefore the answer is C. Answer: A", "C", "regex_match"),
    ("Answer: (D)", "D", "regex_match"),
    ("answer - c", "C", "regex_match"),
    ("The final answer is B, not C.", "B", "regex_match"),
    ("Option A seems right but the answer is option C", "C", "regex_match"),
    ("the option (c) fits", "C", "regex_match"),
    ("Answer:\nB", "B", "regex_match"),
    ("The answer is A or B", "A", "regex_match"),
    ("The answer\u00a0is\tC", "C", "regex_match"),
    # the official rule reads the article after "answer is" as option A
    ("The answer is a dog barking.", "A", "regex_match"),
    # "answers are": the letter read is "s", no option; the lone letters then agree on B
    ("These answers are hard; B.", "B", "regex_match"),
    # 3. letters opening the text or a line: the LAST one
    ("B", "B", "regex_match"),
    ("b)", "B", "regex_match"),
    ("(B)", "B", "regex_match"),
    ("c.", "C", "regex_match"),
    ("(C) Three sources.", "C", "regex_match"),
    ("A) cat\nB) dog\nC) bird", "C", "regex_match"),
    ("Reasoning first.\n\nB) dishwasher is audible", "B", "regex_match"),
    # "Options:" reads the letter "s" (no option); the lines open with A and D: D
    ("Options:\nA. key drop\nD. dishwasher\nI hear a key drop, so A.", "D", "regex_match"),
    # 4. lone letters, only when all agree
    ("I would go with C here.", "C", "regex_match"),
    ("The correct choice is (d).", "D", "regex_match"),
    ("Either A or D could be right.", None, "no_option_found"),
    # "D." and the words "A", "D": they disagree
    ("A dog barks, so D.", None, "no_option_found"),
    ("I choose B.\nActually, A.", None, "no_option_found"),
    ("I am not sure.", None, "no_option_found"),
    ("E", None, "no_option_found"),
    ("answer: E", None, "no_option_found"),
    # empty
    ("", None, "empty_generation"),
    ("   \n\t ", None, "empty_generation"),
    (None, None, "empty_generation"),
]


def test_the_table_is_large_enough():
    assert len(TABLE) >= 40
    assert {s for _, _, s in TABLE} == set(STATUSES)


@pytest.mark.parametrize("text, letter, status", TABLE)
def test_official_extraction(text, letter, status):
    assert extract_letter(text, {"A": "a", "B": "b", "C": "c", "D": "d"}) == (letter, status)


def test_only_the_items_options_count():
    assert extract_letter("C", ("A", "B")) == (None, "no_option_found")
    # the phrase gives C (no option, dropped); of the lone letters C, C, B only B counts
    assert extract_letter("The answer is C. Or B", ("A", "B")) == ("B", "regex_match")
    assert extract_letter("The answer is C. Or B", (" a", "b ")) == ("B", "regex_match")
    assert extract_letter("<answer>C</answer>", ("a", "b", "c")) == ("C", "answer_tag")


_LETTER = st.sampled_from("ABCDabcd")
_FILLER = st.text(alphabet=st.sampled_from(list("efghjkmnpqrstuvwxyz ,!?\n")), max_size=40)


@settings(derandomize=True)
@given(_LETTER, _FILLER, _FILLER, _FILLER)
def test_the_last_tag_wins_anywhere(letter, before, middle, after):
    text = f"{before}<answer>A</answer>{middle}<answer>{letter}</answer>{after}"
    assert extract_letter(text) == (letter.upper(), "answer_tag")


@settings(derandomize=True)
@given(st.text(max_size=200))
def test_any_text_gives_a_status(text):
    letter, status = extract_letter(text)
    assert status in STATUSES
    assert (letter is None) == (status in ("no_option_found", "empty_generation"))
    assert letter is None or letter in "ABCD"


# ---------------------------------------------------------------- official files
# The README's example record, verbatim.
README_RECORD = {
    "segment_id": "train-000000.json",
    "qa_pairs": [
        {"stage": 1, "question": "What types of sound events can be heard in this audio?",
         "answer": "D", "options": {
             "A": "The recording includes key drop.",
             "B": "In the audio, you can hear dishwasher.",
             "C": "The clip contains indoor cricket chorus.",
             "D": "The audible sound types are child shouting."}},
        {"stage": 2, "question": "If a domestic robot were monitoring this audio, what "
         "should its response plan be?", "answer": "D", "options": {
             "A": "The best next step is to log and continue passive monitoring for "
                  "dishwasher near the front-left area.",
             "B": "For this clip, the embodied assistant should trigger a home emergency "
                  "alert, notify, and monitor safely for child shouting near the front-left "
                  "area.",
             "C": "The appropriate response plan is to trigger a home emergency alert, "
                  "notify, and monitor safely for dishwasher near the rear area.",
             "D": "Because of the detected sound, the robot should make a non-intrusive "
                  "check and notify for child shouting near the rear area."},
         "category_id": 6, "category_name": "Action Prediction"},
    ],
}
NAMES = {1: "Sound Counting", 2: "Source Localization", 3: "Temporal Detection",
         4: "Spatial Relations", 5: "Temporal Relations", 6: "Action Prediction"}
OPTS = {"A": "one sound", "B": "two sounds", "C": "three sounds", "D": "four sounds"}


def _stage_form(sid, ref1, ref2, cid):
    return {"segment_id": sid, "qa_pairs": [
        {"stage": 1, "question": "Which sounds?", "answer": ref1, "options": OPTS},
        {"stage": 2, "question": "Then what?", "answer": ref2, "options": OPTS,
         "correct_option": ref2, "category_id": cid, "category_name": NAMES[cid]}]}


def _legacy_form(sid, ref1, ref2, cid):
    """``layer``; ``answer`` is the option TEXT, ``correct_option`` the letter."""
    return {"segment_id": sid, "qa_pairs": [
        {"layer": 1, "question": "Which sounds?", "answer": OPTS[ref1],
         "correct_option": ref1, "options": OPTS},
        {"layer": 2, "question": "Then what?", "answer": OPTS[ref2], "correct_option": ref2,
         "options": OPTS, "category_id": str(cid), "category_name": NAMES[cid]}]}


# segment_id, form, stage-1 / stage-2 reference, category, generated stage-1 / stage-2 text
# and the hand-read outcome (letter read at each stage).
CASES = [
    ("dev-000001", _stage_form, "A", "B", 1, "a", "Either B or C", "A", None),
    ("dev-000002", _stage_form, "C", "A", 2, "Therefore the answer is C. Answer: A",
     "<answer>A</answer>", "C", "A"),
    ("dev-000003", _stage_form, "B", "C", 3, "A) cat\nB) dog", "A dog barks, so C.",
     "B", None),
    ("dev-000004", _legacy_form, "B", "D", 4, "the answer is b",
     "Options:\nA. x\nD. y\nI hear y, so D.", "B", "D"),
    ("dev-000005", _stage_form, "A", "A", 5, "", "option a", None, "A"),
    ("dev-000006", _stage_form, "C", "D", 6, "The answer is a dog barking.", "(D)",
     "A", "D"),
    ("dev-000007", _stage_form, "B", "B", 1, "I would go with B here.",
     "The correct choice is (b).", "B", "B"),
    # last: per-sample files load in name order, and "train-" sorts after "dev-"
    ("train-000000.json", None, "D", "D", 6,
     "<Final answer>: (D) The audible sound types are child shouting.",
     "The answer is A. On reflection, the answer is D.", "D", "D"),
]
# By hand from CASES: stage 1 right on 01, 02, 03, 04, 07 and the README record (6 of 8);
# stage 2 right on 02, 04, 05, 06, 07 and the README record (6 of 8); both on 02, 04, 07
# and the README record (4 of 8).
OVERALL = (8, 0.75, 0.75, 0.5)
BY_CATEGORY = {  # n, A_S1, A_S2, A_GS2
    "Sound Counting": (2, 1.0, 0.5, 0.5),       # 01: S1 only; 07: both
    "Source Localization": (1, 1.0, 1.0, 1.0),  # 02
    "Temporal Detection": (1, 1.0, 0.0, 0.0),   # 03
    "Spatial Relations": (1, 1.0, 1.0, 1.0),    # 04 (legacy form)
    "Temporal Relations": (1, 0.0, 1.0, 0.0),   # 05: empty stage-1 text
    "Action Prediction": (2, 0.5, 1.0, 0.5),    # README record: both; 06: S2 only
}
STATUS_S1 = {"answer_tag": 0, "regex_match": 7, "no_option_found": 0, "empty_generation": 1}
STATUS_S2 = {"answer_tag": 1, "regex_match": 5, "no_option_found": 2, "empty_generation": 0}


def _records():
    out = []
    for sid, form, r1, r2, cid, *_ in CASES:
        out.append(README_RECORD if form is None else form(sid, r1, r2, cid))
    return out


def _wav(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.zeros((2400, 4), np.float32), 24000, format="WAV")


@pytest.fixture
def release(tmp_path):
    """A release laid out as the official loader reads it: ``dev.json`` (one file),
    ``dev_QA/`` (one file per sample, with a ``metadata.json``) and the audio the
    loader derives from each ``segment_id``."""
    recs = _records()
    (tmp_path / "dev.json").write_text(json.dumps({"records": recs}), encoding="utf-8")
    d = tmp_path / "dev_QA"
    d.mkdir()
    for r in recs:
        stem = r["segment_id"].removesuffix(".json")
        (d / f"{stem}.json").write_text(json.dumps({"records": [r]}), encoding="utf-8")
    (d / "metadata.json").write_text(json.dumps({"records": [], "split": "dev"}))
    _wav(tmp_path / "train_audio" / "train-000000.wav")
    for sid, *_ in CASES[:-1]:
        _wav(tmp_path / "dev_audio" / f"{sid}.wav")
    return tmp_path


def _log_row(sid, opts1, opts2, text1, text2, letter1, letter2, *, with_text=True):
    """A row as ``evaluation.py`` writes it (the fields the scorer may read, plus
    others it writes)."""
    row = {"segment_id": sid, "audio_path": "", "task_id": 1,
           "stage1_pred_option": letter1, "stage2_pred_option": letter2,
           "stage1_extract_status": extract_letter(text1, opts1)[1],
           "stage2_extract_status": extract_letter(text2, opts2)[1],
           "stage1_gate": 0.5, "stage2_gate": 0.5}
    if with_text:
        row |= {"stage1_generated_text": text1, "stage2_generated_text": text2}
    return row


def _log(qa, **kw):
    by = {it.segment_id: it for it in qa}
    return [_log_row(sid, by[sid].stage1.options, by[sid].stage2.options, t1, t2, l1, l2, **kw)
            for sid, _, _, _, _, t1, t2, l1, l2 in CASES]


@pytest.mark.parametrize("qa_path", ["dev.json", "dev_QA"])
def test_every_item_loads_with_derived_audio(release, qa_path):
    qa = load_qa(release / qa_path)
    assert not qa.problems and qa.n_records == len(CASES)
    assert [it.segment_id for it in qa] == [c[0] for c in CASES]
    assert qa.audio_root == release
    assert qa.items[-1].audio_path == "train_audio/train-000000.wav"
    assert qa.items[0].audio_path == "dev_audio/dev-000001.wav"
    ok, bad = check_audio(qa)
    assert not bad and len(ok) == len(CASES)
    refs = [(it.stage1.answer, it.stage2.answer, it.category_id) for it in qa]
    assert refs == [(c[2], c[3], c[4]) for c in CASES]  # the legacy record included


@pytest.mark.parametrize("qa_path", ["dev.json", "dev_QA"])
@pytest.mark.parametrize("variant", ["jsonl", "jsonl_letters_only", "json_list"])
def test_official_log_scores_as_worked_out_by_hand(release, tmp_path, qa_path, variant):
    qa = load_qa(release / qa_path)
    rows = _log(qa, with_text=variant != "jsonl_letters_only")
    log = tmp_path / ("predictions.json" if variant == "json_list" else "answers_log.jsonl")
    log.write_text(json.dumps(rows) if variant == "json_list" else
                   "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rep = score_answers(qa, read_answers(log), answers_file=log)
    o = rep["overall"]
    assert (o["n"], o["A_S1"], o["A_S2"], o["A_GS2"]) == OVERALL
    for name, want in BY_CATEGORY.items():
        b = rep["by_category"][name]
        assert (b["n"], b["A_S1"], b["A_S2"], b["A_GS2"]) == want, name
    assert rep["extract_status"] == {"S1": STATUS_S1, "S2": STATUS_S2}
    assert [(a["stage1_option"], a["stage2_option"]) for a in rep["answers"]] == \
        [(c[7], c[8]) for c in CASES]
    # evaluation.py conditions stage 2 on the generated stage-1 answer
    assert rep["stage2_conditioning"] == {"predicted": len(CASES)}
    assert {a["stage2_conditioning"] for a in rep["answers"]} == {"predicted"}


@pytest.mark.parametrize("qa_path", ["dev.json", "dev_QA"])
def test_oracle_scores_one(release, qa_path):
    qa = load_qa(release / qa_path)
    rep = score_answers(qa, oracle_answers(qa))
    assert rep["overall"]["A_GS2"] == 1.0 and rep["overall"]["n"] == len(CASES)
    assert all(b["A_GS2"] in (1.0, None) for b in rep["by_category"].values())
    assert rep["stage2_conditioning"] == {"none": len(CASES)}


def test_per_sample_directory_problems_name_the_file(release):
    d = release / "dev_QA"
    (d / "dev-000009.json").write_text(json.dumps({"records": [_stage_form(
        "dev-000009", "A", "A", 1), _stage_form("dev-000010", "A", "A", 1)]}))
    (d / "dev-000011.json").write_text("{broken")
    (d / "dev-000012.json").write_text(json.dumps({"records": [_stage_form(
        "dev-000012", "A", "E", 2)]}))
    (d / "METADATA.json").write_text("not even JSON")  # skipped in any case
    (d / "notes.txt").write_text("not a sample")
    qa = load_qa(d)
    assert len(qa) == len(CASES)
    msgs = [str(p) for p in qa.problems]
    assert len(msgs) == 3, msgs
    assert any("dev-000009.json" in m and "exactly one record, not 2" in m for m in msgs)
    assert any("dev-000011.json" in m and "bad JSON" in m for m in msgs)
    assert any("dev-000012.json" in m and "'dev-000012'" in m and "answer 'E'" in m
               for m in msgs)
    assert all("\n" not in m for m in msgs)
    empty = release / "empty_QA"
    empty.mkdir()
    (empty / "metadata.json").write_text("{}")
    with pytest.raises(FormatError, match="no per-sample"):
        load_qa(empty)


@pytest.mark.parametrize("pair, expect", [
    ({"stage": 2, "answer": "B", "correct_option": "C"}, "conflicts with correct_option"),
    ({"layer": 2, "answer": "two sounds", "correct_option": "E"},
     "correct_option 'E' is not among the options"),
    ({"layer": 2, "answer": "five sounds"}, "legacy pair without correct_option"),
])
def test_answer_form_problems(tmp_path, pair, expect):
    bad = _stage_form("dev-000002", "A", "B", 1)
    q2 = {k: v for k, v in bad["qa_pairs"][1].items()
          if k not in ("stage", "answer", "correct_option")}
    bad["qa_pairs"][1] = q2 | pair
    p = tmp_path / "dev.json"
    p.write_text(json.dumps({"records": [_stage_form("dev-000001", "A", "B", 1), bad]}))
    qa = load_qa(p)
    assert [it.segment_id for it in qa] == ["dev-000001"]
    assert any(expect in str(m) and "record 1 ('dev-000002')" in str(m)
               for m in qa.problems), qa.problems


def test_legacy_answer_text_without_correct_option_is_matched(tmp_path):
    rec = _legacy_form("dev-000001", "C", "B", 1)
    for q in rec["qa_pairs"]:
        del q["correct_option"]
    p = tmp_path / "dev.json"
    p.write_text(json.dumps({"records": [rec]}))
    qa = load_qa(p)
    assert [(it.stage1.answer, it.stage2.answer) for it in qa] == [("C", "B")]


def test_audio_path_escaping_the_root_is_refused_and_symlinks_followed(release, tmp_path):
    recs = [dict(_stage_form("dev-000001", "A", "B", 1), audio_path="../../etc/x.wav"),
            dict(_stage_form("x-1", "A", "B", 1))]
    p = release / "odd.json"
    p.write_text(json.dumps({"records": recs}))
    qa = load_qa(p)
    assert len(qa) == 2 and qa.items[1].audio_path == ""  # no split prefix: no path
    _, bad = check_audio(qa)
    assert "'..' component" in bad["../../etc/x.wav"] and "empty audio_path" in bad[""]
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "dev_audio").symlink_to(release / "dev_audio")
    (linked / "train_audio").symlink_to(release / "train_audio")
    ok, bad = check_audio(load_qa(release / "dev_QA", audio_root=linked))
    assert not bad and len(ok) == len(CASES)


def test_blind_load_reads_no_answer_field(release):
    qa = load_qa(release / "dev_QA", labels=False)
    assert len(qa) == len(CASES) and not qa.problems
    assert all(it.stage1.answer is None and it.stage2.answer is None for it in qa)
    with pytest.raises(Exception, match="labels=False"):
        score_answers(qa, [])


def _foakit(*args):
    return subprocess.run([sys.executable, "-m", "foakit", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_cli_scores_the_official_log_and_refuses_a_file_without_answers(release, tmp_path):
    qa = load_qa(release / "dev_QA")
    log = tmp_path / "answers_log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in _log(qa)), encoding="utf-8")
    out = tmp_path / "report.json"
    r = _foakit("score", "rmsaqa", release / "dev_QA", log, "-o", out)
    assert r.returncode == 0, r.stderr
    rep = json.loads(out.read_text())
    assert (rep["overall"]["A_S1"], rep["overall"]["A_GS2"]) == (0.75, 0.5)
    assert "stage 2 conditioned on: predicted 8" in r.stdout
    assert "extraction S2: answer_tag 1, regex_match 5, no_option_found 2" in r.stdout
    mine = tmp_path / "mine.jsonl"
    mine.write_text("".join(json.dumps({"segment_id": c[0], "stage1": c[5], "stage2": c[6]})
                            + "\n" for c in CASES))
    r = _foakit("score", "rmsaqa", release / "dev.json", mine, "--json",
                "--stage2-conditioning", "reference")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["stage2_conditioning"] == {"reference": len(CASES)}
    assert rep["overall"]["A_GS2"] == 0.5
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("".join(json.dumps({"segment_id": c[0], "prediction": "A",
                                         "model": "x"}) + "\n" for c in CASES))
    r = _foakit("score", "rmsaqa", release / "dev.json", wrong)
    assert r.returncode == 2
    assert "no row holds an answer field" in r.stderr
    assert "model, prediction, segment_id" in r.stderr and "wrong.jsonl" in r.stderr


def test_per_sample_files_reached_through_symlinks_load(release, tmp_path):
    """A Hugging Face snapshot stores each file as a symlink into ``blobs/``."""
    blobs, snap = tmp_path / "blobs", tmp_path / "snap" / "dev_QA"
    blobs.mkdir()
    snap.mkdir(parents=True)
    for f in sorted((release / "dev_QA").glob("*.json")):
        (blobs / f"blob-{f.stem}").write_bytes(f.read_bytes())
        (snap / f.name).symlink_to(blobs / f"blob-{f.stem}")
    qa = load_qa(snap, audio_root=release)
    assert [it.segment_id for it in qa] == [c[0] for c in CASES] and not qa.problems


@pytest.mark.parametrize("sid, path", [
    ("dev-000001", "dev_audio/dev-000001.wav"),
    ("dev-000001.json", "dev_audio/dev-000001.wav"),
    ("train-000000.json", "train_audio/train-000000.wav"),
    ("dev-1.2.json", "dev_audio/dev-1.2.wav"),
    ("test-000001", ""), ("DEV-000001", ""),
])
def test_derived_audio_paths(sid, path):
    assert derived_audio_path(sid) == path


def test_answer_file_errors(tmp_path):
    for text, expect in [
            ('{"segment_id": "s", "stage1": "A", "stage2_conditioning": "gold"}\n',
             "stage2_conditioning 'gold' must be one of none, predicted, reference"),
            ('[{"segment_id": "s", "stage1": "A"}, ', "bad JSON"),
            ('[{"segment_id": "s", "stage1": "A"}, 3]', "expected a JSON object, got int")]:
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        with pytest.raises(FormatError, match=expect) as e:
            read_answers(bad)
        assert "bad.json" in str(e.value)


def test_per_sample_file_without_records_is_a_problem(release):
    (release / "dev_QA" / "dev-000013.json").write_text(json.dumps([{"segment_id": "x"}]))
    qa = load_qa(release / "dev_QA")
    assert len(qa) == len(CASES)
    assert [str(p) for p in qa.problems] == [
        "file in dev-000013.json: a per-sample file needs {'records': [one record]}"]


def test_label_reading_baselines_refuse_a_blind_load(release):
    qa = load_qa(release / "dev.json", labels=False)
    for kind in ("oracle", "prior"):
        with pytest.raises(ParameterError, match=f"kind='{kind}' reads the labels"):
            run_baseline(qa, kind)
    with pytest.raises(ParameterError, match="the prior reads the labels"):
        prior_letters(qa)
    assert len(run_baseline(qa, "chance").rows) == len(CASES)
