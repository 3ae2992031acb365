"""Normalisation bar: a corpus and its N3D and FuMa copies, audited three ways.

Writes a synthetic SO-Bench, STARSS or RMS-AQA corpus (SN3D, ambiX), then copies whose
audio differs only by the normalisation (and, for ``fuma``, FuMa's W, X, Y, Z order), and
audits

* each copy read as the corpus declares nothing (the default: ambiX / SN3D): the convention
  audit must name its normalisation (``n3d``, ``fuma``);
* each copy read with the right ``--normalisation`` (and ``--channel-order``): its label
  verdicts must equal the SN3D corpus's, and the normalisation block must say "as declared".

Copies are written as 32-bit float WAV from the decoded 16-bit samples, so that N3D dipoles
(sqrt(3) x SN3D) do not clip.  Prints one JSON object; ``--out`` also writes it.

    PYTHONPATH=. python benchmarks/normalisation_bar.py --benchmark sobench --seed 61 \
        --clips 16 --workers 2
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf

#: copy name -> (channel order, normalisation) the copy's audio is written in
COPIES = {"n3d": ("ambix", "n3d"), "fuma_weights": ("ambix", "fuma"), "fuma": ("fuma", "fuma")}


def write_copy(src: Path, dst: Path, order: str, norm: str) -> None:
    """``src`` with every wav re-written in ``order`` / ``norm`` (QA and truth copied)."""
    from foakit.conventions import from_internal
    from foakit.io import read_audio

    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.wav"))
    for wav in sorted(src.rglob("*.wav")):
        clip = read_audio(wav)
        raw = from_internal(np.asarray(clip.samples, dtype=np.float64), order,
                            normalisation=norm)
        out = dst / wav.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        sf.write(out, np.ascontiguousarray(raw.T, dtype=np.float32), clip.sample_rate,
                 subtype="FLOAT")


def verdict_map(res) -> dict:
    """(item key, field) -> verdict."""
    return {(tuple(sorted((a, str(b)) for a, b in v.key.items())), v.field): v.verdict
            for v in res.verdicts}


def _bench(name: str, tmp: Path, seed: int, clips: int, workers: int):
    """``(write(root), audit(root, order, norm))`` of one benchmark."""
    if name == "sobench":
        from foakit.bench.sobench.audit import audit_sobench
        from foakit.bench.sobench.synth import write_sobench_corpus

        def write(root):
            write_sobench_corpus(root, n_clips=clips, seed=seed, engine="ism")

        def audit(root, order="ambix", norm=None):
            return audit_sobench(root, workers=workers, channel_order=order,
                                 normalisation=norm)
    elif name == "starss":
        from foakit.bench.starss.audit import audit_starss
        from foakit.bench.starss.synth import write_starss_corpus

        def write(root):
            write_starss_corpus(root, n_clips=clips, seed=seed, engine="ism")

        def audit(root, order="ambix", norm=None):
            return audit_starss(Path(root, "foa_dev"), Path(root, "metadata_dev"),
                                workers=workers, channel_order=order, normalisation=norm)
    else:
        from foakit.bench.rmsaqa.audit import audit_rmsaqa
        from foakit.bench.rmsaqa.format import load_qa
        from foakit.bench.rmsaqa.synth import write_rmsaqa_corpus

        def write(root):
            write_rmsaqa_corpus(root, n_clips=clips, seed=seed)

        def audit(root, order="ambix", norm=None):
            qa = next(Path(root).glob("*.json"))
            an = tmp / f"analysis-{Path(root).name}-{order}-{norm}"
            return audit_rmsaqa(load_qa(qa), analysis_dir=an, workers=workers,
                                channel_order=order, normalisation=norm)
    return write, audit


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--benchmark", choices=("sobench", "starss", "rmsaqa"), default="sobench")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--clips", type=int, default=16)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=None, help="also write the JSON here")
    args = ap.parse_args(argv)

    t0 = time.time()
    out: dict = {"benchmark": args.benchmark, "seed": args.seed, "clips": args.clips,
                 "command": "PYTHONPATH=. python benchmarks/normalisation_bar.py "
                            f"--benchmark {args.benchmark} --seed {args.seed} "
                            f"--clips {args.clips}"}
    with tempfile.TemporaryDirectory(prefix="foakit-norm-bar-") as tmp:
        write, audit = _bench(args.benchmark, Path(tmp), args.seed, args.clips, args.workers)
        base = Path(tmp, "sn3d")
        write(base)
        ref = audit(base)
        ref_v = verdict_map(ref)
        nv = ref.summary["convention"]["normalisation"]
        out["sn3d"] = {"labels": len(ref_v), "supported": nv["supported"],
                       "ratio_file": nv["ratio_file"], "ratio_file_iqr": nv["ratio_file_iqr"],
                       "n_clips": nv["n_clips"], "best": ref.summary["convention"]["best"]}
        for name, (order, norm) in COPIES.items():
            dst = Path(tmp, name)
            write_copy(base, dst, order, norm)
            plain = audit(dst)
            right = audit(dst, order, norm)
            pv, rv = verdict_map(plain), verdict_map(right)
            pn = plain.summary["convention"]["normalisation"]
            rn = right.summary["convention"]["normalisation"]
            out[name] = {
                "read_as_default": {"supported": pn["supported"], "mismatch": pn["mismatch"],
                                    "ratio_file": pn["ratio_file"],
                                    "best": plain.summary["convention"]["best"],
                                    "verdicts_changed": sum(pv[k] != ref_v.get(k) for k in pv)},
                "read_right": {"channel_order": order, "normalisation": norm,
                               "supported": rn["supported"], "mismatch": rn["mismatch"],
                               "ratio_file": rn["ratio_file"],
                               "best": right.summary["convention"]["best"],
                               "verdicts_changed": sum(rv[k] != ref_v.get(k) for k in rv),
                               "verdicts_equal": rv == ref_v},
            }
    out["seconds"] = round(time.time() - t0, 1)
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
