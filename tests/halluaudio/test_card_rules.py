"""HalluAudio: each rule of the dataset card on hand-made cases.

The card (``luvox-ai/HalluAudio``, "Evaluation protocol"): natural and constrained prompt
modes are never merged into one metric; a matched forbidden claim is a hard failure, and a
calibrated abstention is what the benchmark rewards; a multiple-choice case needs a
reliable expected key; ``binary`` / ``open_constrained`` selections are multiple-choice
cases with options; ``normalized_match`` only when the human transcript is marked
reliable, else the open judge path; a requested reason is judged apart from the option;
``partial`` passes only where the rubric allows it; ``not_applicable`` cases use their
closed-answer rule.
"""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.halluaudio import format as fmt
from foakit.bench.halluaudio.judge import judge_requests
from foakit.bench.halluaudio.scoring import (
    claim_matches,
    read_judge_labels,
    score,
    score_case,
)

from .rows import case, row, write_rows


def mk(config="multiple_choice", gt=None, **kw):
    return fmt.parse_case(case(**kw), audio_id="a", config=config, index=0, level="L6",
                          ground_truth=gt)


# ---------------------------------------------------------------- forbidden claims

@pytest.mark.parametrize("response,claim,reading", [
    # negated mentions and calibrated abstentions: no claim made
    ("B. No - I can't tell what the speaker says", "the speaker says", "none"),
    ("B. No - I can't tell what the speaker says", "what the speaker says", "none"),
    ("I cannot hear a dog barking", "a dog barking", "none"),
    ("I cannot hear a dog barking.", "dog barking", "none"),
    ("I cannot hear a dog and a cat barking", "a cat barking", "none"),
    ("There is no speech in this clip", "speech", "none"),
    ("Nobody is talking about the lights", "the lights", "none"),
    ("I'm unable to make out any words, so I won't guess the request", "the request",
     "none"),
    ("Không nghe rõ người nói nói gì", "người nói nói", "none"),
    ("It is not true that there is no speech", "no speech", "none"),
    ("It is hard to tell what the speaker says", "the speaker says", "none"),
    # a negation governs the claim's own verb phrase, across a comma or "and" only into a
    # part without a verb of its own
    ("No, I can't tell what the speaker says", "the speaker says", "none"),
    ("There is no dog barking", "dog barking", "none"),
    ("I don't hear a dog", "a dog", "none"),
    ("No, there is no dog barking", "dog barking", "none"),
    ("I cannot hear a dog, a cat or a bird barking", "a bird barking", "none"),
    ("I can't hear the speaker's voice, a dog barking", "a dog barking", "none"),
    ("At 10:30 I cannot hear a dog barking", "a dog barking", "none"),
    # made claims: violations
    ("A dog is barking in the background", "a dog is barking", "violated"),
    ("The speaker says turn on the light", "the speaker says", "violated"),
    ("There is no speech in this audio", "no speech", "violated"),
    ("I can't hear well, but the speaker says turn on the light", "the speaker says",
     "violated"),
    ("There is no doubt the speaker says hello", "the speaker says", "violated"),
    ("I cannot tell. The user wants the AC on", "the user wants the ac on", "violated"),
    # a one-word answer, a remark or a clause of its own before the claim denies nothing
    ("No, the speaker says hello.", "the speaker says hello", "violated"),
    ("No problem: the speaker says hello", "the speaker says hello", "violated"),
    ("Nothing unusual, the speaker says hello", "the speaker says hello", "violated"),
    ("It is not noisy and the speaker says hello", "the speaker says hello", "violated"),
    ("Without noise, the speaker says hello", "the speaker says hello", "violated"),
    ("I don't know, the speaker says hello", "the speaker says", "violated"),
    ("There's no speech, just a dog barking", "a dog barking", "violated"),
    ("I cannot hear a dog, only a cat barking", "a cat barking", "violated"),
    ("turn on the lights", "turn on the light", "none"),  # whole words only
    # the local scorer cannot decide: the judge's call
    ("Maybe the speaker says turn on the light", "turn on the light", "uncertain"),
    ("It sounds like a dog barking", "a dog barking", "uncertain"),
    ("Có lẽ người nói muốn bật đèn", "bật đèn", "uncertain"),
    ("Did the speaker say turn on the light? I can't tell", "turn on the light",
     "uncertain"),
    ("A dog barking is not audible", "a dog barking", "uncertain"),
    ("I can't say that nobody speaks", "speaks", "uncertain"),
    ("No, a dog barking", "a dog barking", "uncertain"),  # a remark or an elided verb
    ("Không nghe rõ, người nói nói gì", "người nói nói", "uncertain"),
])
def test_claim_reading(response, claim, reading):
    violated, uncertain = claim_matches(response, [claim])
    got = "violated" if violated else "uncertain" if uncertain else "none"
    assert got == reading


