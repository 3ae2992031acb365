"""The HalluAudio audit's bar on synthetic corpora with known wrong labels.

For each family and seed: write a corpus (foakit.bench.halluaudio.synth), audit it, and
count how many deliberately wrong speech-presence and level labels are flagged on the label
that is wrong, and how many correctly labelled audios get any flag.  The thresholds were set
on the ``tune`` family, seeds 0-2; ``report`` and ``wide`` (seeds 10-12) are held out.

    python benchmarks/halluaudio_audit.py --families tune --seeds 0 1 2 --n-audio 120
    python benchmarks/halluaudio_audit.py --families report wide --seeds 10 11 12

``--memory N1 N2``: peak RSS of ``foakit audit halluaudio`` (one worker, a subprocess) on
corpora of N1 and N2 rows (clips reused, labels per row).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from foakit.bench.halluaudio.audit import audit
from foakit.bench.halluaudio.synth import write_corpus

PRESENCE = {"presence_missed", "presence_invented"}
LEVEL = {"l1_noisy", "l1_far", "l3_clean", "l2_clean"}


def bar(family: str, seed: int, n_audio: int, workers: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root, out = Path(tmp) / "root", Path(tmp) / "out"
        write_corpus(root, n_audio=n_audio, seed=seed, family=family, wrong_share=0.2)
        truth = {json.loads(x)["audio_id"]: json.loads(x)
                 for x in (root / "synth_truth.jsonl").read_text().splitlines()}
        res = audit(root, out, workers=workers)
    flagged = {}
    for f in res.flags:
        flagged.setdefault(f["audio_id"], set()).add(f["kind"])
    c = Counter()
    clean_flags = Counter()
    for aid, t in truth.items():
        kinds = flagged.get(aid, set())
        w = t["wrong"]
        if w is None:
            c["clean"] += 1
            if kinds:
                c["clean_flagged"] += 1
                clean_flags.update(kinds)
            continue
        want = {"speech_presence", "no_speech_cases"} if w in PRESENCE else {"level"}
        c[f"{w}"] += 1
        if kinds & want:
            c[f"{w}_flagged"] += 1
    wrong = sum(c[k] for k in PRESENCE | LEVEL)
    hit = sum(c[f"{k}_flagged"] for k in PRESENCE | LEVEL)
    return {"family": family, "seed": seed, "audios": len(truth), "wrong": wrong,
            "wrong_flagged": hit, "clean": c["clean"], "clean_flagged": c["clean_flagged"],
            "by_kind": {k: f"{c[k + '_flagged']}/{c[k]}" for k in sorted(PRESENCE | LEVEL)},
            "clean_flag_kinds": dict(clean_flags), "failures": len(res.failures)}


def memory(rows: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root, out = Path(tmp) / "root", Path(tmp) / "out"
        write_corpus(root, n_audio=rows, seed=7, family="tune", unique_audio=64,
                     both_share=0.0)
        code = ("import resource, sys; from foakit.cli import main; s = main(sys.argv[1:]); "
                "print('RSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
                "file=sys.stderr); sys.exit(s)")
        p = subprocess.run([sys.executable, "-c", code, "audit", "halluaudio", str(root),
                            "-o", str(out), "--workers", "1", "--no-progress", "--no-figures"],
                           capture_output=True, text=True)
        rss = [int(x.split()[1]) for x in p.stderr.splitlines() if x.startswith("RSS_KB")]
        return {"rows": rows, "rc": p.returncode, "peak_rss_mib": round(rss[0] / 1024, 1)
                if rss else None, "stderr_tail": p.stderr[-300:] if p.returncode else ""}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", nargs="+", default=["tune"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--n-audio", type=int, default=120)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory", nargs="*", type=int, default=None)
    a = ap.parse_args()
    if a.memory:
        for n in a.memory:
            print(json.dumps(memory(n)), flush=True)
        return 0
    tot = Counter()
    for fam in a.families:
        for seed in a.seeds:
            r = bar(fam, seed, a.n_audio, a.workers)
            print(json.dumps(r), flush=True)
            for k in ("wrong", "wrong_flagged", "clean", "clean_flagged"):
                tot[k] += r[k]
    share = {k: round(tot[f"{k}_flagged"] / max(1, tot[k]), 3) for k in ("wrong", "clean")}
    print(json.dumps({"total": dict(tot), "wrong_flagged_share": share["wrong"],
                      "clean_flagged_share": share["clean"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
