"""Speech-like and non-speech signals for the synthetic HalluAudio corpora.

The default voice is a small formant synthesiser in NumPy / SciPy, so the corpora build
anywhere CI runs: a glottal pulse train with a declining, jittered pitch contour, passed
through three vowel formant resonators per syllable, syllables at a speaking rate of 3-6 Hz
with fricative bursts and pauses between words and phrases.  It carries speech's
syllabic modulation, harmonic structure and formant spectrum, not words.  Where espeak-ng is
installed, :func:`espeak` renders real text instead (callers skip it otherwise).
"""

from __future__ import annotations

import io
import shutil
import subprocess

import numpy as np
from scipy import signal as sps

__all__ = ["formant_speech", "espeak", "espeak_available", "noise", "room_impulse", "NOISES"]

# (F1, F2, F3) in Hz of a few vowels, an adult voice.
_VOWELS = np.array([(730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240),
                    (530, 1840, 2480), (660, 1720, 2410), (570, 840, 2410),
                    (440, 1020, 2240), (390, 1990, 2550)], dtype=float)

#: Non-speech noise kinds :func:`noise` makes.
NOISES = ("fan", "hvac", "motor", "pink", "machine")


def _resonator(f: float, bw: float, sr: int) -> tuple[np.ndarray, np.ndarray]:
    r = np.exp(-np.pi * bw / sr)
    theta = 2 * np.pi * f / sr
    a = np.array([1.0, -2 * r * np.cos(theta), r * r])
    return np.array([1.0 - r]), a


def formant_speech(rng: np.random.Generator, sr: int, duration: float, *,
                   f0: float = 120.0, rate: float = 4.5, pause: float = 0.25) -> np.ndarray:
    """A speech-like voice filling ``duration`` seconds (float64, peak about 1).

    Parameters
    ----------
    rng : numpy.random.Generator
    sr : int
        Sample rate (Hz).
    duration : float
        Length in seconds; the voice talks throughout, with pauses.
    f0 : float
        Mean pitch in Hz (about 100-130 for a low voice, 190-240 for a high one).
    rate : float
        Syllables per second.
    pause : float
        Mean pause between words in seconds.

    Returns
    -------
    numpy.ndarray, shape (round(duration * sr),)
    """
    n = int(round(duration * sr))
    out = np.zeros(n)
    t = 0.0
    word_left = int(rng.integers(1, 4))
    phrase_start = 0.0
    while t < duration - 0.1:
        syl = float(np.clip(rng.normal(1.0 / rate, 0.25 / rate), 0.08, 0.5))
        a, b = int(t * sr), min(n, int((t + syl) * sr))
        m = b - a
        if m < 16:
            break
        tt = np.arange(m) / sr
        # the phrase's pitch declines; each syllable carries a small accent and jitter
        decl = 1.0 - 0.12 * min(1.0, (t - phrase_start) / 2.0)
        pitch = f0 * decl * (1 + 0.08 * rng.normal()) * (1 + 0.05 * np.sin(np.pi * tt / syl))
        pitch *= 1 + 0.01 * rng.normal(size=m).cumsum() / np.sqrt(np.arange(1, m + 1))
        phase = np.cumsum(pitch / sr)
        src = 2 * (phase % 1.0) - 1.0  # sawtooth: harmonics falling 6 dB / octave
        src += 0.05 * rng.normal(size=m)  # breath
        v0, v1 = _VOWELS[rng.integers(len(_VOWELS))], _VOWELS[rng.integers(len(_VOWELS))]
        x = np.zeros(m)
        half = m // 2
        for seg, formants in ((slice(0, half), v0), (slice(half, m), (v0 + v1) / 2)):
            y = src[seg]
            for k, (f, bw) in enumerate(zip(formants, (80, 100, 140), strict=True)):
                if f < sr / 2 - 200:
                    bb, aa = _resonator(f, bw, sr)
                    y = sps.lfilter(bb, aa, y) * (1.0, 0.6, 0.3)[k] * 10
            x[seg] = y
        env = np.sin(np.pi * np.arange(m) / m) ** 0.7
        x *= env
        if rng.random() < 0.35:  # a fricative onset: high-passed noise
            fl = min(m, int(rng.uniform(0.03, 0.08) * sr))
            hp = sps.butter(2, min(0.95, 3500 / (sr / 2)), "high", output="sos")
            fr = sps.sosfilt(hp, rng.normal(size=fl)) * np.hanning(fl) * 0.3
            x[:fl] += fr * np.abs(x).max() / (np.abs(fr).max() + 1e-12)
        out[a:b] += x
        t += syl
        word_left -= 1
        if word_left == 0:
            word_left = int(rng.integers(1, 4))
            gap = rng.exponential(pause) if rng.random() < 0.8 else rng.uniform(0.4, 0.8)
            if gap > 0.45:
                phrase_start = t + gap
            t += gap
    peak = np.abs(out).max()
    return out / peak if peak > 0 else out