def test_regex_claims_are_read_in_their_clause_too():
    c = {"text": "a number", "pattern": r"\d+"}
    assert claim_matches("A, set it to 24", [c]) == ([c], [])
    assert claim_matches("A. I cannot hear any number like 24", [c]) == ([], [])
    assert claim_matches("A", [c]) == ([], [])


CLAIMS = ["the speaker says", "a dog barking", "turn on the light", "the user wants"]
DENY = ["I cannot hear", "I can't tell", "There is no", "I don't know", "I did not hear",
        "Không nghe thấy", "I am unable to say"]


@given(st.sampled_from(CLAIMS), st.sampled_from(DENY), st.sampled_from(["", ".", "!"]))
def test_a_denied_claim_is_never_a_violation(claim, deny, end):
    assert claim_matches(f"{deny} {claim}{end}", [claim])[0] == []


@given(st.sampled_from(CLAIMS), st.sampled_from(["I hear", "Clearly", "Yes,", "B."]))
def test_a_stated_claim_is_a_violation(claim, lead):
    assert claim_matches(f"{lead} {claim}", [claim])[0] == [claim]


STATED = ["the speaker says hello", "a dog is barking", "the user wants the light on",
          "someone asks for help"]
REMARK = ["No,", "No problem:", "Nothing unusual,", "Not at all,", "No -", "Without noise,",
          "It is not noisy and", "There is no music, and", "I don't know,", "No. Yes,"]


@given(st.sampled_from(STATED), st.sampled_from(REMARK), st.sampled_from(["", ".", "!"]))
def test_a_negated_remark_before_a_stated_claim_hides_nothing(claim, remark, end):
    # the remark's negation governs the remark, not the claim's own subject and verb
    assert claim_matches(f"{remark} {claim}{end}", [claim])[0] == [claim]


@given(st.sampled_from(["a dog barking", "a cat barking", "music playing"]),
       st.sampled_from(DENY), st.sampled_from([", ", " and ", ", or "]))
def test_a_denial_reaches_a_verbless_list_after_a_comma(claim, deny, join):
    assert claim_matches(f"{deny} a radio{join}{claim}", [claim])[0] == []


def test_abstention_passes_the_case_and_a_made_claim_fails_it():
    c = mk(prompt="Can you understand what is said? A. Yes B. No",
           choice_options={"A": "Yes", "B": "No"}, expected_result="B",
           expected_result_class="insufficient",
           forbidden_claims=["the speaker says", "a dog barking"])
    r = score_case(c, "B. No - I can't tell what the speaker says")
    assert r["pass"] and r["score_label"] == "correct" and r["violated_forbidden_claims"] == []
    r = score_case(c, "B. No. I cannot hear a dog barking either")
    assert r["pass"]
    r = score_case(c, "B. No, but the speaker says turn it off")
    assert not r["pass"] and r["score_label"] == "forbidden_claim"
    assert r["violated_forbidden_claims"] == ["the speaker says"]


def test_a_one_word_answer_before_a_claim_does_not_hide_it():
    c = mk(prompt="What do you hear? A. Speech B. Music C. Nothing intelligible",
           choice_options={"A": "Speech", "B": "Music", "C": "Nothing intelligible"},
           expected_result="C", forbidden_claims=["the speaker says hello"])
    r = score_case(c, "C. No, the speaker says hello.")
    assert r["selected"] == "C" and not r["pass"] and r["score_label"] == "forbidden_claim"
    assert r["violated_forbidden_claims"] == ["the speaker says hello"]
    r = score_case(c, "C. No - I can't tell whether the speaker says hello")
    assert r["pass"] and r["score_label"] == "correct"


# ---------------------------------------------------------------- needs the judge

