"""The SO-Bench audit's direction-only onset check, measured.

Every ``onset_from_location`` item is audited as if its question named no class the corpus
follows (the check then rests on the analysed events from the question's direction alone):
the share of clean labels it can verify, clean labels flagged, and precision / recall on
onset labels shifted by 1.5-3 s in about 30 % of the items.

    python benchmarks/sobench_direction_onsets.py ENGINE RATE DURATION_S SEED N_CLIPS
    python benchmarks/sobench_direction_onsets.py pyroomacoustics 24000 10 32 30
"""

import json
import sys
import tempfile
from pathlib import Path

from foakit.bench.sobench import audit as A
from foakit.bench.sobench import audit_claims as C
from foakit.bench.sobench.inject import inject_sobench_errors
from foakit.bench.sobench.synth import write_sobench_corpus

orig = C.clip_claims
def no_subject(aid, items, vocab, cfg):
    cc = orig(aid, items, vocab, cfg)
    for it in items:
        if it.task_name == "onset_from_location":
            cc.subject[it.qa_id] = None
    return cc
A.clip_claims = no_subject

engine, sr, dur = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
seed, n = int(sys.argv[4]), int(sys.argv[5])
with tempfile.TemporaryDirectory() as tmp:
    clean, bad = Path(tmp) / "clean", Path(tmp) / "bad"
    write_sobench_corpus(clean, n_clips=n, seed=seed, engine=engine, sample_rate=sr,
                         duration_s=dur,
                         tasks=("onset_from_location", "estimate_azimuth", "detect_time"))
    changes = inject_sobench_errors(clean, bad, seed=seed, fields=("onset",), rate=0.3)
    injected = {c["qa_id"] for c in changes}
    out = {}
    for name, root in (("clean", clean), ("bad", bad)):
        res = A.audit_sobench(root, workers=2)
        vs = [v for v in res.verdicts if v.key["task_name"] == "onset_from_location"]
        out[name] = vs
    vb, vc = out["bad"], out["clean"]
    flagged = {v.key["qa_id"] for v in vb if v.verdict == "suspicious"}
    tp = len(flagged & injected)
    print(json.dumps({
        "engine": engine, "sr": sr, "seed": seed, "n_onset": len(vb),
        "verifiable_clean": sum(v.verdict != "unverifiable" for v in vc) / max(1, len(vc)),
        "clean_flagged": sum(v.verdict == "suspicious" for v in vc),
        "injected": len(injected), "flags": len(flagged), "tp": tp,
        "precision": tp / len(flagged) if flagged else None,
        "recall": tp / len(injected) if injected else None}))
