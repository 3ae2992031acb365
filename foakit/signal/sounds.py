"""Speech-like, music-like and environmental test signals, with their speech truth.

A CI-safe synthesiser (NumPy and SciPy only) for the audits' synthetic corpora and for
measuring speech detectors: :func:`speech_like` renders source-filter "speech" (a glottal
harmonic source shaped by moving formants, plosive and fricative noise, syllables grouped in
words and phrases with pauses) and returns the phrase spans as the speech truth;
:func:`music_like` and :func:`environment_like` render families with no speech at all;
:func:`mix_at_snr` adds noise at a speech-to-noise ratio measured over the speech spans.

Every family takes its randomness from the ``rng`` passed in.  Families are grouped so that a
detector can be tuned on some and reported on others (:data:`MUSIC_FAMILIES`,
:data:`ENVIRONMENT_FAMILIES`, :data:`NOISE_FAMILIES`, :data:`VOICES`).
"""

from __future__ import annotations

import numpy as np
from scipy import signal as sps

from ..errors import ParameterError

__all__ = ["VOICES", "MUSIC_FAMILIES", "ENVIRONMENT_FAMILIES", "NOISE_FAMILIES",
           "speech_like", "music_like", "environment_like", "noise_like", "mix_at_snr",
           "truth_frames"]

#: Voices of :func:`speech_like`: f0 range (Hz), syllables per second, formant scale.
VOICES = {
    "male": ((85.0, 150.0), (3.5, 5.5), 1.0),
    "female": ((165.0, 260.0), (3.5, 5.5), 1.15),
    "child": ((230.0, 340.0), (3.0, 4.5), 1.3),
    "fast_male": ((95.0, 170.0), (6.0, 7.5), 1.0),
    "slow_female": ((150.0, 240.0), (2.5, 3.5), 1.12),
}
MUSIC_FAMILIES = ("melody", "chords", "drums", "band", "pluck", "bowed", "bells")
ENVIRONMENT_FAMILIES = ("rain", "wind", "traffic", "birds", "siren", "bark", "footsteps",
                        "water", "machine", "clapping")
NOISE_FAMILIES = ("white", "pink", "brown", "rain", "traffic", "machine", "clatter", "band",
                  "pluck")

# (F1, F2, F3) targets (Hz) of a few vowels, scaled per voice.
_VOWELS = np.array([[730, 1090, 2440], [270, 2290, 3010], [530, 1840, 2480],
                    [570, 840, 2410], [300, 870, 2240], [660, 1720, 2410],
                    [490, 1350, 1690], [400, 1900, 2600]], dtype=float)


def _check(duration_s: float, sr: int) -> int:
    if not duration_s > 0:
        raise ParameterError(f"{duration_s=} must be > 0")
    if sr < 8000:
        raise ParameterError(f"{sr=} must be >= 8000")
    return int(round(duration_s * sr))


def _interp(knots_t: list[float], knots_v: list, n: int, sr: int) -> np.ndarray:
    t = np.arange(n) / sr
    v = np.asarray(knots_v, dtype=float)
    if v.ndim == 1:
        return np.interp(t, knots_t, v)
    return np.stack([np.interp(t, knots_t, v[:, j]) for j in range(v.shape[1])])


def _band(x: np.ndarray, sr: int, lo: float | None, hi: float | None, order: int = 2):
    nyq = 0.5 * sr
    if hi is not None and hi >= 0.95 * nyq:
        hi = None
    if lo is not None:
        # at low rates a band may start above what the rate can hold: keep it valid
        lo = min(lo, 0.5 * hi if hi is not None and lo >= 0.8 * hi else 0.8 * nyq)
    if lo is not None and hi is not None:
        sos = sps.butter(order, [lo, hi], btype="bandpass", fs=sr, output="sos")
    elif lo is not None:
        sos = sps.butter(order, lo, btype="highpass", fs=sr, output="sos")
    elif hi is not None:
        sos = sps.butter(order, hi, btype="lowpass", fs=sr, output="sos")
    else:
        return x
    return sps.sosfilt(sos, x)


