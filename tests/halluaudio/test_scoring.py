"""HalluAudio scoring: every rule of the seed on hand-made cases, baselines, judge requests,
and the CLI end to end (real subprocess runs on real parquet files)."""

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.halluaudio import format as fmt
from foakit.bench.halluaudio.baselines import ABSTAIN_TEXT, baseline_responses
from foakit.bench.halluaudio.judge import judge_requests, leaks
from foakit.bench.halluaudio.scoring import (
    SCORER_VERSION,
    extract_choice,
    normalize,
    read_judge_labels,
    read_responses,
    score,
    score_case,
    violated_claims,
)
from foakit.bench.halluaudio.synth import write_corpus

from .rows import case, row, write_rows

KEYS = "ABCD"


@pytest.mark.parametrize("text,key", [
    ("<answer>B</answer>", "B"), ("<answer> (c) </answer>", "C"),
    ("The answer is C.", "C"), ("Not A; the answer is B", "B"), ("Answer: d", "D"),
    ("Option (c)", "C"), ("Đáp án: C", "C"), ("B is correct", "B"), ("(A) is the answer", "A"),
    ("B) because the voice is clear", "B"), ("**D**", "D"), ("b", "B"), ("A.", "A"),
    ("I think C", "C"), ("Yes, someone is speaking", "A"),
    ("A or B", None), ("B, C", None), ("A dog barks", None), ("the answer is a dog", None),
    ("I think it is C, not D", None), ("", None), ("nothing here", None),
])
def test_extract_choice(text, key):
    assert extract_choice(text, KEYS, {"A": "Yes, someone is speaking",
                                       "B": "No, there is no speech"}) == key


@given(st.sampled_from(list(KEYS)), st.sampled_from(["{}", "({})", "{}.", "Answer: {}",
                                                     "<answer>{}</answer>", "{}) why"]),
       st.text(alphabet="xyz \n", max_size=20))
def test_extract_choice_finds_a_stated_key(key, pattern, tail):
    assert extract_choice(pattern.format(key) + "\n" + tail, KEYS) == key


def test_normalize():
    assert normalize("  Turn ON, the  Light!! ") == "turn on the light"
    assert normalize("Ｔｕｒｎ") == "turn"  # NFKC full-width


def mk(**kw):
    return fmt.parse_case(case(**kw), audio_id="a", config="multiple_choice", index=0,
                          level="L1")


def test_rules_exact_normalized_multiple_choice():
    ex = mk(scoring="exact_match", expected_result="2", choice_options=None)
    assert score_case(ex, " 2 ")["pass"] and not score_case(ex, "two")["pass"]
    assert not score_case(ex, "2.")["pass"]  # literal
    nm = mk(scoring="normalized_match", expected_result="Turn on the light.",
            approved_aliases=["switch the light on"], choice_options=None,
            transcript_status="reliable")
    assert score_case(nm, "turn ON the light")["pass"]
    assert score_case(nm, "Switch the light on!")["pass"]
    assert not score_case(nm, "turn on the lights")["pass"]
    mc = mk()
    r = score_case(mc, "A) yes. Reason: a voice")
    assert r["pass"] and r["selected"] == "A" and r["score"] == 1.0
    r = score_case(mc, "I cannot tell")
    assert not r["pass"] and r["score_label"] == "no_answer"
    for rec in (r, score_case(ex, "2")):
        for k in ("score_label", "pass", "score", "judge_rationale",
                  "violated_forbidden_claims", "scorer_version"):
            assert k in rec
        assert rec["scorer_version"] == SCORER_VERSION


def test_reason_scored_for_the_option_only():
    c = mk(asks_reason=True, prompt_mode="constrained")
    assert score_case(c, "A. Because I hear a clear male voice near the mic.")["pass"]


def test_forbidden_claim_fails_even_the_right_option():
    c = mk(forbidden_claims=["turn on the light", {"text": "a number", "pattern": r"\d+"}])
    r = score_case(c, "A, the user says: Turn on the light")
    assert not r["pass"] and r["score_label"] == "forbidden_claim"
    assert r["violated_forbidden_claims"] == ["turn on the light"]
    r = score_case(c, "A, set it to 24")
    assert r["violated_forbidden_claims"] == [{"text": "a number", "pattern": r"\d+"}]
    assert score_case(c, "A")["pass"]
    assert violated_claims("turn on the lights", ["turn on the light"]) == []


def test_incomplete_counted_never_scored(tmp_path):
    write_rows(tmp_path / "multiple_choice" / "a.parquet",
               [row("a", [case(case_id="ok"), case(case_id="draft", expected_result=None)])])
    c = fmt.load_corpus(tmp_path)
    rep = score(c, {("a", "multiple_choice", "ok"): "A", ("a", "multiple_choice", "draft"): "A"})
    t = rep["closed"]["natural"]["all"]
    assert t["cases"] == 2 and t["scored"] == 1 and t["incomplete"] == 1 and t["rate"] == 1.0
    draft = next(r for r in rep["records"] if r["case_id"] == "draft")
    assert draft["status"] == "incomplete" and draft["pass"] is None


