"""Measure speech-detector candidates on synthetic speech in noise, music and environments.

Candidates: ``energy`` (frames 6 dB above the clip's noise floor, the energy detector of
:func:`foakit.signal.measure_clip`), ``webrtcvad`` (webrtcvad-wheels, aggressiveness 0-3),
``silero`` (:func:`foakit.signal.speech_activity`, the default detector) and ``features``
(``speech_activity(detector="features")``); real recordings: ``real_recordings.py``.
Every candidate's frame decisions go through the same segment rule (gaps under 0.3 s
closed, segments under 0.2 s dropped) and are scored on 20 ms frames against the speech
truth (the phrase spans of
:func:`foakit.signal.sounds.speech_like`; for espeak-ng, the clean utterances).

Families are split: ``tune`` (voices male and female; noise white, pink, rain, band music;
music melody, chords, drums, band, bowed; environments rain, wind, traffic, birds, siren)
and ``report`` (voices child, fast_male, slow_female and espeak-ng voices; noise brown,
traffic, machine, clatter, pluck music; music pluck, bells; environments bark, footsteps,
water, machine, clapping).  ``--fit`` fits the logistic weights of the features detector on
the tune split and prints them.

    python benchmarks/speech_detector.py [--split tune|report] [--fit] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from foakit.signal import sounds as S
from foakit.signal import speech as SP

SR = 16000
HOP = 0.02
SNRS = (-5, 0, 5, 10, 20, 30)
SPLITS = {
    "tune": dict(voices=("male", "female"), noises=("white", "pink", "rain", "band"),
                 music=("melody", "chords", "drums", "band", "bowed"),
                 env=("rain", "wind", "traffic", "birds", "siren"), espeak=()),
    "report": dict(voices=("child", "fast_male", "slow_female"),
                   noises=("brown", "traffic", "machine", "clatter", "pluck"),
                   music=("pluck", "bells"),
                   env=("bark", "footsteps", "water", "machine", "clapping"),
                   espeak=("en-us", "en-gb", "de", "fr", "es")),
}
SENTENCES = ["The quick brown fox jumps over the lazy dog near the river bank.",
             "Please call Stella and ask her to bring these things with her from the store.",
             "We will meet at seven o'clock tomorrow morning in front of the old library.",
             "Six spoons of fresh snow peas, five thick slabs of blue cheese.",
             "I honestly do not think that this plan is going to work out for us.",
             "Could you tell me the way to the railway station, please?"]


def espeak_clip(voice: str, rng, duration_s: float = 10.0):
    """espeak-ng sentences with pauses; truth from the clean signal's utterances."""
    import soundfile as sf
    from scipy.signal import resample_poly

    out = np.zeros(int(duration_s * SR))
    spans = []
    t = rng.uniform(0.3, 0.8)
    with tempfile.TemporaryDirectory() as tmp:
        while t < duration_s - 1.0:
            wav = f"{tmp}/s.wav"
            speed = int(rng.integers(130, 200))
            subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", wav,
                            SENTENCES[int(rng.integers(len(SENTENCES)))]], check=True,
                           capture_output=True)
            x, sr = sf.read(wav)
            x = resample_poly(x, 320, 441) if sr == 22050 else x
            i = int(t * SR)
            m = min(len(x), len(out) - i)
            out[i:i + m] += x[:m]
            # utterance truth: frames above -40 dB of the sentence peak level, gaps < 0.3 s
            lev = 10 * np.log10(np.convolve(x[:m] ** 2, np.ones(320) / 320, "same") + 1e-12)
            act = lev > lev.max() - 40
            idx = np.flatnonzero(act)
            if len(idx):
                spans.append((t + idx[0] / SR, t + idx[-1] / SR))
            t += m / SR + rng.uniform(0.4, 1.5)
    return (0.5 * out / max(np.max(np.abs(out)), 1e-9)).astype(np.float32), spans


def _segment_rule(active, times):
    return SP._segments(active, times, HOP, gap_s=0.3, min_s=0.2)[0]


def detect_energy(x):
    from foakit.signal.measures import frame_levels_db

    lev = frame_levels_db(x, SR, hop_s=HOP)
    ok = lev > -60
    floor = np.percentile(lev[ok], 10) if ok.any() else 0
    times = (np.arange(len(lev)) + 0.5) * HOP
    return times, _segment_rule(ok & (lev > floor + 6), times)


def detect_webrtc(x, mode):
    import webrtcvad

    vad = webrtcvad.Vad(mode)
    pcm = (np.clip(x, -1, 1) * 32767).astype("<i2")
    hop = int(HOP * SR)
    nf = len(pcm) // hop
    act = np.array([vad.is_speech(pcm[i * hop:(i + 1) * hop].tobytes(), SR)
                    for i in range(nf)])
    times = (np.arange(nf) + 0.5) * HOP
    return times, _segment_rule(act, times)