def espeak_available() -> bool:
    """Whether ``espeak-ng`` is on PATH."""
    return shutil.which("espeak-ng") is not None


def espeak(text: str, sr: int, *, voice: str = "en", wpm: int = 160) -> np.ndarray:
    """``text`` spoken by espeak-ng, resampled to ``sr`` (float64, peak about 1).

    Raises RuntimeError when espeak-ng is not installed or fails.
    """
    import soundfile as sf

    exe = shutil.which("espeak-ng")
    if exe is None:
        raise RuntimeError("espeak-ng is not installed")
    proc = subprocess.run([exe, "--stdout", "-v", voice, "-s", str(int(wpm)), text],
                          capture_output=True, timeout=60, check=False)
    if proc.returncode != 0 or not proc.stdout:
        raise RuntimeError(f"espeak-ng failed: {proc.stderr.decode(errors='replace')[:200]}")
    x, rate = sf.read(io.BytesIO(proc.stdout), dtype="float64")
    if x.ndim > 1:
        x = x.mean(axis=1)
    if rate != sr:
        from math import gcd

        g = gcd(int(rate), int(sr))
        x = sps.resample_poly(x, sr // g, int(rate) // g)
    peak = np.abs(x).max()
    return x / peak if peak > 0 else x


def noise(rng: np.random.Generator, kind: str, sr: int, n: int) -> np.ndarray:
    """Stationary non-speech noise of ``kind`` (one of :data:`NOISES`), unit RMS."""
    white = rng.normal(size=n)
    t = np.arange(n) / sr
    if kind == "pink":
        spec = np.fft.rfft(white)
        f = np.fft.rfftfreq(n, 1 / sr)
        spec[1:] /= np.sqrt(f[1:])
        spec[0] = 0
        x = np.fft.irfft(spec, n)
    elif kind == "hvac":
        sos = sps.butter(2, min(0.9, 400 / (sr / 2)), output="sos")
        x = sps.sosfilt(sos, white) + 0.05 * white
    elif kind == "fan":
        sos = sps.butter(2, [min(0.4, 150 / (sr / 2)), min(0.9, 2500 / (sr / 2))], "band",
                         output="sos")
        blade = rng.uniform(80, 140)
        x = sps.sosfilt(sos, white) + 0.5 * np.sin(2 * np.pi * blade * t) * sps.sosfilt(
            sos, white).std()
    elif kind == "motor":
        f = rng.uniform(45, 70)
        x = sum(np.sin(2 * np.pi * f * h * t + rng.uniform(0, 6.3)) / h for h in range(1, 9))
        x = x * (1 + 0.2 * np.sin(2 * np.pi * 1.5 * t)) + 0.3 * white
    elif kind == "machine":
        sos = sps.butter(4, [min(0.3, 800 / (sr / 2)), min(0.9, 5000 / (sr / 2))], "band",
                         output="sos")
        x = sps.sosfilt(sos, white) * (1 + 0.3 * np.sign(np.sin(2 * np.pi * 3 * t)))
    else:
        raise ValueError(f"{kind=} is not one of {NOISES}")
    return x / (x.std() + 1e-12)


def room_impulse(rng: np.random.Generator, sr: int, *, rt60: float, drr_db: float
                 ) -> np.ndarray:
    """A diffuse room response: a direct impulse and an exponentially decaying tail whose
    energy is ``drr_db`` below the direct path's."""
    n = int(rt60 * sr)
    t = np.arange(n) / sr
    tail = rng.normal(size=n) * np.exp(-6.91 * t / rt60)
    tail[: int(0.003 * sr)] = 0
    tail *= 10 ** (-drr_db / 20) / np.sqrt((tail ** 2).sum() + 1e-12)
    tail[0] = 1.0
    return tail
