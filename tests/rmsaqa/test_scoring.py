"""RMS-AQA A_S1 / A_S2 / A_GS2 scoring (the extraction rule: test_official.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from foakit.bench.rmsaqa import (
    format_comparison,
    format_report,
    load_qa,
    read_answers,
    score_answers,
)
from foakit.errors import FormatError

# -------------------------------------------------------------------------------------
OPTS = {"A": "a", "B": "b", "C": "c", "D": "d"}


def _qa(tmp_path, items):
    """items: (segment, [(ans1, ans2, category_id), ...])"""
    recs = []
    for sid, pairs in items:
        qp = []
        for a1, a2, cid in pairs:
            qp += [{"stage": 1, "question": "q1", "options": OPTS, "answer": a1},
                   {"stage": 2, "question": "q2", "options": OPTS, "answer": a2,
                    "category_id": cid}]
        recs.append({"segment_id": sid, "audio_path": f"{sid}.wav", "qa_pairs": qp})
    p = tmp_path / "val.json"
    p.write_text(json.dumps({"records": recs}))
    return load_qa(p)


def _ans(sid, item, a1, a2):
    return {"segment_id": sid, "item": item, "stage1": a1, "stage2": a2}


def test_metrics_on_a_hand_made_case(tmp_path):
    qa = _qa(tmp_path, [("s1", [("A", "B", 1), ("C", "D", 2)]), ("s2", [("B", "B", 1)]),
                        ("s3", [("D", "A", 2)])])
    rows = [_ans("s1", 0, "A", "B"),          # both right
            _ans("s1", 1, "C", "A"),          # stage 1 only
            _ans("s2", 0, "D", "<answer>B</answer>"),  # stage 2 only
            _ans("s3", 0, "no idea", "A")]    # stage 1 unparsed, stage 2 right
    r = score_answers(qa, rows)
    o = r["overall"]
    assert (o["n"], o["A_S1"], o["A_S2"], o["A_GS2"]) == (4, 0.5, 0.75, 0.25)
    assert (o["parse_S1"], o["parse_S2"]) == (0.75, 1.0)
    sc, sl = r["by_category"]["Sound Counting"], r["by_category"]["Source Localization"]
    assert (sc["n"], sc["A_S1"], sc["A_S2"], sc["A_GS2"]) == (2, 0.5, 1.0, 0.5)
    assert (sl["n"], sl["A_S1"], sl["A_S2"], sl["A_GS2"]) == (2, 0.5, 0.5, 0.0)
    assert r["by_category"]["Action Prediction"]["A_S1"] is None
    assert r["problems"]["unparsed"] == {"S1": 1, "S2": 0}
    assert r["extract_status"]["S1"] == {"answer_tag": 0, "regex_match": 3,
                                         "no_option_found": 1, "empty_generation": 0}
    assert r["extract_status"]["S2"]["answer_tag"] == 1
    assert r["extract_status"]["S2"]["regex_match"] == 3
    assert [a["stage1_status"] for a in r["answers"]] == ["regex_match"] * 3 + [
        "no_option_found"]


def test_missing_items_count_wrong_and_are_listed(tmp_path):
    qa = _qa(tmp_path, [("s1", [("A", "B", 1), ("C", "D", 2)])])
    r = score_answers(qa, [_ans("s1", 1, "C", "D")])
    assert r["overall"]["A_GS2"] == 0.5 and r["overall"]["n"] == 2
    assert r["problems"]["missing"] == ["s1#0"]
    assert r["overall"]["parse_S1"] == 0.5


def test_unknown_item_is_an_error_naming_it(tmp_path):
    qa = _qa(tmp_path, [("s1", [("A", "B", 1)])])
    with pytest.raises(FormatError, match=r"unknown item segment_id='s1' item=1") as e:
        score_answers(qa, [dict(_ans("s1", 1, "A", "B"), _line=3)], answers_file="ans.jsonl")
    assert str(e.value).startswith("ans.jsonl:3")
    with pytest.raises(FormatError, match="segment_id='zz'"):
        score_answers(qa, [_ans("zz", 0, "A", "B")])


def test_duplicates_keep_the_first(tmp_path):
    qa = _qa(tmp_path, [("s1", [("A", "B", 1)])])
    r = score_answers(qa, [_ans("s1", 0, "A", "B"), dict(_ans("s1", 0, "C", "C"), _line=2)])
    assert r["overall"]["A_GS2"] == 1.0
    assert r["problems"]["duplicates"] == ["s1#0 (line 2)"]


def test_tables(tmp_path):
    qa = _qa(tmp_path, [("s1", [("A", "B", 1)]), ("s2", [("C", "D", 3)])])
    good = score_answers(qa, [_ans("s1", 0, "A", "B"), _ans("s2", 0, "C", "D")])
    half = score_answers(qa, [_ans("s1", 0, "A", "B"), _ans("s2", 0, "C", "A")])
    text = format_report(good)
    assert "Sound Counting" in text and "100.0" in text and "missing answers: 0" in text
    table = format_comparison({"model_x": good, "model_y": half})
    head, _, *rows = table.splitlines()
    assert head.split()[-2:] == ["model_x", "model_y"]
    gs2 = next(r for r in rows if r.startswith("overall") and "A_GS2" in r)
    assert gs2.split()[-2:] == ["100.0", "50.0"]
    td = next(r for r in rows if r.startswith("Temporal Detection") and "A_S2" in r)
    assert td.split()[-2:] == ["100.0", "0.0"]


def _log_line(sid, t1, t2):
    """An answers_log.jsonl row as the official evaluation.py writes it (fields used)."""
    return json.dumps({"segment_id": sid, "stage1_generated_text": t1,
                       "stage2_generated_text": t2, "stage1_gate": 0.5}) + "\n"


def _broken_qa(tmp_path):
    good = {"segment_id": "dev-1", "qa_pairs": [
        {"stage": 1, "question": "q1", "options": OPTS, "answer": "A"},
        {"stage": 2, "question": "q2", "options": OPTS, "answer": "B", "category_id": 1,
         "category_name": "Sound Counting"}]}
    bad = {"segment_id": "dev-2", "qa_pairs": [
        {"stage": 1, "question": "q1", "options": OPTS, "answer": "E"},
        {"stage": 2, "question": "q2", "options": OPTS, "answer": "B", "category_id": 1,
         "category_name": "Sound Counting"}]}
    third = dict(good, segment_id="dev-3")
    p = tmp_path / "dev.json"
    p.write_text(json.dumps({"records": [good, bad, third]}))
    log = tmp_path / "answers_log.jsonl"
    log.write_text(_log_line("dev-1", "A", "B") + _log_line("dev-2", "E", "B")
                   + _log_line("dev-3", "A", "C"))
    return p, log


def test_answers_for_records_dropped_at_load_are_listed_and_the_rest_scored(tmp_path):
    p, log = _broken_qa(tmp_path)
    qa = load_qa(p)
    r = score_answers(qa, read_answers(log), answers_file=log)
    o = r["overall"]
    assert (o["n"], o["A_S1"], o["A_S2"], o["A_GS2"]) == (2, 1.0, 0.5, 0.5)
    assert r["problems"]["dropped_at_load"] == [
        "dev-2#0 (line 2): dropped at load: qa_pairs[0]: answer 'E' is not among the "
        "options A, B, C, D; qa_pairs[1]: stage-2 pair dropped with its malformed stage 1"]
    assert r["problems"]["missing"] == []
    text = format_report(r)
    assert "answers for items dropped at load (not scored): 1" in text
    assert "  dev-2#0 (line 2): dropped at load: qa_pairs[0]" in text
    # an id that the QA file holds nowhere is still an error
    with pytest.raises(FormatError, match="unknown item segment_id='dev-9'"):
        score_answers(qa, [_ans("dev-9", 0, "A", "B")])
    # an item the loaded record does not have is still an error
    with pytest.raises(FormatError, match="unknown item segment_id='dev-1' item=1"):
        score_answers(qa, [_ans("dev-1", 1, "A", "B")])


def test_an_unknown_id_may_belong_to_a_record_without_readable_id(tmp_path):
    qa = _qa(tmp_path, [("s1", [("A", "B", 1)])])
    rows = json.loads((tmp_path / "val.json").read_text())["records"]
    rows.append({"qa_pairs": rows[0]["qa_pairs"]})  # no segment_id: dropped, id unknown
    (tmp_path / "val.json").write_text(json.dumps({"records": rows}))
    qa = load_qa(tmp_path / "val.json")
    r = score_answers(qa, [_ans("s1", 0, "A", "B"), dict(_ans("zz", 0, "A", "B"), _line=2)])
    assert r["overall"]["n"] == 1 and r["overall"]["A_GS2"] == 1.0
    assert r["problems"]["dropped_at_load"] == [
        f"zz#0 (line 2): not among the loaded records; records without a readable "
        f"segment_id were dropped at load: record 1 in {tmp_path / 'val.json'}: no segment_id"]


def test_cli_scores_around_a_record_dropped_at_load(tmp_path):
    p, log = _broken_qa(tmp_path)
    out = tmp_path / "report.json"
    r = subprocess.run([sys.executable, "-m", "foakit", "score", "rmsaqa", str(p), str(log),
                        "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr  # the QA problem is reported, the rest scored
    assert "QA problem: record 1 ('dev-2')" in r.stderr
    assert "answers for items dropped at load (not scored): 1" in r.stdout
    rep = json.loads(out.read_text())
    assert rep["overall"]["n"] == 2 and rep["overall"]["A_GS2"] == 0.5
    assert len(rep["problems"]["dropped_at_load"]) == 1


def test_items_without_a_valid_category_count_overall_under_unknown(tmp_path):
    """The official dataset.py refuses a category_id that is not an integer or not 1-6,
    and metrics.py a missing one, stopping the run; foakit keeps such items under
    "unknown" (with a problem line) and counts them in the overall figures."""
    def rec(sid, **cat):
        return {"segment_id": sid, "qa_pairs": [
            {"stage": 1, "question": "q1", "options": OPTS, "answer": "A"},
            {"stage": 2, "question": "q2", "options": OPTS, "answer": "B", **cat}]}
    p = tmp_path / "dev.json"
    p.write_text(json.dumps({"records": [
        rec("ok", category_id=1, category_name="Sound Counting"),
        rec("float", category_id=4.0, category_name="Spatial Relations"),
        rec("range", category_id=7, category_name="Sound Counting"),
        rec("none"), rec("name", category_name="Vibes")]}))
    qa = load_qa(p)
    assert [it.category for it in qa] == ["Sound Counting"] + ["unknown"] * 4
    r = score_answers(qa, [_ans(it.segment_id, 0, "A", "B" if i % 2 else "C")
                           for i, it in enumerate(qa)])
    assert r["overall"]["n"] == 5 and r["overall"]["correct_S2"] == 2
    assert r["by_category"]["Sound Counting"]["n"] == 1
    unknown = r["by_category"]["unknown"]
    assert (unknown["n"], unknown["correct_S1"], unknown["correct_S2"]) == (4, 4, 2)
    assert list(r["by_category"])[-1] == "unknown"
    assert len(r["problems"]["qa_problems"]) == 4


def test_lower_case_option_keys_and_answer_score_as_upper_case(tmp_path):
    """Options {"a".."d"} with answer "d": the official evaluation.py compares the
    upper-case extracted letter with "d" (never equal); foakit upper-cases both."""
    low = {k.lower(): v for k, v in OPTS.items()}
    p = tmp_path / "dev.json"
    p.write_text(json.dumps({"records": [{"segment_id": "dev-1", "qa_pairs": [
        {"stage": 1, "question": "q1", "options": low, "answer": "d"},
        {"stage": 2, "question": "q2", "options": low, "answer": "a", "category_id": 2,
         "category_name": "Source Localization"}]}]}))
    qa = load_qa(p)
    assert (qa.items[0].stage1.answer, list(qa.items[0].stage1.options)) == ("D", list("ABCD"))
    r = score_answers(qa, [_ans("dev-1", 0, "<answer>d</answer>", "The answer is A.")])
    assert r["overall"]["A_GS2"] == 1.0


def test_official_log_scores_a_record_with_numeric_options(tmp_path):
    nums = {"A": 1, "B": 2, "C": 3, "D": 4}
    p = tmp_path / "dev.json"
    p.write_text(json.dumps({"records": [{"segment_id": "dev-1", "qa_pairs": [
        {"stage": 1, "question": "How many?", "options": nums, "answer": "C"},
        {"stage": 2, "question": "q2", "options": nums, "answer": "A", "category_id": 1,
         "category_name": "Sound Counting"}]}]}))
    log = tmp_path / "answers_log.jsonl"
    log.write_text(json.dumps({"segment_id": "dev-1", "stage1_pred_option": "C",
                               "stage1_extract_status": "regex_match",
                               "stage2_pred_option": "B",
                               "stage2_extract_status": "answer_tag"}) + "\n")
    r = score_answers(load_qa(p), read_answers(log))
    o = r["overall"]
    assert (o["n"], o["A_S1"], o["A_S2"], o["A_GS2"]) == (1, 1.0, 0.0, 0.0)
    assert r["problems"]["qa_problems"] == [] and r["problems"]["dropped_at_load"] == []