def test_undecidable_matches_need_the_judge_never_fail(tmp_path):
    c = mk(choice_options={"A": "Yes", "B": "No"}, expected_result="B",
           forbidden_claims=["turn on the light"], rubric="Correct when calibrated.")
    r = score_case(c, "B. Maybe they say turn on the light")
    assert r["status"] == "needs_judge" and r["pass"] is None and r["score"] is None
    assert r["uncertain_forbidden_claims"] == ["turn on the light"]
    # several options named, none selected: the judge reads which
    r = score_case(c, "I think it is B, not A")
    assert r["status"] == "needs_judge" and "several options" in r["judge_rationale"]
    # the wrong option fails whatever the claims say: nothing left to judge
    r = score_case(c, "A. Maybe they say turn on the light")
    assert r["status"] == "scored" and not r["pass"] and r["score_label"] == "incorrect"
    ex = mk(scoring="exact_match", choice_options=None, expected_result="0",
            forbidden_claims=["turn on the light"])
    r = score_case(ex, "2, maybe turn on the light")
    assert r["status"] == "scored" and r["score_label"] == "incorrect"
    # the judge's label decides what was left open
    ok = {"score_label": "correct", "judge_rationale": "a calibrated guess",
          "violated_forbidden_claims": []}
    bad = {"score_label": "hallucinated", "judge_rationale": "states the request",
           "violated_forbidden_claims": ["turn on the light"]}
    assert score_case(c, "B. Maybe they say turn on the light", ok)["pass"] is True
    r = score_case(c, "B. Maybe they say turn on the light", bad)
    assert r["pass"] is False and r["score_label"] == "forbidden_claim"
    assert r["violated_forbidden_claims"] == ["turn on the light"]


ABC = {"A": "Yes, clearly", "B": "Yes, faintly", "C": "No one speaks"}


@pytest.mark.parametrize("response", [
    "A or B", "B or A", "either A or B", "Either B or A.", "A and B", "B and A",
    "A, B", "B/A", "Neither A nor B", "It is A or B", "I'd say B or A"])
def test_naming_several_options_needs_the_judge_in_any_order(response):
    # expected C: no named option is right, but the local scorer cannot tell what the
    # response picks, whichever option it names first
    c = mk(choice_options=ABC, expected_result="C")
    r = score_case(c, response)
    assert r["status"] == "needs_judge" and r["pass"] is None
    assert "several options" in r["judge_rationale"] and "selected" not in r


@pytest.mark.parametrize("expected", ["A", "C"])
def test_the_article_a_names_no_option(expected):
    c = mk(choice_options=ABC, expected_result=expected)
    for response in ("A dog is barking", "A dog and a cat are barking"):
        r = score_case(c, response)
        assert r["status"] == "scored" and r["score_label"] == "no_answer"
        assert r["pass"] is False
    # the article beside a named option: one option named, so no judge is needed
    r = score_case(c, "A dog barks, so B")
    assert r["status"] == "scored" and r["selected"] == "B"


@given(st.sampled_from(["A", "B", "C"]), st.sampled_from(["A", "B", "C"]),
       st.sampled_from([" or ", " and ", ", ", "/", " or maybe "]),
       st.sampled_from(["", "either ", "It is ", "Maybe "]))
def test_the_order_options_are_named_in_does_not_change_the_result(k1, k2, join, lead):
    c = mk(choice_options=ABC, expected_result="C")
    one, other = (score_case(c, f"{lead}{x}{join}{y}") for x, y in ((k1, k2), (k2, k1)))
    assert (one["status"], one["score_label"]) == (other["status"], other["score_label"])
    if k1 != k2 and join != " or maybe ":
        assert one["status"] == "needs_judge"


def test_needs_judge_is_counted_apart_and_requested_with_the_rubric(tmp_path):
    cases = [case(case_id="hedge", expected_result="B", rubric="R-hedge",
                  forbidden_claims=["turn on the light"]),
             case(case_id="clean", expected_result="B")]
    write_rows(tmp_path / "multiple_choice" / "a.parquet", [row("a", cases, level="L6")])
    c = fmt.load_corpus(tmp_path)
    resp = {("a", "multiple_choice", "hedge"): "B, perhaps: turn on the light",
            ("a", "multiple_choice", "clean"): "B"}
    rep = score(c, resp)
    t = rep["closed"]["natural"]["all"]
    assert (t["scored"], t["passed"], t["needs_judge"], t["rate"]) == (1, 1, 1, 1.0)
    reqs, _ = judge_requests(c, resp)
    assert [q["case_id"] for q in reqs] == ["hedge"]
    q = reqs[0]
    assert q["part"] == "answer" and q["rubric"] == "R-hedge"
    assert q["forbidden_claims"] == ["turn on the light"] and "why_judged" in q
    assert q["local_reading"]["uncertain_forbidden_claims"] == ["turn on the light"]
    lab = tmp_path / "labels.jsonl"
    lab.write_text(json.dumps({"audio_id": "a", "config": "multiple_choice",
                               "case_id": "hedge", "score_label": "hallucinated",
                               "judge_rationale": "guesses the request",
                               "violated_forbidden_claims": ["turn on the light"]}) + "\n")
    judge, problems = read_judge_labels(lab, c)
    assert not problems
    t = score(c, resp, judge=judge)["closed"]["natural"]["all"]
    assert (t["scored"], t["passed"], t["needs_judge"], t["violated_forbidden"]) == (2, 1, 0, 1)


