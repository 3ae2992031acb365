"""Which of the STARSS audit's verdict rules raise its flags, on clean and corrupted labels.

Writes a STARSS-layout corpus (``foakit.bench.starss.synth``), audits it, corrupts about a
fifth of its sources (``foakit.bench.starss.inject``) and audits again, then counts the
suspicious verdicts by the rule that raised them: flags on the clean corpus, and on the
corrupted one flags on corrupted sources (true) and on the others (false).  A rule whose
flags fall mostly on clean sources is where the audit's false alarms come from.

    python benchmarks/starss_flag_kinds.py [--engine ism|pyroomacoustics] [--seed 0]
        [--clips 60] [--rate 16000] [--settings sets|bar] [--moving 0.2] [--real-sources]

``--settings sets`` (default) writes the corpora of ``accuracy.py --sets --audits`` (RT60
0.2-0.9 s, SNR 8-20 dB, 1-4 sources, a fan in half the clips, the microphone at a random
yaw); ``bar`` those of ``audit_bar.py`` (its command line's defaults with ``--clips`` and
``--seed``: ISM, RT60 0.3-0.8 s, SNR 15-30 dB, the writer's source counts, stationary).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections import Counter

from accuracy import RealSources, set_corpus_kwargs

from foakit.synth.render import ENGINES

#: Verdict rule -> how its reasons begin (foakit.bench.starss.audit_tracks)
RULES = (
    ("onset elevation", "onset(s) at the labelled azimuth"),
    ("onset event", "the sound starting with the label"),
    ("time shift", "labelled frames are"),
    ("convention fit", "the labels fit the signal under"),
    ("little energy", "little energy from the labelled direction"),
    ("map elevation", "the signal shows the source at the opposite elevation"),
)


def rule_of(reason: str) -> str:
    """The verdict rule a suspicious verdict's reason names ("other" if none)."""
    text = reason.split(" ", 1)[1] if reason[:1].isdigit() else reason
    for name, start in RULES:
        if text.startswith(start):
            return name
    return "other"


def flag_kinds(root: str, *, engine: str, seed: int, clips: int, rate: int, settings: str,
               moving: float, real=None) -> tuple[Counter, int, int]:
    """(counts by (rule, "clean" | "true" | "false"), clean sources, corrupted sources)."""
    from foakit.bench.starss.audit import audit_starss
    from foakit.bench.starss.inject import inject_starss_errors, label_frames
    from foakit.bench.starss.synth import write_starss_corpus

    if settings == "bar":
        import audit_bar

        bar = audit_bar.build_parser().parse_args(["--starss-clips", str(clips),
                                                   "--seed", str(seed)])
        kw = audit_bar.starss_writer_kwargs(bar, audit_bar.corpus_kwargs(bar))
    else:
        kw = set_corpus_kwargs(engine, seed, clips, rate, moving=moving, real=real)
    corpus = os.path.join(root, "starss")
    write_starss_corpus(corpus, **kw)
    audio, meta = os.path.join(corpus, "foa_dev"), os.path.join(corpus, "metadata_dev")
    out: Counter = Counter()
    clean = audit_starss(audio, meta)
    for v in clean.verdicts:
        if v.verdict == "suspicious":
            out[(rule_of(v.reason), "clean")] += 1
    bad = os.path.join(root, "metadata_bad")
    changes = inject_starss_errors(meta, bad, rate=0.2, seed=seed + 1,
                                   n_frames=label_frames(audio))
    wrong = {(c["audio_id"], c["class"], c["source"]) for c in changes}
    for v in audit_starss(audio, bad).verdicts:
        if v.verdict == "suspicious":
            key = (v.key["audio_id"], v.key["class"], v.key["source"])
            out[(rule_of(v.reason), "true" if key in wrong else "false")] += 1
    return out, len(clean.verdicts), len(changes)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--engine", choices=[e for e in ENGINES if e != "auto"],
                   default="ism")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--clips", type=int, default=60)
    p.add_argument("--rate", type=int, default=16000)
    p.add_argument("--settings", choices=("sets", "bar"), default="sets")
    p.add_argument("--moving", type=float, default=0.0,
                   help="share of the sources that move (--settings sets)")
    p.add_argument("--real-sources", action="store_true",
                   help="recorded source signals (accuracy.py's RealSources; --settings sets)")
    args = p.parse_args(argv)
    real = RealSources() if args.real_sources else None
    tmp = tempfile.mkdtemp(prefix="foakit_starss_flag_kinds_")
    try:
        counts, n_clean, n_wrong = flag_kinds(
            tmp, engine=args.engine, seed=args.seed, clips=args.clips, rate=args.rate,
            settings=args.settings, moving=args.moving, real=real)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{n_clean} sources, {n_wrong} corrupted; suspicious verdicts by rule "
          "(clean corpus; corrupted corpus: on corrupted / on other sources):")
    for name in [r[0] for r in RULES] + ["other"]:
        c, t, f = (counts[(name, k)] for k in ("clean", "true", "false"))
        if c or t or f:
            print(f"  {name:<16} clean {c:3d}   corrupted {t:3d} / {f:3d}")
    c, t, f = (sum(v for (_, k), v in counts.items() if k == kind)
               for kind in ("clean", "true", "false"))
    print(f"  {'all':<16} clean {c:3d}   corrupted {t:3d} / {f:3d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
