"""Scale check of ``foakit audit airbench``: N items, 1 % of them broken files.

Writes a synthetic AIR-Bench Chat root (no injected defects, clips at ``--duration-scale``
of their task's usual length), then breaks ``--broken`` of the files in turn (truncated,
not audio, empty, missing), runs the real CLI and checks that every item is reported
(items.jsonl has one line per item, every broken one flagged).

    python benchmarks/airbench_scale.py DIR [--items 2000] [--broken 0.01] [--workers 2]
        [--baseline-src SRC] [--repeat 1]

``--baseline-src SRC`` also times the audit with the foakit package found under ``SRC``
(for example ``git archive <commit> foakit | tar -x -C SRC``), alternating with this
checkout's ``--repeat`` times on the same corpus, and reports both times and their ratio
(the machine may be shared, so alternating runs see the same load).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--broken", type=float, default=0.01)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--duration-scale", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--baseline-src", default=None)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    from foakit.bench.airbench import write_corpus

    root = Path(args.dir) / "root"
    t0 = time.perf_counter()
    if not (root / "Chat" / "Chat_meta.json").exists():
        write_corpus(root, n_items=args.items, seed=args.seed, defects=False,
                     duration_scale=args.duration_scale)
    t_gen = time.perf_counter() - t0
    items = json.loads((root / "Chat" / "Chat_meta.json").read_text())
    rng = np.random.default_rng(args.seed)
    n_bad = int(round(args.broken * len(items)))
    broken = {}
    for j, i in enumerate(rng.choice(len(items), n_bad, replace=False)):
        it = items[int(i)]
        p = root / "Chat" / f"{it['task_name']}_{it['dataset_name']}" / it["path"]
        how = ("truncated", "not_audio", "empty", "missing")[j % 4]
        if p.exists():
            if how == "truncated":
                p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
            elif how == "not_audio":
                p.write_bytes(b"not audio\n" * 50)
            elif how == "empty":
                p.write_bytes(b"")
            else:
                p.unlink()
        broken[str(it["uniq_id"])] = how

    def run_audit(out: Path, src: str | None) -> tuple[subprocess.CompletedProcess, float]:
        cmd = [sys.executable, "-m", "foakit", "audit", "airbench", str(root), "-o",
               str(out), "--workers", str(args.workers), "--no-progress"]
        env = dict(os.environ)
        if src is not None:
            env["PYTHONPATH"] = src
        if out.exists():
            import shutil

            shutil.rmtree(out)
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        return r, time.perf_counter() - t

    times: dict[str, list] = {"current": [], "baseline": []}
    out = Path(args.dir) / "out"
    cmd = [sys.executable, "-m", "foakit", "audit", "airbench", str(root), "-o", str(out),
           "--workers", str(args.workers), "--no-progress"]
    for _ in range(max(args.repeat, 1)):
        if args.baseline_src:
            times["baseline"].append(round(run_audit(Path(args.dir) / "out_baseline",
                                                     args.baseline_src)[1], 1))
        r, t_audit = run_audit(out, None)
        times["current"].append(round(t_audit, 1))
    lines = (out / "items.jsonl").read_text().splitlines()
    reported = {json.loads(x)["key"]: json.loads(x) for x in lines}
    flags = [json.loads(x) for x in (out / "flags.jsonl").read_text().splitlines()]
    flagged = {f["key"] for f in flags}
    audio_s = sum(v["measures"]["duration_s"] for v in reported.values() if v["measures"])
    result = {
        "command": " ".join(cmd[1:]), "exit_status": r.returncode,
        "items": len(items), "reported": len(reported), "broken": len(broken),
        "broken_flagged": sum(k in flagged for k in broken),
        "clean_flagged": sorted(k for k in flagged if k not in broken),
        "flags_by_kind": json.loads((out / "summary.json").read_text())["flags"]["by_kind"],
        "audio_hours": round(audio_s / 3600, 2), "generate_s": round(t_gen, 1),
        "audit_s": round(t_audit, 1), "stderr_tail": r.stderr.strip().splitlines()[0],
        "speech_detector": json.loads((out / "summary.json").read_text()).get(
            "speech_detector"),
    }
    if args.baseline_src:
        result["audit_s_runs"] = times
        result["current_over_baseline"] = round(
            float(np.median(times["current"]) / np.median(times["baseline"])), 2)
    print(json.dumps(result, indent=1))
    return 0 if len(reported) == len(items) else 1


if __name__ == "__main__":
    sys.exit(main())
