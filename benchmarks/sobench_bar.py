"""SO-Bench baselines on synthetic SO-Bench-layout corpora (the issue-4 bar).

Writes single-source corpora (reverberant: RT60 0.3-0.8 s, SNR 15-30 dB; anechoic: SNR
20-30 dB) and a mixed 1-3 source corpus with foakit.synth (built-in ISM engine), answers every
item with the oracle, dsp and prior baselines and scores them by the official rules.

    python benchmarks/sobench_bar.py [--clips 100] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path


def table(root: Path, workers: int | None) -> str:
    from foakit.bench.sobench.baselines import run_baseline
    from foakit.bench.sobench.format import load_qa
    from foakit.bench.sobench.scoring import format_comparison, score_predictions

    items = load_qa(root, "test").items
    reports = {}
    for kind in ("oracle", "dsp", "prior"):
        run = run_baseline(root, kind, analysis_dir=root / "analysis", workers=workers)
        reports[kind] = score_predictions(items, run.predictions)
    return format_comparison(reports)


def main() -> int:
    from foakit.bench.sobench.synth import write_sobench_corpus

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    corpora = {
        "single source, reverberant": dict(n_sources=1, rt60_s=(0.3, 0.8), snr_db=(15.0, 30.0)),
        "single source, anechoic": dict(n_sources=1, rt60_s=None, snr_db=(20.0, 30.0)),
        "1-3 sources, reverberant": dict(n_sources=(1, 3), rt60_s=(0.3, 0.8),
                                         snr_db=(15.0, 30.0)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, kw in corpora.items():
            root = Path(tmp) / name.replace(" ", "_").replace(",", "")
            write_sobench_corpus(root, n_clips=args.clips, seed=args.seed, engine="ism",
                                 allow_motion=True, **kw)
            print(f"== {name}: {args.clips} clips ==")
            print(table(root, args.workers))
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