def test_modes_and_levels_reported_apart(tmp_path):
    rows = [row(f"a{i}", [case(case_id="n", prompt_mode="natural"),
                          case(case_id="c", prompt_mode="constrained")],
                level=("L1", "L6")[i % 2]) for i in range(4)]
    write_rows(tmp_path / "multiple_choice" / "a.parquet", rows)
    c = fmt.load_corpus(tmp_path)
    resp = {k: ("A" if k[2] == "n" else "B") for k in c.case_index()}
    resp[("a1", "multiple_choice", "c")] = "A"
    rep = score(c, resp)["closed"]
    # the dataset card: natural and constrained prompts are never merged into one metric,
    # so there is no all-modes rate and every breakdown sits inside a mode
    assert set(rep) == {"natural", "constrained"}
    assert rep["natural"]["all"]["rate"] == 1.0
    assert rep["constrained"]["all"]["rate"] == 0.25
    assert rep["constrained"]["by_level"]["L6"]["rate"] == 0.5
    assert rep["constrained"]["by_level"]["L1"]["rate"] == 0.0
    assert rep["natural"]["by_level"]["L6"]["rate"] == 1.0
    for mode in rep.values():
        assert set(mode) == {"all", "by_level", "by_rule", "by_config"}
        assert mode["by_rule"]["multiple_choice"]["scored"] == 4
        assert mode["by_config"]["multiple_choice"]["scored"] == 4


def open_corpus(tmp_path):
    cases = [case(case_id=f"o{i}", scoring="llm_judge", choice_options=None,
                  expected_result="", prompt_mode=("natural", "constrained")[i % 2],
                  **({"partial_passes": True} if i == 5 else {})) for i in range(7)]
    write_rows(tmp_path / "open_freeform" / "o.parquet", [row("v", cases, level="L6")])
    return fmt.load_corpus(tmp_path)


def test_open_cases_from_judge_labels(tmp_path):
    c = open_corpus(tmp_path)
    labels = ["correct", "partial", "hallucinated", "refusal", "correct", "partial", "bogus"]
    lab = tmp_path / "labels.jsonl"
    lines = [json.dumps({"audio_id": "v", "config": "open_freeform", "case_id": f"o{i}",
                         "score_label": lab_, "judge_rationale": f"r{i}",
                         "violated_forbidden_claims": ["x"] if i == 4 else []})
             for i, lab_ in enumerate(labels)]
    lab.write_text("\n".join(lines + ["{bad"]) + "\n")
    judge, problems = read_judge_labels(lab, c)
    assert len(problems) == 2 and any("bogus" in p for p in problems)
    resp = {k: "something" for k in c.case_index()}
    rep = score(c, resp, judge=judge)
    nat, con = rep["open"]["natural"]["all"], rep["open"]["constrained"]["all"]
    # natural o0 o2 o4 o6: o0 correct passes; o4 correct with a violated claim fails; o6
    # awaits the judge.  constrained o1 o3 o5: o5's partial is allowed, o1's is not
    assert (nat["scored"], nat["passed"], nat["awaiting_judge"]) == (3, 1, 1)
    assert (con["scored"], con["passed"], con["partial"]) == (3, 1, 2)
    rec = {r["case_id"]: r for r in rep["records"]}
    assert rec["o4"]["pass"] is False and rec["o4"]["violated_forbidden_claims"] == ["x"]
    assert rec["o0"]["judge_rationale"] == "r0"
    assert rep["closed"] == {}
    no_labels = score(c, resp)
    assert no_labels["case_counts"] == {"awaiting_judge": 7}
    assert all(m["all"]["scored"] == 0 for m in no_labels["open"].values())


def test_responses_by_index_duplicates_and_unknown(tmp_path):
    c = open_corpus(tmp_path)
    p = tmp_path / "r.jsonl"
    p.write_text("\n".join([
        json.dumps({"audio_id": "v", "config": "open_freeform", "case_index": 2,
                    "response": "x"}),
        json.dumps({"audio_id": "v", "config": "open_freeform", "case_id": "o2",
                    "response": "y"}),
        json.dumps({"audio_id": "nope", "config": "open_freeform", "case_id": "o1",
                    "response": "y"}),
        json.dumps({"audio_id": "v", "config": "open_freeform", "case_id": "o3",
                    "response": 5}),
        "[1]"]) + "\n")
    resp, problems = read_responses(p, c)
    assert resp == {("v", "open_freeform", "o2"): "x"}
    assert len(problems) == 4


def test_missing_response_counted_failed(tmp_path):
    write_rows(tmp_path / "multiple_choice" / "a.parquet", [row("a", [case()])])
    rep = score(fmt.load_corpus(tmp_path), {})
    t = rep["closed"]["natural"]["all"]
    assert t["no_response"] == 1 and t["rate"] == 0.0 and rep["case_counts"]["no_response"] == 1