# ---------------------------------------------------------------- modes never merged

def test_no_figure_merges_prompt_modes(tmp_path):
    cases = [case(case_id=f"{m}{i}", prompt_mode=m,
                  scoring=("multiple_choice", "binary", "exact_match")[i % 3],
                  **({"choice_options": None, "expected_result": "1"} if i % 3 == 2
                     else {"expected_result": "AB"[i % 2]}))
             for m in ("natural", "constrained") for i in range(6)]
    cases.append(case(case_id="nomode", prompt_mode=None))
    write_rows(tmp_path / "multiple_choice" / "a.parquet",
               [row("a", cases, level="L2"), row("b", cases, level="L6")])
    op = [case(case_id=f"o{m}", prompt_mode=m, scoring="llm_judge", choice_options=None,
               expected_result="") for m in ("natural", "constrained")]
    write_rows(tmp_path / "open_freeform" / "o.parquet", [row("a", op, level="L2")])
    c = fmt.load_corpus(tmp_path)
    rep = score(c, {k: "A" for k in c.case_index()})
    for kind in ("closed", "open", "reason"):
        for mode, block in rep[kind].items():
            mine = [r for r in rep["records"] if (r["prompt_mode"] or "unspecified") == mode
                    and (r["kind"] == kind if kind != "reason" else r.get("reason"))]
            assert block["all"]["cases"] == len(mine)
            for name in ("by_level", "by_rule", "by_config"):
                assert sum(t["cases"] for t in block[name].values()) == len(mine)
    assert set(rep["closed"]) == {"natural", "constrained", "unspecified"}
    assert set(rep["open"]) == {"natural", "constrained"}
    assert not any(k in rep["closed"] for k in ("all", "by_level", "by_prompt_mode"))


# ---------------------------------------------------------------- closed rules

def test_expected_key_not_among_the_options_is_incomplete(tmp_path):
    c = mk(choice_options={"A": "Yes", "B": "No"}, expected_result="C")
    assert not c.complete and "not among the options" in c.incomplete_reason
    r = score_case(c, "C")
    assert r["status"] == "incomplete" and r["pass"] is None
    write_rows(tmp_path / "multiple_choice" / "a.parquet",
               [row("a", [case(case_id="bad", expected_result="C"), case(case_id="ok")])])
    rep = score(fmt.load_corpus(tmp_path), {("a", "multiple_choice", "bad"): "C",
                                            ("a", "multiple_choice", "ok"): "A"})
    t = rep["closed"]["natural"]["all"]
    assert (t["scored"], t["passed"], t["incomplete"], t["rate"]) == (1, 1, 1, 1.0)


def test_multiple_choice_without_options_is_incomplete(tmp_path):
    c = mk(choice_options=None, expected_result="B")
    assert c.rule == "multiple_choice" and c.closed
    assert not c.complete and "without options" in c.incomplete_reason
    for response in ("B", "A", "<answer>B</answer>"):
        r = score_case(c, response)
        assert r["status"] == "incomplete" and r["pass"] is None and r["score"] is None
    write_rows(tmp_path / "multiple_choice" / "a.parquet",
               [row("a", [case(case_id="bare", choice_options=None, expected_result="B"),
                          case(case_id="ok")])])
    rep = score(fmt.load_corpus(tmp_path), {("a", "multiple_choice", "bare"): "B",
                                            ("a", "multiple_choice", "ok"): "A"})
    t = rep["closed"]["natural"]["all"]
    assert (t["scored"], t["passed"], t["incomplete"]) == (1, 1, 1)


def test_authoring_names_are_multiple_choice_when_they_carry_options():
    for name in ("binary", "open_constrained", "BINARY"):
        c = mk(scoring=name)
        assert c.rule == "multiple_choice" and c.closed
        assert score_case(c, "A. Yes")["pass"]
        bare = mk(scoring=name, choice_options=None)
        assert bare.rule is None
        assert score_case(bare, "A")["status"] == "unknown_rule"