def _formant_gain(f: np.ndarray, formants: np.ndarray, bws=(80.0, 100.0, 140.0)) -> np.ndarray:
    """Magnitude of a cascade of resonances at ``formants`` (per sample) at frequencies
    ``f`` [shape=(k, n)]."""
    g = np.ones_like(f)
    for j, bw in enumerate(bws):
        fj = formants[j][None, :]
        r = f / fj
        g = g / np.sqrt((1.0 - r * r) ** 2 + (f * bw / (fj * fj)) ** 2)
    return g


def speech_like(duration_s: float, sr: int, rng: np.random.Generator, *,
                voice: str = "male", lead_s: float | None = None,
                pause_s: tuple[float, float] = (0.25, 0.8)) -> tuple[np.ndarray, list]:
    """Render source-filter speech-like audio.

    Parameters
    ----------
    duration_s : float
        Length (s).
    sr : int
        Sample rate (Hz, >= 8000).
    rng : numpy.random.Generator
    voice : str
        One of :data:`VOICES`.
    lead_s : float, optional
        Silence before the first phrase (default: random 0.2-0.6 s).
    pause_s : (float, float)
        Range of the pauses between phrases (s).

    Returns
    -------
    x : ndarray [shape=(n,), dtype=float32]
        Peak about 0.5.
    spans : list of (float, float)
        The phrases (onset, offset) in seconds: the speech truth.
    """
    n = _check(duration_s, sr)
    if voice not in VOICES:
        raise ParameterError(f"{voice=} is not one of {tuple(VOICES)}")
    (f0_lo, f0_hi), (rate_lo, rate_hi), fscale = VOICES[voice]
    voiced_amp = np.zeros(n)
    t_f0: list[float] = [0.0]
    v_f0: list[float] = [f0_lo]
    t_fm: list[float] = [0.0]
    v_fm: list = [_VOWELS[0] * fscale]
    noise = np.zeros(n)
    spans: list[tuple[float, float]] = []
    t = float(rng.uniform(0.2, 0.6)) if lead_s is None else float(lead_s)
    end = duration_s - 0.15
    while t < end - 0.3:
        phrase_len = float(rng.uniform(0.8, 3.0))
        p_end = min(t + phrase_len, end)
        start = t
        f0a, f0b = rng.uniform(f0_lo, f0_hi), rng.uniform(f0_lo, 0.5 * (f0_lo + f0_hi))
        rate = rng.uniform(rate_lo, rate_hi)
        while t < p_end - 0.08:
            syl = float(np.clip(rng.gamma(6.0, 1.0 / (6.0 * rate)), 0.08, 0.45))
            # onset consonant
            c = rng.random()
            cl = 0.0
            if c < 0.35:  # fricative
                cl = float(rng.uniform(0.05, 0.12))
                lo = rng.choice([1500.0, 2500.0, 3800.0])
                seg = slice(int(t * sr), min(n, int((t + cl) * sr)))
                m = seg.stop - seg.start
                if m > 8:
                    w = _band(rng.standard_normal(m), sr, lo, min(lo * 2.2, 0.45 * sr), 2)
                    noise[seg] += 0.12 * w * np.hanning(m)
            elif c < 0.6:  # plosive burst
                cl = float(rng.uniform(0.02, 0.05))
                seg = slice(int(t * sr), min(n, int((t + cl) * sr)))
                m = seg.stop - seg.start
                if m > 8:
                    w = _band(rng.standard_normal(m), sr, 500.0, 5000.0, 2)
                    noise[seg] += 0.15 * w * np.exp(-np.arange(m) / (0.008 * sr))
            v0 = t + cl
            v1 = min(t + max(syl, cl + 0.06), p_end)
            if v1 - v0 > 0.03:
                a = float(rng.uniform(0.5, 1.0))
                i0, i1 = int(v0 * sr), min(n, int(v1 * sr))
                m = i1 - i0
                ramp = min(m // 3, int(0.02 * sr))
                env = np.ones(m) * a
                if ramp > 1:
                    env[:ramp] *= np.linspace(0, 1, ramp)
                    env[-ramp:] *= np.linspace(1, 0, ramp)
                voiced_amp[i0:i1] = np.maximum(voiced_amp[i0:i1], env)
                frac = (0.5 * (v0 + v1) - start) / max(p_end - start, 1e-3)
                f0 = f0a + (f0b - f0a) * frac
                f0 *= 2.0 ** (rng.normal(0, 1.5) / 12.0)
                t_f0 += [v0, 0.5 * (v0 + v1), v1]
                v_f0 += [f0 * 2.0 ** (rng.normal(0, 0.8) / 12.0), f0,
                         f0 * 2.0 ** (rng.normal(-0.5, 0.8) / 12.0)]
                vow = _VOWELS[rng.integers(len(_VOWELS))] * fscale * rng.uniform(0.95, 1.05)
                t_fm += [v0 + 0.3 * (v1 - v0), v1]
                v_fm += [vow, vow * rng.uniform(0.9, 1.1, 3)]
            gap = float(rng.choice([0.0, 0.0, rng.uniform(0.02, 0.09)]))
            t = t + syl + gap
        spans.append((start, min(t, p_end)))
        t = min(t, p_end) + float(rng.uniform(*pause_s))
    order = np.argsort(t_f0, kind="stable")
    f0 = _interp(list(np.asarray(t_f0)[order]), list(np.asarray(v_f0)[order]), n, sr)
    f0 *= 1.0 + 0.004 * rng.standard_normal(n).cumsum() / np.sqrt(np.arange(1, n + 1))
    fm = _interp(t_fm, v_fm, n, sr)
    phase = 2.0 * np.pi * np.cumsum(f0) / sr
    fmax = min(0.45 * sr, 5500.0)
    x = np.zeros(n)
    for k in range(1, int(fmax / f0_lo) + 1):
        fk = k * f0
        gain = _formant_gain(fk[None, :], fm)[0] / k ** 0.6 * (fk < fmax)
        x += gain * np.sin(k * phase)
    x *= voiced_amp
    x /= max(np.sqrt(np.mean(x[voiced_amp > 0.1] ** 2)) if np.any(voiced_amp > 0.1) else 1, 1e-9)
    x += noise / 0.05 * 0.6 if np.any(noise) else 0.0
    x = _band(x, sr, 70.0, None, 2)
    peak = np.max(np.abs(x)) or 1.0
    return (0.5 * x / peak).astype(np.float32), spans


def truth_frames(spans: list, times: np.ndarray) -> np.ndarray:
    """Boolean speech truth at frame centres ``times`` (s) from phrase ``spans``."""
    out = np.zeros(len(times), dtype=bool)
    for a, b in spans:
        out |= (times >= a) & (times < b)
    return out


def _note(f: float, dur: float, sr: int, rng, kind: str) -> np.ndarray:
    m = max(int(dur * sr), 16)
    tt = np.arange(m) / sr
    if kind == "bowed":
        vib = 1.0 + 0.006 * np.sin(2 * np.pi * rng.uniform(4.5, 6.5) * tt)
        ph = 2 * np.pi * np.cumsum(f * vib) / sr
    else:
        ph = 2 * np.pi * f * tt
    x = np.zeros(m)
    nh = max(1, min(20, int(0.45 * sr / f)))
    bright = rng.uniform(0.8, 2.0)
    for k in range(1, nh + 1):
        if kind == "bells":
            x += np.sin(ph * (k ** 1.35)) / k ** bright * np.exp(-tt * k * 0.8)
        else:
            x += np.sin(k * ph + rng.uniform(0, 2 * np.pi)) / k ** bright
    if kind == "pluck":
        env = np.exp(-tt / rng.uniform(0.15, 0.5))
    elif kind == "bells":
        env = np.exp(-tt / rng.uniform(0.6, 1.5))
    else:
        att = min(m // 4, int(rng.uniform(0.01, 0.08 if kind != "bowed" else 0.2) * sr))
        env = np.ones(m)
        if att > 1:
            env[:att] = np.linspace(0, 1, att)
        rel = min(m // 4, int(0.05 * sr))
        env[-rel:] *= np.linspace(1, 0, rel)
    return x * env


def _place(out: np.ndarray, x: np.ndarray, i: int, g: float = 1.0) -> None:
    j = min(len(out), i + len(x))
    if j > i:
        out[i:j] += g * x[: j - i]


def _drums(n: int, sr: int, rng, beat: float) -> np.ndarray:
    out = np.zeros(n)
    t = 0.0
    step = beat / 2
    k = 0
    while t * sr < n:
        i = int(t * sr)
        if k % 4 == 0:
            m = int(0.15 * sr)
            tt = np.arange(m) / sr
            _place(out, np.sin(2 * np.pi * np.cumsum(50 + 100 * np.exp(-tt * 30)) / sr)
                   * np.exp(-tt * 18), i)
        if k % 4 == 2:
            m = int(0.12 * sr)
            tt = np.arange(m) / sr
            _place(out, (0.7 * rng.standard_normal(m) + np.sin(2 * np.pi * 190 * tt))
                   * np.exp(-tt * 25), i, 0.7)
        m = int(0.03 * sr)
        _place(out, _band(rng.standard_normal(m), sr, 6000.0, None, 2)
               * np.exp(-np.arange(m) / (0.008 * sr)), i, 0.3)
        t += step * (1 + rng.normal(0, 0.01))
        k += 1
    return out


def music_like(duration_s: float, sr: int, rng: np.random.Generator, *,
               family: str = "band") -> np.ndarray:
    """Render a music-like clip with no voice in it.

    Parameters
    ----------
    duration_s : float
    sr : int
    rng : numpy.random.Generator
    family : str
        One of :data:`MUSIC_FAMILIES`: a melody line, sustained chords, drums alone, a band
        (melody, chords and drums), plucked arpeggios, a bowed line with vibrato, bells.

    Returns
    -------
    ndarray [shape=(n,), dtype=float32]
        Peak 0.5.
    """
    n = _check(duration_s, sr)
    if family not in MUSIC_FAMILIES:
        raise ParameterError(f"{family=} is not one of {MUSIC_FAMILIES}")
    beat = 60.0 / rng.uniform(70, 160)
    root = 110.0 * 2 ** (rng.integers(0, 12) / 12)
    scale = np.array([0, 2, 4, 5, 7, 9, 11, 12, 14, 16])
    out = np.zeros(n)

    def line(kind: str, octave: float, durs: tuple[float, ...], gain: float) -> None:
        t = 0.0
        while t * sr < n:
            d = beat * float(rng.choice(durs))
            f = root * octave * 2 ** (scale[rng.integers(len(scale))] / 12)
            _place(out, _note(f, d * (1.6 if kind in ("pluck", "bells") else 1.0), sr, rng,
                              kind), int(t * sr), gain)
            t += d

    def chords(gain: float) -> None:
        t = 0.0
        while t * sr < n:
            d = beat * 4
            deg = scale[rng.integers(0, 5)]
            for iv in (0, 4, 7):
                _place(out, _note(root * 2 ** ((deg + iv) / 12), d, sr, rng, "organ"),
                       int(t * sr), gain / 3)
            t += d

    if family == "melody":
        line("organ", 2.0, (0.5, 1.0, 1.0, 2.0), 1.0)
    elif family == "chords":
        chords(1.0)
    elif family == "drums":
        out += _drums(n, sr, rng, beat)
    elif family == "band":
        line("organ", 2.0, (0.5, 1.0, 2.0), 0.8)
        chords(0.5)
        out += 0.8 * _drums(n, sr, rng, beat)
    elif family == "pluck":
        line("pluck", float(rng.choice([1.0, 2.0])), (0.25, 0.5), 1.0)
    elif family == "bowed":
        line("bowed", float(rng.choice([1.0, 2.0])), (1.0, 2.0, 3.0), 1.0)
    else:
        line("bells", 4.0, (1.0, 2.0), 1.0)
    out = _band(out, sr, 40.0, None, 2)
    peak = np.max(np.abs(out)) or 1.0
    return (0.5 * out / peak).astype(np.float32)


def environment_like(duration_s: float, sr: int, rng: np.random.Generator, *,
                     family: str = "rain") -> np.ndarray:
    """Render an environmental sound with no speech (one of :data:`ENVIRONMENT_FAMILIES`).

    Returns
    -------
    ndarray [shape=(n,), dtype=float32]
        Peak 0.5.
    """
    n = _check(duration_s, sr)
    if family not in ENVIRONMENT_FAMILIES:
        raise ParameterError(f"{family=} is not one of {ENVIRONMENT_FAMILIES}")
    tt = np.arange(n) / sr
    w = rng.standard_normal(n)
    if family == "rain":
        x = _band(w, sr, 800.0, 8000.0, 2)
        drops = np.zeros(n)
        idx = rng.integers(0, n, int(duration_s * rng.uniform(40, 200)))
        drops[idx] = rng.uniform(0.5, 3.0, len(idx))
        x += _band(drops, sr, 2000.0, None, 2) * 4
    elif family == "wind":
        am = _band(rng.standard_normal(n), sr, None, 0.7, 1)
        am = 0.3 + np.abs(am) / (np.max(np.abs(am)) or 1)
        x = _band(w, sr, 60.0, 600.0, 2) * am
    elif family == "traffic":
        f = 35 + 15 * np.sin(2 * np.pi * tt / rng.uniform(3, 8))
        ph = 2 * np.pi * np.cumsum(f) / sr
        x = _band(np.cumsum(w) / np.sqrt(sr), sr, 30.0, 2000.0, 2) * 30
        x += 0.5 * sum(np.sin(k * ph) / k for k in range(1, 8))
        x *= 1 + 0.5 * np.sin(2 * np.pi * tt / rng.uniform(4, 10))
    elif family == "birds":
        x = 0.02 * _band(w, sr, 500.0, 4000.0, 2)
        t = 0.2
        while t < duration_s - 0.3:
            m = int(rng.uniform(0.04, 0.15) * sr)
            k = np.arange(m) / sr
            f0 = rng.uniform(2500, 5500)
            f = f0 + rng.uniform(-2000, 2000) * k / k[-1] + 300 * np.sin(2 * np.pi * 40 * k)
            ch = np.sin(2 * np.pi * np.cumsum(f) / sr) * np.hanning(m)
            _place(x, ch, int(t * sr))
            t += rng.uniform(0.08, 0.6)
    elif family == "siren":
        f = 900 + 400 * np.sin(2 * np.pi * tt / rng.uniform(1.0, 3.0))
        ph = 2 * np.pi * np.cumsum(f) / sr
        x = np.sin(ph) + 0.3 * np.sin(3 * ph) + 0.02 * w
    elif family == "bark":
        x = 0.01 * _band(w, sr, 100.0, 3000.0, 2)
        t = 0.3
        while t < duration_s - 0.4:
            m = int(rng.uniform(0.12, 0.3) * sr)
            k = np.arange(m) / sr
            f0 = rng.uniform(350, 700) * (1 - 0.3 * k / k[-1])
            ph = 2 * np.pi * np.cumsum(f0) / sr
            b = sum(np.sin(j * ph) / j for j in range(1, 10)) + 0.8 * _band(
                rng.standard_normal(m), sr, 500.0, 4000.0, 2)
            _place(x, b * np.exp(-k / 0.08), int(t * sr))
            t += rng.choice([0.35, 0.5, 1.5, 2.5])
    elif family == "footsteps":
        x = 0.005 * w
        t = 0.2
        step = rng.uniform(0.45, 0.7)
        while t < duration_s - 0.2:
            m = int(0.08 * sr)
            _place(x, _band(rng.standard_normal(m), sr, 80.0, 1500.0, 2)
                   * np.exp(-np.arange(m) / (0.015 * sr)), int(t * sr))
            t += step * rng.uniform(0.95, 1.05)
    elif family == "water":
        am = np.abs(_band(rng.standard_normal(n), sr, 2.0, 30.0, 1))
        x = _band(w, sr, 300.0, 3000.0, 2) * (0.5 + am / (np.max(am) or 1))
    elif family == "machine":
        f = rng.choice([50.0, 60.0]) * rng.uniform(0.98, 1.02)
        x = sum(np.sin(2 * np.pi * k * f * tt) / k for k in range(1, 12))
        x += 0.4 * _band(w, sr, 200.0, 6000.0, 2)
        x *= 1 + 0.2 * np.sin(2 * np.pi * rng.uniform(5, 25) * tt)
    else:  # clapping
        x = 0.003 * w
        t = 0.2
        while t < duration_s - 0.1:
            m = int(0.03 * sr)
            _place(x, _band(rng.standard_normal(m), sr, 800.0, 6000.0, 2)
                   * np.exp(-np.arange(m) / (0.006 * sr)), int(t * sr), rng.uniform(0.5, 1))
            t += rng.uniform(0.03, 0.25)
    x = np.asarray(x, dtype=float)
    peak = np.max(np.abs(x)) or 1.0
    return (0.5 * x / peak).astype(np.float32)


def noise_like(duration_s: float, sr: int, rng: np.random.Generator, *,
               family: str = "white") -> np.ndarray:
    """A background for speech (one of :data:`NOISE_FAMILIES`): white, pink or brown
    noise, an environment, cutlery-like clatter, or music."""
    n = _check(duration_s, sr)
    if family not in NOISE_FAMILIES:
        raise ParameterError(f"{family=} is not one of {NOISE_FAMILIES}")
    if family in ("white", "pink", "brown"):
        spec = np.fft.rfft(rng.standard_normal(n))
        f = np.maximum(np.fft.rfftfreq(n, 1.0 / sr), 20.0)
        spec *= {"white": 1.0, "pink": f ** -0.5, "brown": f ** -1.0}[family]
        x = np.fft.irfft(spec, n)
    elif family == "clatter":
        x = 0.1 * _band(rng.standard_normal(n), sr, 200.0, 4000.0, 2)
        idx = rng.integers(0, n - int(0.05 * sr), int(duration_s * 6))
        for i in idx:
            m = int(0.04 * sr)
            k = np.arange(m) / sr
            _place(x, np.sin(2 * np.pi * rng.uniform(2000, 6000) * k) * np.exp(-k / 0.01), i,
                   rng.uniform(0.2, 1.0))
    elif family in ("band", "pluck"):
        x = music_like(duration_s, sr, rng, family=family)
    else:
        x = environment_like(duration_s, sr, rng, family=family)
    x = np.asarray(x, dtype=float)
    peak = np.max(np.abs(x)) or 1.0
    return (0.5 * x / peak).astype(np.float32)


def mix_at_snr(speech: np.ndarray, spans: list, noise: np.ndarray, snr_db: float,
               sr: int) -> np.ndarray:
    """``speech + g * noise`` with ``g`` such that the speech power inside ``spans`` over
    the noise power is ``snr_db``; the sum is scaled to a peak of 0.9 when it exceeds it.

    Parameters
    ----------
    speech, noise : ndarray [shape=(n,)]
    spans : list of (float, float)
        Where the speech is (s).
    snr_db : float
    sr : int

    Returns
    -------
    ndarray [shape=(n,), dtype=float32]
    """
    if speech.shape != noise.shape:
        raise ParameterError(f"speech {speech.shape} and noise {noise.shape} differ in shape")
    mask = truth_frames(spans, np.arange(len(speech)) / sr)
    ps = float(np.mean(np.asarray(speech[mask], dtype=float) ** 2)) if mask.any() else 0.0
    pn = float(np.mean(np.asarray(noise, dtype=float) ** 2)) or 1e-12
    g = np.sqrt(ps / pn / 10 ** (snr_db / 10.0)) if ps > 0 else 1.0
    x = speech.astype(float) + g * noise
    peak = float(np.max(np.abs(x))) or 1.0
    if peak > 0.9:
        x *= 0.9 / peak
    return x.astype(np.float32)