@pytest.mark.parametrize("family", ["tune", "report", "wide"])
def test_baselines(tmp_path, family):
    write_corpus(tmp_path, n_audio=18, seed=11, family=family)
    c = fmt.load_corpus(tmp_path)
    for kind in ("oracle", "abstain", "prior"):
        rs = baseline_responses(c, kind)
        assert len(rs) == sum(1 for _ in c.cases())
        resp = {(r["audio_id"], r["config"], r["case_id"]): r["response"] for r in rs}
        rep = score(c, resp)
        modes = rep["closed"]
        assert set(modes) == {"natural", "constrained"}
        if kind == "oracle":
            assert all(m["all"]["rate"] == 1.0 and m["all"]["scored"] > 0
                       for m in modes.values())
        elif kind == "abstain":
            assert all(0 < m["all"]["rate"] < 1 for m in modes.values())
            assert all(ABSTAIN_TEXT in r["response"] for r in rs)
    # the decline option is right exactly where the label says the content is not supported
    rs = {(r["audio_id"], r["config"], r["case_id"]): r for r in baseline_responses(
        c, "abstain")}
    for cs in c.cases():
        if cs.case_id.endswith("intent-natural"):
            rec = score_case(cs, rs[cs.key]["response"])
            assert rec["pass"] == (cs.expected_result_class != "supported")


def test_judge_requests_and_no_leaks(tmp_path):
    write_corpus(tmp_path, n_audio=10, seed=2)
    c = fmt.load_corpus(tmp_path)
    resp = {(r["audio_id"], r["config"], r["case_id"]): r["response"]
            for r in baseline_responses(c, "abstain")}
    reqs, missing = judge_requests(c, resp)
    n_open = sum(1 for x in c.cases() if not x.closed)
    n_reason = sum(1 for x in c.cases() if x.closed and x.asks_reason and x.complete)
    n_undecided = sum(1 for x in c.cases() if x.closed and score_case(
        x, resp[x.key])["status"] == "needs_judge")
    assert n_reason > 0 and not missing
    assert len(reqs) == n_open + n_reason + n_undecided
    assert sum(q["part"] == "reason" for q in reqs) == n_reason
    assert all(q["request_id"].endswith("#reason") == (q["part"] == "reason") for q in reqs)
    for q in reqs:
        for k in ("prompt", "response", "ground_truth", "expected_result",
                  "expected_result_class", "expected_intent", "rubric", "forbidden_claims",
                  "hallucination_if"):
            assert k in q
    assert not leaks(c)
    for cs in c.cases():
        mi = cs.model_input()
        assert set(mi) <= {"audio_id", "config", "case_id", "prompt", "choice_options"}
    leaky = fmt.parse_case({"prompt": "Did they say turn on the light?", "scoring": "llm_judge",
                            "expected_result": "turn on the light"}, audio_id="q",
                           config="open_freeform", index=0, level="L1")
    c.audios["q"] = fmt.Audio("q", "L1", {}, [leaky], ["open_freeform"], [])
    assert leaks(c) == ["q/open_freeform/0: the prompt contains 'turn on the light'"]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "foakit", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_cli_end_to_end(tmp_path):
    root = tmp_path / "root"
    write_corpus(root, n_audio=10, seed=4, layout="hf_cache")
    resp = tmp_path / "oracle.jsonl"
    r = run_cli("baseline", "halluaudio", root, "--kind", "oracle", "-o", resp)
    assert r.returncode == 0, r.stderr
    r = run_cli("score", "halluaudio", root, resp, "-o", tmp_path / "rep.json", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads((tmp_path / "rep.json").read_text())
    assert all(m["all"]["rate"] == 1.0 for m in rep["closed"].values())
    assert len(rep["records"]) == rep["cases"]
    assert json.loads(r.stdout)["closed"] == rep["closed"]
    req = tmp_path / "req.jsonl"
    r = run_cli("judge-requests", "halluaudio", root, resp, "-o", req)
    assert r.returncode == 0, r.stderr
    reqs = [json.loads(x) for x in req.read_text().splitlines()]
    assert {q["part"] for q in reqs} == {"answer", "reason"}
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"audio_id": q["audio_id"], "config": q["config"],
                                          "case_id": q["case_id"], "part": q["part"],
                                          "score_label": "correct",
                                          "judge_rationale": "ok"}) + "\n" for q in reqs))
    r = run_cli("score", "halluaudio", root, resp, "--judge-labels", labels)
    assert r.returncode == 0, r.stderr
    for mode in ("natural", "constrained"):
        assert f"open pass rate (judge), {mode}: 100.0 %" in r.stdout
    assert "reason pass rate (judge), constrained: 100.0 %" in r.stdout
    # a response missing, and a bad line: reported, exit 1, the rest scored
    lines = resp.read_text().splitlines()
    resp.write_text("\n".join(lines[1:] + ["{oops"]) + "\n")
    r = run_cli("score", "halluaudio", root, resp)
    assert r.returncode == 1 and "not JSON" in r.stderr and "no response" in r.stderr
    r = run_cli("score", "halluaudio", tmp_path / "missing", resp)
    assert r.returncode == 2 and "not a folder" in r.stderr
    r = run_cli("baseline", "halluaudio", root, "--kind", "nope", "-o", resp)
    assert r.returncode == 2
