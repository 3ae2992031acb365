"""foakit score airbench against the official cal_score.py semantics.

The official rules (OFA-Sys/AIR-Bench cal_score.py, read for this test, stated here):

1. A judge line is ``strip()``-ed, every newline removed, then ``split(' ')``.  It must
   give exactly two tokens, else it is a failure (not counted as a success).
2. Both tokens go through ``int()``; if that raises, the line is a failure, but the
   script's ``success_num`` has already counted it.
3. A score above 10 calls ``exit(1)`` inside a bare ``try/except``: the ``SystemExit`` is
   caught, the line is a failure, and ``success_num`` has counted it too.  There is no
   lower bound: 0 or negative scores are summed like any other.
4. Reference-first file: Assistant 1 is the reference; a win is ``second > first``.  The
   swapped ("cir") file: the model is Assistant 1; a win is ``first > second``.
   ``gpt4_avg_score`` is the mean of the first score and ``llm_avg_score`` of the second,
   whichever answer sits there.
5. Per category (speech = speech_QA + speech_dialogue_QA, sound = sound_QA +
   sound_generation_QA, music = music_QA + music_generation_analysis_QA,
   speech_and_sound, speech_and_music): Sum = lines scored, Win_Rate = wins / Sum.
   ``percentage`` = success_num / (success_num + fail_num).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.airbench import parse_judge_line, score_judged, score_order
from foakit.bench.airbench.format import CATEGORY_OF
from foakit.bench.airbench.scoring import format_report, read_judged
from foakit.errors import FormatError, ParameterError

HAND = [("speech_QA", "8 6"), ("speech_dialogue_QA", " 7 9\n"), ("speech_QA", "8, 6"),
        ("sound_QA", "11 3"), ("sound_QA", "5 5"), ("music_QA", "0 4"),
        ("music_generation_analysis_QA", "9 10"), ("speech_and_sound_QA", "6 7\n"),
        ("speech_and_music_QA", "6\n7"), ("speech_and_music_QA", "10 2"),
        ("speech_and_sound_QA", "3 8 "), ("sound_generation_QA", "-2 4")]


def _records(lines, field="gpt-score"):
    return [{"task_name": t, field: g, "uniq_id": i} for i, (t, g) in enumerate(lines)]


def test_hand_made_reference_first_file_category_by_category():
    rep = score_order(_records(HAND), order="reference-first")
    c = rep["categories"]
    assert c["speech"] | {} == {"n": 2, "failures": 1, "mean_reference": 7.5,
                                "mean_model": 7.5, "win_rate": 0.5, "wins": 1, "ties": 0,
                                "losses": 1}
    assert (c["sound"]["n"], c["sound"]["failures"], c["sound"]["mean_reference"],
            c["sound"]["mean_model"], c["sound"]["win_rate"], c["sound"]["ties"]) == \
        (2, 1, 1.5, 4.5, 0.5, 1)
    assert (c["music"]["mean_reference"], c["music"]["mean_model"], c["music"]["win_rate"]) \
        == (4.5, 7.0, 1.0)
    assert (c["speech_and_sound"]["n"], c["speech_and_sound"]["mean_reference"],
            c["speech_and_sound"]["mean_model"], c["speech_and_sound"]["win_rate"]) == \
        (2, 4.5, 7.5, 1.0)
    assert (c["speech_and_music"]["n"], c["speech_and_music"]["failures"],
            c["speech_and_music"]["win_rate"]) == (1, 1, 0.0)
    assert rep["mixed"] == {"n": 3, "failures": 1, "mean_reference": 7.25,
                            "mean_model": 4.75, "win_rate": 0.5}
    assert rep["failures"] == {"not integers": 1, "not two space-separated values": 1,
                               "score above 10": 1}
    assert rep["below_1"] == 2
    off = rep["official"]
    # rule 2 and 3: the two-token failures are in success_num too
    assert (off["fail_num"], off["success_num"]) == (3, 11)
    assert off["percentage"] == pytest.approx(11 / 14)
    for cat, d in c.items():
        assert off[cat]["Sum"] == d["n"]
        assert off[cat]["Win_Rate"] == pytest.approx(d["win_rate"])
        assert off[cat]["gpt4_avg_score"] == pytest.approx(d["mean_reference"])
        assert off[cat]["llm_avg_score"] == pytest.approx(d["mean_model"])


def test_hand_made_swapped_file_keeps_positional_official_names():
    rep = score_order(_records(HAND), order="model-first")
    c, off = rep["categories"], rep["official"]
    # speech: "8 6" is a model win (model first), " 7 9" a loss
    assert (c["speech"]["mean_model"], c["speech"]["mean_reference"],
            c["speech"]["win_rate"]) == (7.5, 7.5, 0.5)
    # music: "0 4" and "9 10": the model (first) loses both
    assert c["music"]["win_rate"] == 0.0 and c["music"]["mean_model"] == 4.5
    for cat, d in c.items():
        assert off[cat]["Win_Rate"] == pytest.approx(d["win_rate"])
        assert off[cat]["gpt4_avg_score"] == pytest.approx(d["mean_model"])  # first = model
        assert off[cat]["llm_avg_score"] == pytest.approx(d["mean_reference"])


def test_parse_judge_line_reasons():
    assert parse_judge_line("7 8") == (7, 8)
    assert parse_judge_line("\n 10 1 \n") == (10, 1)
    assert parse_judge_line("+3 04") == (3, 4)  # int() accepts both
    assert parse_judge_line("8\n7") == "not two space-separated values"  # "87"
    assert parse_judge_line("8 \n7") == (8, 7)  # "8 7" once the newline goes
    assert parse_judge_line("8\t7") == "not two space-separated values"
    assert parse_judge_line("8  7") == "not two space-separated values"
    assert parse_judge_line("Scores: 8 7") == "not two space-separated values"
    assert parse_judge_line("8. 7") == "not integers"
    assert parse_judge_line("10 11") == "score above 10"
    assert parse_judge_line(None) == "no judge output"
    # a lenient reading would take the last two numbers; the official one refuses
    assert parse_judge_line("the answer ends with 9 10") == "not two space-separated values"


def _stated_rules(lines, cir):
    """The rules of the module docstring, written out independently of foakit."""
    tally = {}
    fail = ok = 0
    for task, text in lines:
        cat = CATEGORY_OF[task]
        tokens = text.strip().replace("\n", "").split(" ")
        if len(tokens) != 2:
            fail += 1
            continue
        ok += 1
        try:
            a, b = int(tokens[0]), int(tokens[1])
        except ValueError:
            fail += 1
            continue
        if a > 10 or b > 10:
            fail += 1
            continue
        t = tally.setdefault(cat, [0, 0, 0, 0])
        t[0] += 1
        t[1] += (a > b) if cir else (b > a)
        t[2] += a
        t[3] += b
    return tally, fail, ok


token = st.sampled_from(["1", "7", "10", "11", "0", "-3", "x", "8.", "", " ", "\n", "5"])


@given(st.lists(st.tuples(st.sampled_from(sorted(CATEGORY_OF)),
                          st.lists(token, min_size=1, max_size=4).map(" ".join)),
                max_size=40), st.booleans())
def test_score_order_equals_the_stated_official_rules(lines, cir):
    rep = score_order(_records(lines), order="model-first" if cir else "reference-first")
    tally, fail, ok = _stated_rules(lines, cir)
    off = rep["official"]
    assert (off["fail_num"], off["success_num"]) == (fail, ok)
    for cat in rep["categories"]:
        n, wins, first, second = tally.get(cat, [0, 0, 0, 0])
        assert off[cat]["Sum"] == n == rep["categories"][cat]["n"]
        if n:
            assert off[cat]["Win_Rate"] == wins / n
            assert off[cat]["gpt4_avg_score"] == first / n
            assert off[cat]["llm_avg_score"] == second / n
        else:
            assert off[cat]["Win_Rate"] is None


def test_unknown_task_is_a_failure_not_the_previous_category():
    rep = score_order([{"task_name": "speech_QA", "gen": "5 6"},
                       {"task_name": "karaoke_QA", "gen": "5 9"}])
    assert rep["failures"] == {"unknown_task": 1}
    assert rep["categories"]["speech"]["n"] == 1


def test_both_orders_combined():
    a = _records([("speech_QA", "6 8"), ("speech_QA", "7 5"), ("music_QA", "8 8"),
                  ("sound_QA", "oops")], "gen")
    b = [{"task_name": "speech_QA", "gpt-score": "9 5", "uniq_id": 0},   # model 9 ref 5
         {"task_name": "speech_QA", "gpt-score": "8 6", "uniq_id": 1},   # model 8 ref 6
         {"task_name": "music_QA", "gpt-score": "7 8", "uniq_id": 2},    # model 7 ref 8
         {"task_name": "sound_QA", "gpt-score": "4 6", "uniq_id": 3},
         {"task_name": "sound_QA", "gpt-score": "4 6", "uniq_id": 9}]
    rep = score_judged(a, b)
    comb = rep["combined"]["categories"]
    # item 0: model (8 + 9) / 2, ref (6 + 5) / 2; item 1: model (5 + 8) / 2, ref (7 + 6) / 2
    assert comb["speech"]["model_score"] == pytest.approx((8.5 + 6.5) / 2)
    assert comb["speech"]["reference_score"] == pytest.approx((5.5 + 6.5) / 2)
    assert comb["speech"]["both"] == 2
    assert comb["speech"]["agreement"] == 0.5  # item 1: loss, then win
    assert comb["speech"]["win_rate"] == 0.5  # 8.5 > 5.5; 6.5 == 6.5 is no win
    assert comb["music"]["agreement"] == 0.0  # tie, then loss
    assert comb["sound"] == {"n": 2, "both": 0, "unscored": 0, "model_score": 4.0,
                             "reference_score": 6.0, "win_rate": 0.0, "agreement": None}
    assert rep["combined"]["unpaired"] == ["9"]
    assert set(rep["orders"]) == {"reference-first", "model-first"}
    with pytest.raises(ParameterError):
        score_order(a, order="sideways")


def _both_orders():
    """Hand-made judge outputs of 6 items in both orders, as judge-requests writes them
    (``pair_id``, ``order``): (reference-first line, model-first line) per item."""
    lines = {"p0": ("speech_QA", "6 8", "9 5"), "p1": ("speech_dialogue_QA", "7 5", "8 6"),
             "p2": ("music_QA", "8 8", "7 8"), "p3": ("sound_QA", "oops", "4 6"),
             "p4": ("sound_generation_QA", "x", "11 2"), "p5": ("speech_and_music_QA",
                                                               "3 4", "5 3")}
    ref = [{"pair_id": k, "order": "reference-first", "task_name": t, "gen": a}
           for k, (t, a, _) in lines.items()]
    mod = [{"pair_id": k, "order": "model-first", "task_name": t, "gen": b}
           for k, (t, _, b) in lines.items()]
    return ref, mod


def test_one_file_with_both_orders_equals_two_files():
    ref, mod = _both_orders()
    pooled = [r for pair in zip(ref, mod, strict=True) for r in pair]  # interleaved
    two = score_judged(ref, mod)
    assert score_judged(pooled) == two
    # the order named by the records wins over the file's position
    assert score_judged(mod, ref) == two
    assert score_judged(pooled, order="model-first") == two
    o = two["orders"]
    # never pooled: each order counts each item once
    assert o["reference-first"]["scored"] == 4 and o["model-first"]["scored"] == 5
    assert o["reference-first"]["categories"]["speech"]["n"] == 2
    assert o["model-first"]["categories"]["speech"]["mean_model"] == 8.5
    assert o["reference-first"]["categories"]["speech"]["mean_model"] == 6.5
    # p4: "x" and "11 2" fail in both orders: left out of the combined figures, counted
    assert two["combined"]["categories"]["sound"]["unscored"] == 1
    assert two["combined"]["categories"]["sound"]["n"] == 1
    # one order only: no combined block, and the one order keeps its name
    one = score_judged(mod)
    assert set(one["orders"]) == {"model-first"} and "combined" not in one
    with pytest.raises(ParameterError, match="split"):
        score_order(pooled, order="reference-first")
    with pytest.raises(ParameterError, match="sideways"):
        score_judged([dict(ref[0], order="sideways")])


@given(st.lists(st.tuples(st.sampled_from(sorted(CATEGORY_OF)), st.integers(0, 5),
                          st.sampled_from(["reference-first", "model-first"]),
                          st.lists(token, min_size=1, max_size=3).map(" ".join)),
                max_size=30), st.randoms(use_true_random=False))
def test_a_pooled_file_always_equals_its_two_halves(lines, rnd):
    recs = [{"task_name": t, "pair_id": f"p{i}", "order": o, "gen": g}
            for t, i, o, g in lines]
    rnd.shuffle(recs)
    ref = [r for r in recs if r["order"] == "reference-first"]
    mod = [r for r in recs if r["order"] == "model-first"]
    pooled = score_judged(recs)
    assert pooled == score_judged(ref, mod)
    for o, half in (("reference-first", ref), ("model-first", mod)):
        if half:
            want = score_order(half, order=o)
            want.pop("items")
            assert pooled["orders"][o] == want
    assert ("combined" in pooled) == bool(ref and mod)


def test_per_task_figures_beside_the_categories():
    ref, mod = _both_orders()
    rep = score_judged(ref, mod)
    t = rep["orders"]["reference-first"]["tasks"]
    assert set(t) == set(CATEGORY_OF) and len(t) == 8
    assert (t["speech_QA"]["n"], t["speech_QA"]["mean_model"], t["speech_QA"]["wins"]) == \
        (1, 8.0, 1)
    assert (t["speech_dialogue_QA"]["mean_model"], t["speech_dialogue_QA"]["losses"]) == (5.0, 1)
    assert t["sound_QA"]["failures"] == 1 and t["sound_QA"]["n"] == 0
    assert t["sound_QA"]["win_rate"] is None
    ct = rep["combined"]["tasks"]
    assert set(ct) == set(CATEGORY_OF)
    # p0: model (8 + 9) / 2, reference (6 + 5) / 2, a win in both orders
    assert (ct["speech_QA"]["model_score"], ct["speech_QA"]["reference_score"],
            ct["speech_QA"]["agreement"]) == (8.5, 5.5, 1.0)
    assert ct["sound_generation_QA"]["unscored"] == 1
    # the category is the tasks it holds
    assert rep["combined"]["categories"]["speech"]["model_score"] == (8.5 + 6.5) / 2


def test_report_figures_are_unrounded():
    recs = [{"task_name": "music_QA", "gen": g, "uniq_id": i}
            for i, g in enumerate(["7 8", "7 7", "7 7"])]
    c = score_order(recs)["categories"]["music"]
    assert c["mean_model"] == 22 / 3 and c["win_rate"] == 1 / 3
    text = format_report(score_judged(recs))
    assert "7.333" in text and str(22 / 3) not in text


def test_read_judged_forms_and_errors(tmp_path):
    lst = tmp_path / "chat_score_cir.json"
    lst.write_text(json.dumps(_records(HAND[:3])))
    jl = tmp_path / "out.jsonl"
    jl.write_text("\n".join(json.dumps(r) for r in _records(HAND[:3], "gen")) + "\n\n")
    assert len(read_judged(lst)) == len(read_judged(jl)) == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task_name": "speech_QA", "gen": "1 2"}\n{"task_name": "speech_QA"}\n')
    with pytest.raises(FormatError, match="bad.jsonl:2"):
        read_judged(bad)
    bad.write_text('{"gen": "1 2"}\n')
    with pytest.raises(FormatError, match="task_name"):
        read_judged(bad)
    bad.write_text('{"gen": \n')
    with pytest.raises(FormatError, match="not a JSON line"):
        read_judged(bad)


def test_cli_score_and_judge_requests_round_trip(tmp_path):
    from foakit.bench.airbench.synth import write_judge_files

    items = [{"meta_info": f"m{i}", "question": f"q{i}", "answer_gt": f"a{i}",
              "path": f"{i}.wav", "task_name": t, "dataset_name": "d", "uniq_id": i}
             for i, t in enumerate(sorted(CATEGORY_OF) * 3)]
    files = write_judge_files(items, tmp_path, seed=3, malformed=4)
    out = tmp_path / "report.json"
    r = subprocess.run([sys.executable, "-m", "foakit", "score", "airbench", files["judged"],
                        files["swapped"], "-o", str(out), "--json"], capture_output=True,
                       text=True)
    assert r.returncode == 1, r.stderr  # malformed lines are reported
    rep = json.loads(out.read_text())
    assert json.loads(r.stdout)["orders"] == rep["orders"]
    truth = files["truth"]["reference-first"]
    assert rep["orders"]["reference-first"]["failed"] == sum(isinstance(v, str)
                                                            for v in truth.values())
    assert rep["orders"]["reference-first"]["scored"] == sum(isinstance(v, tuple)
                                                            for v in truth.values())
    req = tmp_path / "requests.jsonl"
    r = subprocess.run([sys.executable, "-m", "foakit", "judge-requests", "airbench",
                        files["responses"], "-o", str(req)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    reqs = [json.loads(x) for x in req.read_text().splitlines()]
    assert len(reqs) == 2 * len(items)
    # the judge's outputs in one file holding both orders, as the requests come, and the
    # same outputs split into one file per order: the same figures
    outs = [dict(q, gen=f"{3 + i % 7} {2 + (i * 5) % 9}") for i, q in enumerate(reqs)]
    both, ref, mod = (tmp_path / f"{n}.jsonl" for n in ("both", "ref", "mod"))
    both.write_text("".join(json.dumps(o) + "\n" for o in outs))
    ref.write_text("".join(json.dumps(o) + "\n" for o in outs
                           if o["order"] == "reference-first"))
    mod.write_text("".join(json.dumps(o) + "\n" for o in outs if o["order"] == "model-first"))
    reports = []
    for args in ([both], [ref, mod]):
        r = subprocess.run([sys.executable, "-m", "foakit", "score", "airbench", *map(str, args),
                            "--json"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        reports.append(json.loads(r.stdout))
    assert reports[0]["orders"] == reports[1]["orders"]
    assert reports[0]["combined"] == reports[1]["combined"]
    assert reports[0]["orders"]["reference-first"]["scored"] == len(items)
    r = subprocess.run([sys.executable, "-m", "foakit", "score", "airbench",
                        str(tmp_path / "nope.jsonl")], capture_output=True, text=True)
    assert r.returncode == 2 and "no such file" in r.stderr


def test_cli_error_paths(tmp_path):
    resp = tmp_path / "resp.jsonl"
    resp.write_text(json.dumps({"path": "a.wav", "question": "q", "answer_gt": "a",
                                "task_name": "speech_QA", "dataset_name": "d",
                                "response": None, "meta_info": "m"}) + "\n")
    base = [sys.executable, "-m", "foakit"]
    r = subprocess.run(base + ["judge-requests", "airbench", str(resp), "-o",
                               str(tmp_path / "req.jsonl")], capture_output=True, text=True)
    assert r.returncode == 1 and "no response" in r.stderr
    r = subprocess.run(base + ["judge-requests", "airbench", str(tmp_path / "x.jsonl"), "-o",
                               str(tmp_path / "req.jsonl")], capture_output=True, text=True)
    assert r.returncode == 2 and "no such file" in r.stderr
    r = subprocess.run(base + ["judge-requests"], capture_output=True, text=True)
    assert r.returncode == 2
    judged = tmp_path / "j.jsonl"
    judged.write_text(json.dumps({"task_name": "music_QA", "gen": "7 8"}) + "\n")
    r = subprocess.run(base + ["score", "airbench", str(judged), "--order", "model-first"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "model-first (Assistant 1 = model)" in r.stdout
    judged.write_text('{"task_name": "music_QA"}\n')
    r = subprocess.run(base + ["score", "airbench", str(judged)], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "j.jsonl:1" in r.stderr
