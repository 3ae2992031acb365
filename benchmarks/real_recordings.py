"""Speech detectors on clips built from real recordings that Debian packages ship.

The recordings come from Debian packages fetched with ``apt-get download`` and unpacked
with ``dpkg -x`` into a cache (``--cache``, default ``~/.cache/foakit/real_recordings``);
nothing is installed.  Speech: ``alsa-utils`` (spoken channel names),
``sound-theme-freedesktop`` (spoken channel names), ``klettres-data`` (letters and
syllables in 20+ languages), ``ktuberling-data`` (words in 15 languages), ``tuxtype-data``
("excuse me") and ``tuxpaint-data`` (two prompts).  Not speech: instrument, drum, loop
and effect samples (``lmms-common``, ``sound-icons``, ``tuxpaint-data``), game music
(``frozen-bubble-data``, ``tuxtype-data``; pieces over 20 s give five 8 s excerpts), and
interface, game and household effects (``gnome-audio``, ``sound-theme-freedesktop``,
``minetest-data``, ``kbounce``, ``blinken``, ``pingus-data``, ``tuxtype-data``,
``frozen-bubble-data``, the ``alsa-utils`` noise).  Recordings whose content the file name
leaves in doubt (a cheer, giggles, a crowd, a cartoon voice's exclamations) are left out.

Each recording (mono mean, 16 kHz, at most 8 s) is placed at a random offset in a 10 s clip
of white, pink or brown noise 20 dB below the recording's active level.  The split is
fixed by the recording's content hash (blake2b): ``dev`` (even) and ``measure`` (odd);
every excerpt of one piece shares its split.  At most ``--cap`` recordings per package and
kind are used, the first by hash.

A clip is called speech when the detector's speech segments add up to ``--min-speech-s``
seconds.  Detectors: ``silero_ref`` (the Silero VAD with the rules of its own
``get_speech_timestamps``: threshold 0.5, off at 0.35, segments from 0.25 s, gaps
under 0.1 s closed), ``silero`` (:func:`foakit.signal.speech_activity` with its default
detector), ``silero_plain`` (the default's Silero rules without the confirmation by
foakit's features) and ``features`` (``detector='features'``).  ``--tune`` grids the Silero
threshold and the minimum segment and clip speech on the split given and prints each
setting's found / false-speech rates, also with each segment vetoed when it lies in held
notes (foakit's ``long_voiced_share``) or kept only when foakit's feature score confirms it
(at one level for every segment, or at a higher level for segments under a duration).
``--frontier`` measures the Silero model alone (no rule from foakit's features) over a grid
of its settings (threshold, release, gap, minimum segment, level gate, clip seconds) and
prints, for each number of speech clips found, the fewest non-speech clips any setting
calls speech: the best the model alone can do at each found rate on that split, even with
its settings chosen on the split itself.

    python benchmarks/real_recordings.py [--split dev|measure|both] [--tune | --frontier]
        [--cap 40]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SR = 16000
CLIP_S = 10.0
MAX_REC_S = 8.0
SNR_DB = 20.0

#: package -> [(glob under the unpacked tree, kind)]; kind "speech", or a non-speech kind.
SOURCES = {
    "alsa-utils": [("usr/share/sounds/alsa/[FRS]*.wav", "speech"),
                   ("usr/share/sounds/alsa/Noise.wav", "effect")],
    "sound-theme-freedesktop": [("usr/share/sounds/freedesktop/stereo/audio-channel-*.oga",
                                 "speech"),
                                ("usr/share/sounds/freedesktop/stereo/[!a]*.oga", "effect"),
                                ("usr/share/sounds/freedesktop/stereo/audio-[!c]*.oga",
                                 "effect")],
    "klettres-data": [("usr/share/klettres/*/*/*.ogg", "speech")],
    "ktuberling-data": [("usr/share/ktuberling/sounds/*/*.ogg", "speech")],
    "tuxtype-data": [("usr/share/tuxtype/**/excuseme.wav", "speech"),
                     ("usr/share/tuxtype/sounds/*.ogg", "music"),
                     ("usr/share/tuxtype/sounds/*.wav", "effect")],
    "tuxpaint-data": [("usr/share/tuxpaint/sounds/youcannot.wav", "speech"),
                      ("usr/share/tuxpaint/sounds/areyousure.wav", "speech"),
                      ("usr/share/tuxpaint/sounds/*.wav", "effect")],
    "lmms-common": [("usr/share/lmms/samples/instruments/*.ogg", "instrument"),
                    ("usr/share/lmms/samples/stringsnpads/*.ogg", "instrument"),
                    ("usr/share/lmms/samples/basses/*.ogg", "instrument"),
                    ("usr/share/lmms/samples/bassloops/*.ogg", "music"),
                    ("usr/share/lmms/samples/beats/*.ogg", "music"),
                    ("usr/share/lmms/samples/latin/*.ogg", "music"),
                    ("usr/share/lmms/samples/drums/*.ogg", "drum"),
                    ("usr/share/lmms/samples/effects/*.ogg", "effect"),
                    ("usr/share/lmms/samples/misc/*.ogg", "effect")],
    "sound-icons": [("usr/share/sounds/sound-icons/*.wav", "instrument")],
    "frozen-bubble-data": [("usr/share/games/frozen-bubble/snd/*zik*.ogg", "music"),
                           ("usr/share/games/frozen-bubble/snd/*.ogg", "effect")],
    "gnome-audio": [("usr/share/sounds/**/*.wav", "effect")],
    "minetest-data": [("usr/share/games/minetest/**/*.ogg", "effect")],
    "kbounce": [("usr/share/kbounce/sounds/*.wav", "effect")],
    "blinken": [("usr/share/blinken/sounds/*.wav", "effect")],
    "pingus-data": [("usr/share/games/pingus/data/sounds/*.wav", "effect")],
}
#: File names left out: their content is in doubt (voices, crowds, laughter) or they are
#: claimed by an earlier, more specific pattern.
EXCLUDE = {"letsgo.wav", "ohno.wav", "goodidea.wav", "yipee.wav", "hurry.ogg",
           "chatted.ogg", "noh.ogg", "lose.ogg", "cheer.wav", "giggle.wav", "tuxok.wav",
           "raving_crowd01.ogg", "excuseme.wav", "youcannot.wav", "areyousure.wav"}


def default_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "foakit" / \
        "real_recordings"


def fetch(cache: Path, packages=tuple(SOURCES)) -> dict[str, str]:
    """Download and unpack each package once (never installed); returns package -> .deb."""
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    out = {}
    for pkg in packages:
        have = sorted(debs.glob(f"{pkg}_*.deb"))
        if not have:
            subprocess.run(["apt-get", "download", pkg], cwd=debs, check=True,
                           capture_output=True)
            have = sorted(debs.glob(f"{pkg}_*.deb"))
        dest = cache / "x" / pkg
        if not dest.exists():
            tmp = dest.with_suffix(".part")
            tmp.mkdir(parents=True, exist_ok=True)
            subprocess.run(["dpkg", "-x", str(have[-1]), str(tmp)], check=True)
            tmp.rename(dest)
        out[pkg] = have[-1].name
    return out


def _hash(path: Path) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=8).hexdigest()


def catalogue(cache: Path, *, cap: int) -> list[dict]:
    """Recordings: package, path, kind, hash and split; the first ``cap`` per package and
    kind by hash."""
    rows: dict[tuple[str, str], list[dict]] = {}
    seen: set[Path] = set()
    for pkg, pats in SOURCES.items():
        root = cache / "x" / pkg
        for pat, kind in pats:
            for p in sorted(root.glob(pat)):
                if p in seen or not p.is_file():
                    continue
                if p.name in EXCLUDE and kind != "speech":
                    continue
                seen.add(p)
                h = _hash(p)
                rows.setdefault((pkg, kind), []).append({
                    "package": pkg, "path": str(p.relative_to(root)), "file": p,
                    "kind": kind, "hash": h,
                    "split": "dev" if int(h, 16) % 2 == 0 else "measure"})
    out = []
    for key in sorted(rows):
        out += sorted(rows[key], key=lambda r: r["hash"])[:cap]
    return out


def _load(path: Path, rate: int = SR) -> np.ndarray:
    """The recording's channel mean at ``rate`` (Hz)."""
    import soundfile as sf
    from scipy.signal import resample_poly

    x, sr = sf.read(str(path), dtype="float64", always_2d=True)
    x = x.mean(axis=1)
    if sr != rate:
        from math import gcd

        g = gcd(int(sr), rate)
        x = resample_poly(x, rate // g, int(sr) // g)
    return x


def _noise(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    w = rng.normal(size=n)
    if kind == "white":
        return w
    spec = np.fft.rfft(w)
    f = np.fft.rfftfreq(n, 1 / SR)
    f[0] = f[1]
    spec /= np.sqrt(f) if kind == "pink" else f
    y = np.fft.irfft(spec, n)
    return y / y.std()


def clips(recs: list[dict]) -> list[dict]:
    """10 s clips: each recording (or excerpt) in noise 20 dB below its active level."""
    out = []
    n = int(CLIP_S * SR)
    m = int(MAX_REC_S * SR)
    import soundfile as sf

    for r in recs:
        try:
            x = _load(r["file"])
        except (sf.LibsndfileError, RuntimeError):  # a few samples are not decodable
            continue
        if len(x) == 0 or not np.any(x):
            continue
        parts = [x[:m]]
        if len(x) > 20 * SR:
            parts = [x[int(f * len(x)):int(f * len(x)) + m] for f in (.1, .28, .46, .64, .82)]
        rng = np.random.default_rng(int(r["hash"], 16) % 2 ** 32)
        for k, y in enumerate(parts):
            y = 0.5 * y / max(np.max(np.abs(y)), 1e-9)
            frame = 320
            pw = np.convolve(y * y, np.ones(frame) / frame, "same")
            act = pw > pw.max() * 1e-4  # within 40 dB of the loudest 20 ms
            level = float(np.mean(pw[act]))
            nz = _noise(rng, ("white", "pink", "brown")[int(rng.integers(3))], n)
            clip = nz * np.sqrt(level) * 10 ** (-SNR_DB / 20)
            at = int(rng.integers(0, n - len(y) + 1))
            clip[at:at + len(y)] += y
            clip /= max(1.0, float(np.max(np.abs(clip))) / 0.99)
            out.append({**{k2: v for k2, v in r.items() if k2 != "file"},
                        "excerpt": k, "x": clip.astype(np.float32),
                        "speech": r["kind"] == "speech"})
    return out


def _seconds(active: np.ndarray, hop_s: float) -> float:
    return float(active.sum() * hop_s)


def run_detectors(cl: list[dict], names) -> dict[str, float]:
    """Each clip's speech seconds per detector (stored on the clip); cost per clip."""
    from scipy.ndimage import uniform_filter1d

    from foakit.signal import speech as SP

    cost = {}
    for name in names:
        t0 = time.perf_counter()
        for c in cl:
            if name == "silero_ref":
                p = SP.silero_probs(c["x"], SR)
                act = SP._hysteresis(p, 0.5, 0.35)
                t = (np.arange(len(p)) + 0.5) * 0.032
                act, _ = SP._segments(act, t, 0.032, gap_s=0.1, min_s=0.25)
                c["sec_silero_ref"] = _seconds(act, 0.032)
            elif name == "silero_plain":
                p = SP.silero_probs(c["x"], SR)
                y = c["x"].astype(np.float64)
                level = SP._band_level(y, 320)
                t = (np.arange(len(level)) + 0.5) * 0.02
                idx = np.minimum((t / 0.032).astype(int), len(p) - 1)
                act = SP._hysteresis(p[idx], SP.SILERO_THRESHOLD,
                                     SP.SILERO_THRESHOLD - 0.15) & (level > 3.0)
                act, _ = SP._segments(act, t, 0.02, gap_s=SP.SILERO_MIN_GAP_S,
                                      min_s=SP.SILERO_MIN_SPEECH_S)
                c["sec_silero_plain"] = _seconds(act, 0.02)
            elif name == "silero_probs":
                c["probs"] = SP.silero_probs(c["x"], SR)
                c["level"] = SP._band_level(c["x"].astype(np.float64), 320)
                f = SP.speech_features(c["x"], SR)
                c["long_voiced"] = f["long_voiced_share"]
                c["feature_score"] = uniform_filter1d(SP._score(f), 10, mode="nearest")
            else:
                a = SP.speech_activity(c["x"], SR, detector=name)
                c[f"sec_{name}"] = _seconds(a.active, a.hop_s)
        cost[name] = round(1000 * (time.perf_counter() - t0) / max(len(cl), 1), 1)
    return cost


def rates(cl: list[dict], key: str, min_s: float) -> dict:
    sp = [c for c in cl if c["speech"]]
    ns = [c for c in cl if not c["speech"]]
    by_kind = {}
    for kind in sorted({c["kind"] for c in ns}):
        k = [c for c in ns if c["kind"] == kind]
        by_kind[kind] = f"{sum(c[key] >= min_s for c in k)}/{len(k)}"
    found = sum(c[key] >= min_s for c in sp)
    false = sum(c[key] >= min_s for c in ns)
    return {"speech_found": f"{found}/{len(sp)}",
            "found_rate": round(found / max(len(sp), 1), 3),
            "nonspeech_called_speech": f"{false}/{len(ns)}",
            "false_rate": round(false / max(len(ns), 1), 3), "false_by_kind": by_kind}


def _veto(active: np.ndarray, long_voiced: np.ndarray, limit: float) -> np.ndarray:
    """Drop segments whose frames lie in long voiced runs (held notes) on average more
    than ``limit`` (foakit's ``long_voiced_share`` feature)."""
    out = active.copy()
    edges = np.flatnonzero(np.diff(np.concatenate([[0], active.astype(int), [0]])))
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        if long_voiced[a:b].mean() > limit:
            out[a:b] = False
    return out


RULES = [("none", None)] + [("held_note_veto", v) for v in (0.5, 0.7, 0.9)] + \
    [("feature_confirm", v) for v in (0.1, 0.2, 0.3, 0.4)] + \
    [("feature_confirm_short", (d, v)) for d in (0.2, 0.25, 0.3) for v in (0.5, 0.7, 0.8, 0.9)]


def tune(cl: list[dict]) -> list[dict]:
    """Found / false rates of Silero settings: threshold, minimum segment, clip seconds,
    and a rule from foakit's own features on each segment: none, a veto of segments in
    held notes (``long_voiced_share`` above the value on average), or a confirmation
    (the smoothed feature score reaching the value somewhere in the segment; or reaching
    ``foakit.signal.speech.FEATURE_CONFIRM``, and for a segment under the first value of
    the pair the second)."""
    from foakit.signal import speech as SP

    hop = 0.02
    out = []
    for thr in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        base = []
        for c in cl:
            t = (np.arange(len(c["level"])) + 0.5) * hop
            idx = np.minimum((t / 0.032).astype(int), len(c["probs"]) - 1)
            act = SP._hysteresis(c["probs"][idx], thr, max(thr - 0.15, 0.01))
            base.append((t, act & (c["level"] > 3.0)))
        for seg_min in (0.1, 0.2, 0.3):
            for rule, value in RULES:
                for c, (t, act) in zip(cl, base, strict=True):
                    a, _ = SP._segments(act, t, hop, gap_s=0.3, min_s=seg_min)
                    n = min(len(a), len(c["long_voiced"]))
                    if rule == "held_note_veto":
                        a = _veto(a[:n], c["long_voiced"][:n], value)
                    elif rule == "feature_confirm":  # one level for every segment
                        a, _ = SP._keep_confirmed(a[:n], c["feature_score"][:n], t, hop,
                                                  level=value, short_level=value)
                    elif rule == "feature_confirm_short":
                        a, _ = SP._keep_confirmed(a[:n], c["feature_score"][:n], t, hop,
                                                  short_s=value[0], short_level=value[1])
                    c["sec_tune"] = _seconds(a, hop)
                for clip_min in (0.1, 0.2, 0.3):
                    if clip_min < seg_min:
                        continue
                    r = rates(cl, "sec_tune", clip_min)
                    out.append({"threshold": thr, "min_segment_s": seg_min, "rule": rule,
                                "value": value, "clip_min_s": clip_min, **r})
    return out


def frontier(cl: list[dict]) -> list[dict]:
    """For each number of speech clips found, the fewest non-speech clips any setting of
    the Silero model alone calls speech, and that setting."""
    from foakit.signal import speech as SP

    best: dict[int, dict] = {}
    grid = itertools.product((0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8),
                             (0.15, 0.05), (0.02, 0.032))
    for thr, drop, hop in grid:
        off = max(thr - drop, 0.01)
        frames = []
        for c in cl:
            # the model's own 32 ms windows, or foakit's 20 ms frames
            t = (np.arange(int(len(c["level"]) * 0.02 / hop)) + 0.5) * hop
            idx = np.minimum((t / 0.032).astype(int), len(c["probs"]) - 1)
            level = c["level"][np.minimum((t / 0.02).astype(int), len(c["level"]) - 1)]
            frames.append((t, SP._hysteresis(c["probs"][idx], thr, off), level))
        for gap, seg_min, gate in itertools.product((0.1, 0.3), (0.05, 0.1, 0.15, 0.2, 0.25,
                                                                 0.3), (False, True)):
            secs = []
            for t, act, level in frames:
                a, _ = SP._segments(act & (level > 3.0) if gate else act, t, hop,
                                    gap_s=gap, min_s=seg_min)
                secs.append(_seconds(a, hop))
            for clip_min in sorted({seg_min, 0.25, 0.3, 0.5}):
                if clip_min < seg_min:
                    continue
                called = [s >= clip_min for s in secs]
                found = sum(k for k, c in zip(called, cl, strict=True) if c["speech"])
                false = sum(k for k, c in zip(called, cl, strict=True) if not c["speech"])
                if found not in best or false < best[found]["false"]:
                    best[found] = {"found": found, "false": false, "threshold": thr,
                                   "release": round(off, 2), "frame_s": hop, "gap_s": gap,
                                   "min_segment_s": seg_min, "level_gate": gate,
                                   "clip_min_s": clip_min}
    return [best[k] for k in sorted(best, reverse=True)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, default=default_cache())
    ap.add_argument("--split", choices=("dev", "measure", "both"), default="both")
    ap.add_argument("--cap", type=int, default=40)
    ap.add_argument("--tune", action="store_true")
    ap.add_argument("--frontier", action="store_true",
                    help="the Silero model alone: fewest false calls per found count")
    ap.add_argument("--min-speech-s", type=float, default=None,
                    help="clip speech seconds for a speech call (default: the audits')")
    ap.add_argument("--detectors", default="silero_ref,silero_plain,silero,features")
    args = ap.parse_args(argv)
    from foakit.signal import speech as SP

    min_s = SP.CLIP_MIN_SPEECH_S if args.min_speech_s is None else args.min_speech_s
    debs = fetch(args.cache)
    recs = catalogue(args.cache, cap=args.cap)
    splits = ("dev", "measure") if args.split == "both" else (args.split,)
    result = {"packages": debs, "cap": args.cap, "snr_db": SNR_DB, "clip_s": CLIP_S,
              "clip_min_speech_s": min_s, "splits": {}}
    for split in splits:
        cl = clips([r for r in recs if r["split"] == split])
        if args.tune or args.frontier:
            run_detectors(cl, ["silero_probs"])
            for row in (tune(cl) if args.tune else frontier(cl)):
                print(json.dumps({"split": split, **row}))
            continue
        names = args.detectors.split(",")
        cost = run_detectors(cl, names)
        result["splits"][split] = {
            "clips": len(cl), "recordings": len({c["hash"] for c in cl}),
            "detectors": {n: {**rates(cl, f"sec_{n}", min_s), "ms_per_clip": cost[n]}
                          for n in names}}
    if not (args.tune or args.frontier):
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