def test_normalized_match_only_with_a_reliable_transcript(tmp_path):
    kw = dict(scoring="normalized_match", choice_options=None,
              expected_result="Turn on the light.")
    assert mk(gt={"transcript_status": "reliable"}, **kw).rule == "normalized_match"
    assert mk(transcript_status="verified", **kw).rule == "normalized_match"
    for status in ("partial", "unavailable", "unreliable", None):
        c = mk(gt={"transcript_status": status}, **kw)
        assert c.rule == "llm_judge" and not c.closed
        assert score_case(c, "turn on the light")["status"] == "awaiting_judge"
    gts = [{"level": "L1", "transcript_status": s} for s in ("reliable", "partial")]
    write_rows(tmp_path / "multiple_choice" / "a.parquet",
               [row(f"a{i}", [case(case_id="asr", **kw)], level="L1", gt=g)
                for i, g in enumerate(gts)])
    c = fmt.load_corpus(tmp_path)
    resp = {k: "turn ON the light" for k in c.case_index()}
    rep = score(c, resp)
    assert rep["closed"]["natural"]["by_rule"]["normalized_match"]["passed"] == 1
    assert rep["open"]["natural"]["all"]["awaiting_judge"] == 1
    reqs, _ = judge_requests(c, resp)
    assert [q["audio_id"] for q in reqs] == ["a1"]


def test_not_applicable_cases_use_their_closed_rule():
    c = mk(config="open_freeform", scoring="llm_judge", expected_result_class="not_applicable")
    assert c.rule == "multiple_choice" and c.closed
    assert score_case(c, "A")["pass"] and not score_case(c, "B")["pass"]
    c = mk(config="open_freeform", scoring="llm_judge", choice_options=None,
           expected_result="0", expected_result_class="not_applicable")
    assert c.rule == "exact_match" and score_case(c, "0")["pass"]
    c = mk(config="open_freeform", scoring="llm_judge", choice_options=None,
           expected_result="", expected_result_class="not_applicable")
    r = score_case(c, "anything")
    assert r["status"] == "incomplete" and "not_applicable" in r["judge_rationale"]
    # an ordinary open case with no expected result stays with the judge
    c = mk(config="open_freeform", scoring="llm_judge", choice_options=None,
           expected_result="", expected_result_class="insufficient")
    assert c.rule == "llm_judge" and c.complete


def test_a_requested_reason_is_judged_apart_from_the_option(tmp_path):
    cases = [case(case_id="r", prompt_mode="constrained", asks_reason=True,
                  expected_result="A")]
    write_rows(tmp_path / "multiple_choice" / "a.parquet", [row("a", cases)])
    c = fmt.load_corpus(tmp_path)
    resp = {("a", "multiple_choice", "r"): "A. Because a dog barks twice"}
    rep = score(c, resp)
    rec = rep["records"][0]
    assert rec["pass"] is True and rec["reason"]["status"] == "needs_judge"
    assert rep["closed"]["constrained"]["all"]["rate"] == 1.0
    assert rep["reason"]["constrained"]["all"]["needs_judge"] == 1
    assert rep["reason"]["constrained"]["all"]["scored"] == 0
    reqs, _ = judge_requests(c, resp)
    assert [(q["part"], q["request_id"]) for q in reqs] == [
        ("reason", "a/multiple_choice/r#reason")]
    lab = tmp_path / "labels.jsonl"
    lab.write_text(json.dumps({"request_id": reqs[0]["request_id"], "audio_id": "a",
                               "config": "multiple_choice", "case_id": "r",
                               "score_label": "hallucinated", "judge_rationale": "no dog",
                               "violated_forbidden_claims": []}) + "\n")
    judge, problems = read_judge_labels(lab, c)
    assert not problems and list(judge) == [("a", "multiple_choice", "r", "reason")]
    # a judge output that echoes only the request id reads the same
    lab.write_text(json.dumps({"request_id": reqs[0]["request_id"],
                               "score_label": "hallucinated", "judge_rationale": "no dog"})
                   + "\n")
    assert read_judge_labels(lab, c)[0] == judge
    rep = score(c, resp, judge=judge)
    # the option's score does not move; the reason fails in its own metric
    assert rep["closed"]["constrained"]["all"]["rate"] == 1.0
    assert rep["reason"]["constrained"]["all"]["rate"] == 0.0
    assert rep["records"][0]["reason"]["score_label"] == "hallucinated"


@pytest.mark.parametrize("rubric,passes", [
    ("Partial answers are acceptable when nothing is invented.", True),
    ("partial counts as a pass", True),
    ({"partial_passes": True, "text": "..."}, True),
    ("Partial is not a pass.", False),
    ("Give partial credit reasoning in the rationale.", False),
    ("Correct only if supported.", False),
    (None, False),
])
def test_partial_passes_only_where_the_rubric_allows_it(rubric, passes):
    c = mk(config="open_freeform", scoring="llm_judge", choice_options=None,
           expected_result="", rubric=rubric)
    assert c.partial_passes is passes
    label = {"score_label": "partial", "judge_rationale": "", "violated_forbidden_claims": []}
    r = score_case(c, "something", label)
    assert r["pass"] is passes and r["score_label"] == "partial"