def detect_foakit(x, detector):
    a = SP.speech_activity(x, SR, hop_s=HOP, detector=detector)
    return a.times, a.active


def build(split: str, seed: int):
    """(name, kind, x, spans) for every clip of a split."""
    rng = np.random.default_rng(seed)
    cfg = SPLITS[split]
    clips = []
    sources = [(v, lambda v=v: S.speech_like(10.0, SR, rng, voice=v)) for v in cfg["voices"]]
    if cfg["espeak"] and shutil.which("espeak-ng"):
        sources += [(f"espeak-{v}", lambda v=v: espeak_clip(v, rng)) for v in cfg["espeak"]]
    for vname, make in sources:
        for noise in cfg["noises"]:
            for snr in SNRS:
                x, spans = make()
                nz = S.noise_like(len(x) / SR, SR, rng, family=noise)
                clips.append((f"{vname}+{noise}@{snr}", "speech", snr,
                              S.mix_at_snr(x, spans, nz, snr, SR), spans))
    for fam in cfg["music"]:
        for _ in range(3):
            clips.append((f"music-{fam}", "music", None, S.music_like(10.0, SR, rng,
                                                                     family=fam), []))
    for fam in cfg["env"]:
        for _ in range(3):
            clips.append((f"env-{fam}", "env", None, S.environment_like(10.0, SR, rng,
                                                                       family=fam), []))
    return clips


def evaluate(clips, detectors):
    rows = {}
    cost = {}
    for name, fn in detectors.items():
        t0 = time.perf_counter()
        res = []
        for cname, kind, snr, x, spans in clips:
            times, act = fn(x)
            truth = S.truth_frames(spans, times)
            res.append((cname, kind, snr, float(np.mean(act == truth)), float(np.mean(act))))
        cost[name] = (time.perf_counter() - t0) / sum(len(c[3]) / SR for c in clips)
        rows[name] = res
    return rows, cost


def summarise(rows, cost):
    out = {}
    for name, res in rows.items():
        d = {"cost_ms_per_s": round(1000 * cost[name], 3)}
        for snr in SNRS:
            acc = [r[3] for r in res if r[1] == "speech" and r[2] == snr]
            if acc:
                d[f"acc@{snr}dB"] = round(float(np.mean(acc)), 3)
                d[f"min@{snr}dB"] = round(float(np.min(acc)), 3)
        for kind in ("music", "env"):
            fs = [r[4] for r in res if r[1] == kind]
            if fs:
                d[f"false_{kind}"] = round(float(np.mean(fs)), 3)
                d[f"false_{kind}_max"] = round(float(np.max(fs)), 3)
        out[name] = d
    return out


def fit(clips, iters: int = 300):
    """Logistic weights of :data:`foakit.signal.speech.FEATURES` (Newton steps)."""
    xs, ys = [], []
    for _, _, _, x, spans in clips:
        f = SP.speech_features(x, SR, hop_s=HOP)
        keep = f["level_db"] > 3.0  # the detector only scores frames above the noise
        xs.append(np.stack([f[k] for k in SP.FEATURES], 1)[keep])
        ys.append(S.truth_frames(spans, f["times"])[keep])
    X = np.concatenate(xs)
    y = np.concatenate(ys).astype(float)
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([np.ones((len(X), 1)), (X - mu) / sd])
    w = np.zeros(Z.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-Z @ w))
        g = Z.T @ (p - y) + 1e-3 * w
        H = (Z * (p * (1 - p))[:, None]).T @ Z + 1e-3 * np.eye(len(w))
        step = np.linalg.solve(H, g)
        w -= step
        if np.max(np.abs(step)) < 1e-6:
            break
    raw = np.concatenate([[w[0] - np.sum(w[1:] * mu / sd)], w[1:] / sd])
    return raw


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=tuple(SPLITS), default="report")
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="comma-separated detector names")
    args = ap.parse_args()
    clips = build(args.split, args.seed)
    if args.fit:
        w = fit(clips)
        print("WEIGHTS =", np.array2string(w, precision=4, separator=", "))
        SP.WEIGHTS[:] = w
    detectors = {"energy": detect_energy,
                 "silero": lambda x: detect_foakit(x, "silero"),
                 "features": lambda x: detect_foakit(x, "features")}
    try:
        import webrtcvad  # noqa: F401

        for m in (0, 2, 3):
            detectors[f"webrtcvad{m}"] = lambda x, m=m: detect_webrtc(x, m)
    except ImportError:
        print("webrtcvad-wheels is not installed: skipped", file=sys.stderr)
    if args.only:
        detectors = {k: v for k, v in detectors.items() if k in args.only.split(",")}
    rows, cost = evaluate(clips, detectors)
    summary = summarise(rows, cost)
    print(json.dumps({"split": args.split, "seed": args.seed, "clips": len(clips),
                      "detectors": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
