"""Time RMS-AQA scoring of 100,000 two-stage items.

    python benchmarks/rmsaqa_score_speed.py [--items N] [--repeats R]

Writes a QA JSON of N items (50,000 records of two items) and an answers JSONL whose
answers mix the forms models write (bare letters, "The answer is (B)", tags, line-initial
letters, the official baseline's "<Final answer>: (B) ...", unparsable text), then times
reading the two files and scoring, each the best of R runs.  The figure the issue's bar is
about is ``score_answers`` on N items.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from foakit.bench.rmsaqa import CATEGORIES, load_qa, read_answers, score_answers

FORMS = ("{x}", "The answer is ({x}).", "<answer>{x}</answer>", "{x}) because it is louder",
         "I think the answer: {x}", "Option {x} seems right", "no idea", "b",
         "<Final answer>: ({x}) two sources")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    opts = {"A": "one source", "B": "two sources", "C": "three sources", "D": "four sources"}
    with tempfile.TemporaryDirectory() as tmp:
        recs, answers = [], []
        n_rec = args.items // 2
        for r in range(n_rec):
            pairs = []
            for k in range(2):
                a1, a2 = (str(x) for x in rng.choice(list("ABCD"), 2))
                cid = int(rng.integers(1, 7))
                pairs += [{"stage": 1, "question": "Which sounds?", "options": opts,
                           "answer": a1},
                          {"stage": 2, "question": "How many?", "options": opts, "answer": a2,
                           "category_id": cid, "category_name": CATEGORIES[cid]}]
                f1, f2 = (FORMS[int(i)] for i in rng.integers(0, len(FORMS), 2))
                answers.append({"segment_id": f"s{r}", "item": k,
                                "stage1": f1.format(x=str(rng.choice(list("ABCD")))),
                                "stage2": f2.format(x=str(rng.choice(list("ABCD"))))})
            recs.append({"segment_id": f"s{r}", "audio_path": f"a/s{r}.wav", "qa_pairs": pairs})
        qa_file, ans_file = Path(tmp, "val.json"), Path(tmp, "answers.jsonl")
        qa_file.write_text(json.dumps({"records": recs}))
        ans_file.write_text("".join(json.dumps(a) + "\n" for a in answers))
        # wall time, and the process's CPU time, which a loaded shared machine inflates less
        best = {"load_qa": 1e9, "read_answers": 1e9, "score_answers": 1e9}
        cpu = dict(best)

        def timed(name, fn):
            t, c = time.perf_counter(), time.process_time()
            out = fn()
            best[name] = min(best[name], time.perf_counter() - t)
            cpu[name] = min(cpu[name], time.process_time() - c)
            return out

        for _ in range(args.repeats):
            qa = timed("load_qa", lambda: load_qa(qa_file))
            rows = timed("read_answers", lambda: read_answers(ans_file))
            rep = timed("score_answers", lambda: score_answers(qa, rows))  # noqa: B023
        print(f"{len(qa)} items, best of {args.repeats}, wall (CPU): " +
              ", ".join(f"{k} {v:.2f} s ({cpu[k]:.2f} s)" for k, v in best.items()) +
              f"; total {sum(best.values()):.2f} s ({sum(cpu.values()):.2f} s); parse rate S1 "
              f"{rep['overall']['parse_S1']:.1%}, S2 {rep['overall']['parse_S2']:.1%}")


if __name__ == "__main__":
    main()
