"""RMS-AQA answer extraction (every rule, in order) and A_S1 / A_S2 / A_GS2 scoring."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.rmsaqa import (
    extract_letter,
    format_comparison,
    format_report,
    load_qa,
    score_answers,
)
from foakit.errors import FormatError


@pytest.mark.parametrize("text, letter, rule", [
    # 1. the <answer> tag
    ("<answer>B</answer>", "B", "tag"),
    ("Thinking... <answer> (c) </answer>", "C", "tag"),
    ("<ANSWER>D) a dog</ANSWER>", "D", "tag"),
    ("<answer>b</answer>", "B", "tag"),
    # the tag wins over an earlier "answer is" phrase and over line-initial letters
    ("The answer is A.\n<answer>C</answer>", "C", "tag"),
    ("A) cat\nB) dog\n<answer>B</answer>", "B", "tag"),
    # 2. "answer is X"
    ("The answer is (B).", "B", "answer_is"),
    ("answer: C", "C", "answer_is"),
    ("Final answer - D", "D", "answer_is"),
    ("The correct option is A because ...", "A", "answer_is"),
    ("My choice: [b]", "B", "answer_is"),
    ("The answer is option C", "C", "answer_is"),
    ("A) looks wrong. The answer is D.", "D", "answer_is"),  # before line-initial letters
    # 3. a letter opening a line
    ("B) the dog is on the left", "B", "line_start"),
    ("Hmm.\nC. Three sources", "C", "line_start"),
    ("(D): behind you", "D", "line_start"),
    ("A: speech", "A", "line_start"),
    # 4. a lone letter when it is the only candidate
    ("B", "B", "lone"),
    ("b", "B", "lone"),
    ("(C)", "C", "lone"),
    ("I would go with C here.", "C", "lone"),
    ("A dog barks, so D.", "D", "lone"),  # the article "A" is not a candidate
    ("A is correct", "A", "lone"),
])
def test_each_extraction_rule(text, letter, rule):
    assert extract_letter(text) == (letter, rule)


@pytest.mark.parametrize("text", [
    None, "", "I am not sure", "The answer is a dog", "A) cat\nB) dog\nC) bird",
    "Either B or C", "<answer>the dog</answer> B", "E", "answer: E",
    "A dog barking near the door",
])
def test_unparsed_answers(text):
    assert extract_letter(text) == (None, None)


def test_only_the_items_letters_count():
    assert extract_letter("C", ("A", "B")) == (None, None)
    assert extract_letter("The answer is C. Or B", ("A", "B")) == ("B", "lone")


_LETTER = st.sampled_from("ABCD")
_FILLER = st.text(alphabet=st.sampled_from(list("abcdefghij klmnop,.!?\n")), max_size=40)


@given(_LETTER, _FILLER, _FILLER)
def test_tag_is_found_anywhere(letter, before, after):
    assert extract_letter(f"{before}<answer>{letter}</answer>{after}")[0] == letter


@given(_LETTER, _FILLER)
def test_answer_is_phrase_after_lower_case_text(letter, before):
    assert extract_letter(f"{before} The answer is ({letter}).")[0] == letter


@given(st.text(max_size=200))
def test_any_text_gives_a_letter_or_none(text):
    letter, rule = extract_letter(text)
    assert (letter is None) == (rule is None)
    assert letter is None or letter in "ABCD"


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
    assert r["rules"]["S2"]["tag"] == 1 and r["rules"]["S2"]["lone"] == 3


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
