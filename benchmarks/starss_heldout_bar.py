"""The STARSS label audit measured on held-out seeds and rooms (24 kHz).

MEASUREMENT ONLY.  The seeds (600 and up) are never used to tune foakit: no threshold may be
changed to move a number this script prints.  Tuning happens on ``benchmarks/audit_bar.py``
(seed 0 and nearby).

It reuses ``benchmarks/audit_bar.py``'s STARSS path (``starss_flags``, ``pr``, ``by_kind``)
per family:

* ``pra24k``: pyroomacoustics rooms, RT60 0.2-0.8 s, seed 600;
* ``ism24k``: built-in ISM rooms, RT60 0.2-0.8 s, seed 610;

each a ``write_starss_corpus`` corpus of 24 kHz, 10 s clips with 1-3 stationary sources (SNR
15-30 dB) whose audio the audit reaches through a symlinked folder.  It audits the clean
metadata (fraction of sources flagged), corrupts about 20 % of the sources
(``inject_starss_errors``: azimuths rotated by 50-120 deg, mirrored, front-back flipped,
elevation sign flipped, frames shifted by 1.5-3 s) and audits again: precision and recall of
the flags against the corrupted sources, by kind.  The run refuses to report a family with
fewer than ``--min-injected`` (30) corrupted sources: raise ``--clips``.

    python benchmarks/starss_heldout_bar.py [--clips 80] [--families pra24k ism24k]
        [--workers N] [--json OUT] [--keep DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FAMILIES: dict[str, dict] = {
    "pra24k": {"engine": "pyroomacoustics", "rt60_s": (0.2, 0.8), "seed": 600},
    "ism24k": {"engine": "ism", "rt60_s": (0.2, 0.8), "seed": 610},
}


def _load(name: str):
    """A sibling benchmark script as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_family(name: str, fam: dict, tmp: Path, args, bar) -> dict:
    import soundfile as sf

    from foakit.bench.starss.audit import audit_starss
    from foakit.bench.starss.inject import inject_starss_errors
    from foakit.bench.starss.synth import write_starss_corpus

    root = tmp / name / "corpus"
    write_starss_corpus(root, n_clips=args.clips, seed=int(fam["seed"]), sample_rate=24000,
                        duration_s=10.0, rt60_s=fam["rt60_s"], snr_db=(15.0, 30.0),
                        n_sources=(1, 3), allow_motion=False, engine=fam["engine"])
    # the audit reads the audio through a symlinked folder, as a user's mounted copy would
    linked = tmp / name / "linked"
    linked.mkdir(parents=True)
    (linked / "foa_dev").symlink_to(os.path.relpath(root / "foa_dev", linked),
                                    target_is_directory=True)
    audio, meta = linked / "foa_dev", root / "metadata_dev"
    res_clean = audit_starss(audio, meta, workers=args.workers)
    n_tracks = int(res_clean.summary["counts"]["total"])
    flagged_clean = bar.starss_flags(res_clean)
    n_frames = {}
    for f in os.listdir(audio):
        info = sf.info(str(audio / f))
        n_frames[os.path.splitext(f)[0]] = int(info.duration / 0.1 + 1e-6)
    bad_meta = tmp / name / "metadata_injected"
    changes = inject_starss_errors(meta, bad_meta, rate=0.2, seed=int(fam["seed"]) + 1,
                                   n_frames=n_frames)
    res_bad = audit_starss(audio, bad_meta, workers=args.workers)
    flagged = bar.starss_flags(res_bad)
    injected = {(c["audio_id"], c["class"], c["source"]) for c in changes}
    return {
        "corpus": dict(fam, sample_rate=24000, duration_s=10.0, clips=args.clips),
        "sources": n_tracks,
        "clean_flags": len(flagged_clean),
        "clean_flag_rate": len(flagged_clean) / max(n_tracks, 1),
        "injected": bar.pr(flagged, injected),
        "recall_by_kind": bar.by_kind(changes, flagged,
                                      lambda c: (c["audio_id"], c["class"], c["source"])),
        "enough_injected": len(injected) >= args.min_injected,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clips", type=int, default=80, help="clips per family (default 80)")
    p.add_argument("--families", nargs="+", choices=sorted(FAMILIES), default=list(FAMILIES))
    p.add_argument("--min-injected", type=int, default=30)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--json", default=None, help="write the numbers here")
    p.add_argument("--keep", default=None, help="write the corpora here and keep them")
    args = p.parse_args(argv)
    bar = _load("audit_bar")
    tmp = Path(args.keep or tempfile.mkdtemp(prefix="foakit_starss_heldout_"))
    tmp.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    out: dict = {"families": {}}
    try:
        for name in args.families:
            r = run_family(name, FAMILIES[name], tmp, args, bar)
            out["families"][name] = r
            i = r["injected"]
            print(f"== {name} == sources {r['sources']}, corrupted {i['injected']}"
                  + ("" if r["enough_injected"] else
                     f" (fewer than {args.min_injected}: raise --clips)"), flush=True)
            print(f"  precision {i['precision']:.3f} ({i['true_flags']}/{i['flags']}), "
                  f"recall {i['recall']:.3f} ({i['true_flags']}/{i['injected']}), clean "
                  f"flagged {100 * r['clean_flag_rate']:.1f}% ({r['clean_flags']}/"
                  f"{r['sources']})", flush=True)
            print(f"  recall by kind: {r['recall_by_kind']}", flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    fams = list(out["families"].values())
    tot = {k: sum(f["injected"][k] for f in fams) for k in ("flags", "injected", "true_flags")}
    src = sum(f["sources"] for f in fams)
    clean = sum(f["clean_flags"] for f in fams)
    out["overall"] = {
        "sources": src, "clean_flags": clean, "clean_flag_rate": clean / max(src, 1),
        "precision": tot["true_flags"] / tot["flags"] if tot["flags"] else 1.0,
        "recall": tot["true_flags"] / tot["injected"] if tot["injected"] else 1.0, **tot}
    o = out["overall"]
    print(f"== overall == precision {o['precision']:.3f} ({o['true_flags']}/{o['flags']}), "
          f"recall {o['recall']:.3f} ({o['true_flags']}/{o['injected']}), clean flagged "
          f"{100 * o['clean_flag_rate']:.1f}% ({clean}/{src})")
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"seconds: {out['seconds']}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2, default=float)
    return 0 if all(f["enough_injected"] for f in fams) else 1


if __name__ == "__main__":
    sys.exit(main())
