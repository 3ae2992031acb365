"""RMS-AQA convention audit on a held-out 200-clip synthetic corpus and two faulty copies.

    python benchmarks/rmsaqa_convention.py [--work DIR]

Seed 250 (1-4 sources, uniform): the clean copy (ambiX), the same audio with mirrored
localization answers, and the audio stored in FuMa order read as ambiX.  Prints each
audit's convention verdict.  Corpora and analyses are cached in ``--work``.
"""

import argparse
import os
import time

from foakit.bench.rmsaqa import audit_rmsaqa, load_qa, write_rmsaqa_corpus

ap = argparse.ArgumentParser()
ap.add_argument("--work", default="/tmp/foakit-rmsaqa-convention")
W = ap.parse_args().work
t = time.time()
R = W + "/clean"
if not os.path.exists(R + "/val.json"):
    write_rmsaqa_corpus(R, n_clips=200, seed=250)
m = write_rmsaqa_corpus(W + "/mirror", n_clips=200, seed=250, render=False, mirror_labels=True)
if not os.path.exists(W + "/fuma/val.json"):
    write_rmsaqa_corpus(W + "/fuma", n_clips=200, seed=250, channel_order="fuma")
print("write", round(time.time() - t), "s")
for name, qa, an in [("clean", load_qa(R + "/val.json"), R + "/an"),
                     ("mirror", load_qa(m, audio_root=R), R + "/an"),
                     ("fuma", load_qa(W + "/fuma/val.json"), W + "/fuma/an")]:
    r = audit_rmsaqa(qa, analysis_dir=an, workers=2)
    c = r.summary["convention"]
    print(name, c["best"], c["mismatch"], c["answers_used"], "|", c["evidence"], "| ratio",
          c["channel_reading"]["dipole_to_omni_power"], flush=True)
print("total", round(time.time() - t), "s")
