"""Mono source signals that resemble real sound events.

Every family is broadband enough for direction finding (energy from a few hundred Hz to
several kHz), is normalised to unit RMS over the whole event and carries 10 ms
raised-cosine fades at its start and end.  All randomness comes from the ``rng`` passed in.
:func:`fit_dry_signal` places a given recording the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import signal as sps

from ..errors import ParameterError
from .scene import KINDS

__all__ = ["source_signal", "apply_fades", "fit_dry_signal"]

_FADE_S = 0.010


def apply_fades(x: np.ndarray, sample_rate: int, *, fade_s: float = _FADE_S) -> np.ndarray:
    """Raised-cosine fade-in and fade-out of ``fade_s`` (at most half the signal), in place.

    Parameters
    ----------
    x : ndarray [shape=(n,)]
        Signal (modified and returned).
    sample_rate : int
        Rate (Hz).

    Returns
    -------
    ndarray [shape=(n,)]
        ``x``.
    """
    m = min(int(round(fade_s * sample_rate)), x.shape[-1] // 2)
    if m > 0:
        ramp = 0.5 - 0.5 * np.cos(np.pi * (np.arange(m) + 0.5) / m)
        x[..., :m] *= ramp
        x[..., -m:] *= ramp[::-1]
    return x


def _fmax(sr: int) -> float:
    return min(0.42 * sr, 8000.0)


def _bandpass(x: np.ndarray, sr: int, lo: float, hi: float, order: int = 2) -> np.ndarray:
    hi = min(hi, 0.45 * sr)
    lo = min(max(lo, 20.0), 0.8 * hi)
    sos = sps.butter(order, [lo, hi], btype="bandpass", fs=sr, output="sos")
    return sps.sosfilt(sos, x)


def _resonator(x: np.ndarray, sr: int, f: float, bw: float) -> np.ndarray:
    """Two-pole resonance at ``f`` Hz with bandwidth ``bw`` Hz (unit peak gain)."""
    f = min(f, 0.45 * sr)
    r = np.exp(-np.pi * bw / sr)
    a = [1.0, -2.0 * r * np.cos(2 * np.pi * f / sr), r * r]
    return sps.lfilter([1.0 - r], a, x)


def _pulse_train(f0: np.ndarray, sr: int, rng: np.random.Generator) -> np.ndarray:
    """Impulses once per period of the instantaneous frequency ``f0`` (Hz per sample)."""
    phase = np.cumsum(f0) / sr + rng.random()
    p = np.zeros_like(f0)
    p[1:] = np.diff(np.floor(phase))
    return p


def _smooth_random(rng: np.random.Generator, n: int, sr: int, rate_hz: float) -> np.ndarray:
    """Smooth random curve in [-1, 1] with changes about ``rate_hz`` times per second."""
    k = max(int(n / sr * rate_hz) + 2, 2)
    knots = rng.uniform(-1.0, 1.0, k)
    return np.interp(np.linspace(0, k - 1, n), np.arange(k), knots)


def _events(rng: np.random.Generator, n: int, sr: int, gap: tuple[float, float],
            first: float = 0.0) -> np.ndarray:
    """Sample indices of a random event train with gaps uniform in ``gap`` (s)."""
    t, out = first, []
    while t < n / sr:
        out.append(int(t * sr))
        t += rng.uniform(*gap)
    return np.asarray(out, dtype=int)


def _place(n: int, starts: np.ndarray, make: Callable[[], np.ndarray]) -> np.ndarray:
    y = np.zeros(n)
    for s in starts:
        e = make()[: n - s]
        y[s : s + e.shape[0]] += e
    return y


def _speechlike(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(n) / sr
    # syllables of 0.12-0.3 s (about 4 Hz), short gaps, occasional word pauses
    env = np.zeros(n)
    vowel = np.zeros(n, dtype=int)
    pos = rng.uniform(0.0, 0.05)
    while pos < n / sr:
        d = rng.uniform(0.12, 0.30)
        a, b = int(pos * sr), min(int((pos + d) * sr), n)
        if b > a:
            env[a:b] = np.hanning(b - a + 2)[1:-1] ** 0.7
            vowel[a:b] = rng.integers(0, 3)
        pos += d + (rng.uniform(0.2, 0.45) if rng.random() < 0.2 else rng.uniform(0.02, 0.1))
    f0_base = rng.uniform(100.0, 220.0)
    f0 = f0_base * (1.0 - 0.1 * t / max(t[-1], 1e-9)) * (1.0 + 0.12 * _smooth_random(
        rng, n, sr, 4.0))
    voiced = _pulse_train(f0, sr, rng) + 0.03 * rng.standard_normal(n)
    formants = [((730, 1090, 2440), 0), ((270, 2290, 3010), 1), ((300, 870, 2240), 2)]
    y = np.zeros(n)
    for (f1, f2, f3), idx in formants:
        v = (_resonator(voiced, sr, f1, 90) + 0.7 * _resonator(voiced, sr, f2, 110)
             + 0.4 * _resonator(voiced, sr, f3, 170))
        y += np.where(vowel == idx, v, 0.0)
    y = y / (np.std(y) + 1e-12) * env
    # fricative consonants at some syllable onsets
    onsets = np.flatnonzero(np.diff((env > 0).astype(int)) == 1)
    fric = np.zeros(n)
    hiss = _bandpass(rng.standard_normal(n), sr, 2500.0, 7000.0)
    for o in onsets:
        if rng.random() < 0.5:
            m = int(rng.uniform(0.03, 0.07) * sr)
            seg = slice(max(o - m, 0), o)
            fric[seg] = hiss[seg] * np.hanning(seg.stop - seg.start + 2)[1:-1]
    return y + 0.6 * fric / (np.std(hiss) + 1e-12)


def _harmonic(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    fmax = _fmax(sr)
    scale = np.array([0, 2, 4, 7, 9, 12, 14, 16, 19, 21, 24])
    base = rng.uniform(130.0, 260.0)
    piano_like = rng.random() < 0.5

    def note() -> np.ndarray:
        f0 = base * 2 ** (rng.choice(scale) / 12)
        m = int(rng.uniform(0.3, 0.9) * sr)
        tt = np.arange(m) / sr
        vib = 1 + 0.004 * np.sin(2 * np.pi * rng.uniform(4.5, 6.0) * tt) * (not piano_like)
        phase = 2 * np.pi * np.cumsum(f0 * vib) / sr
        tau = rng.uniform(0.25, 0.6) if piano_like else rng.uniform(0.8, 2.0)
        out = np.zeros(m)
        for k in range(1, 25):
            fk = k * f0 * (1 + 0.0004 * k * k * piano_like)
            if fk > fmax:
                break
            partial = np.sin(phase * (fk / f0) + rng.uniform(0, 2 * np.pi))
            out += partial / k**0.9 * np.exp(-tt * k**0.5 / tau)
        att = np.minimum(tt / 0.006, 1.0)
        rel = np.minimum((m - np.arange(m)) / (0.03 * sr), 1.0)
        return out * att * rel

    starts = _events(rng, n, sr, (0.2, 0.6))
    return _place(n, starts, note) + 0.01 * _bandpass(rng.standard_normal(n), sr, 200, 6000)


def _bell(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    fmax = _fmax(sr)
    f0 = rng.uniform(70.0, 220.0)
    ratios = np.array([1.0, 1.47, 2.09, 2.56, 3.18, 4.21, 5.43, 6.79, 8.21, 10.3, 13.1, 16.2])
    starts = _events(rng, n, sr, (1.2, 3.0))

    def strike() -> np.ndarray:
        m = int(min(3.0, n / sr) * sr)
        tt = np.arange(m) / sr
        out = np.zeros(m)
        for k, r in enumerate(ratios):
            f = f0 * r * (1 + rng.uniform(-0.01, 0.01))
            if f > fmax:
                break
            beat = 1 + 0.3 * np.sin(2 * np.pi * rng.uniform(0.5, 3.0) * tt)
            out += rng.uniform(0.4, 1.0) * np.sin(2 * np.pi * f * tt + rng.uniform(0, 6.3)) \
                * np.exp(-tt / (rng.uniform(0.8, 2.5) / (1 + 0.3 * k))) * beat
        hit = rng.standard_normal(m) * np.exp(-tt / 0.015)
        return out + 3.0 * _bandpass(hit, sr, 300.0, 7000.0)

    return _place(n, starts, strike)


def _impacts(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    gap_lo = rng.uniform(0.12, 0.45)
    lo, hi = rng.uniform(150.0, 600.0), rng.uniform(3000.0, 7000.0)
    tau_mean = rng.uniform(0.008, 0.04)

    def hit() -> np.ndarray:
        tau = tau_mean * rng.uniform(0.7, 1.3)
        m = int(6 * tau * sr) + 1
        tt = np.arange(m) / sr
        return rng.uniform(0.5, 1.0) * rng.standard_normal(m) * np.exp(-tt / tau)

    starts = _events(rng, n, sr, (gap_lo, 1.6 * gap_lo), first=rng.uniform(0.0, 0.05))
    y = _place(n, starts, hit)
    body = _resonator(y, sr, rng.uniform(120.0, 400.0), 60.0)
    return _bandpass(y, sr, lo, hi) + 0.5 * body / (np.std(body) + 1e-12) * np.std(y)


def _chirp(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    fmax = _fmax(sr)
    f_lo = rng.uniform(1500.0, 3500.0) * fmax / 8000.0
    span = rng.uniform(800.0, 2500.0) * rng.choice([-1.0, 1.0]) * fmax / 8000.0

    def call() -> np.ndarray:
        m = int(rng.uniform(0.04, 0.18) * sr)
        u = np.linspace(0.0, 1.0, m)
        f = f_lo + span * (u ** rng.uniform(0.5, 2.0)) * rng.uniform(0.7, 1.2)
        f = np.clip(f, 200.0, fmax / 3.0 * 2.0)
        ph = 2 * np.pi * np.cumsum(f) / sr
        out = np.sin(ph) + 0.35 * np.sin(2 * ph) * (2 * f.max() < fmax) + 0.1 * np.sin(0.5 * ph)
        return out * np.hanning(m + 2)[1:-1]

    starts = _events(rng, n, sr, (0.06, 0.35))
    return _place(n, starts, call) + 0.02 * _bandpass(rng.standard_normal(n), sr, 300, 6000)


def _noise(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    y = _bandpass(rng.standard_normal(n), sr, rng.uniform(150, 400), rng.uniform(5000, 7500))
    am = 1 + 0.35 * _smooth_random(rng, n, sr, rng.uniform(2.0, 6.0))

    def drop() -> np.ndarray:
        m = int(rng.uniform(0.01, 0.03) * sr)
        u = np.arange(m) / sr
        f = rng.uniform(600, 2500) * (1 + 8 * u)
        return np.sin(2 * np.pi * np.cumsum(f) / sr) * np.exp(-u / 0.006)

    drops = _place(n, _events(rng, n, sr, (0.03, 0.25)), drop)
    return y * am + 0.4 * drops * np.std(y)


def _alarm(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    fmax = _fmax(sr)
    f1 = rng.uniform(550.0, 1100.0)
    f2 = f1 * rng.uniform(1.15, 1.4)
    rate = rng.uniform(1.5, 4.0)
    t = np.arange(n) / sr
    sel = (np.floor(t * rate * 2) % 2).astype(bool)
    f = np.where(sel, f2, f1)
    f = np.convolve(f, np.ones(32) / 32, mode="same")
    ph = 2 * np.pi * np.cumsum(f) / sr
    y = np.zeros(n)
    for k in range(1, 16, 2):  # square-ish: odd harmonics
        if k * f2 > fmax:
            break
        y += np.sin(k * ph) / k
    if rng.random() < 0.5:  # ring cadence: on/off gating
        on, off = rng.uniform(0.3, 0.8), rng.uniform(0.15, 0.4)
        gate = (t % (on + off)) < on
        y *= np.convolve(gate.astype(float), np.hanning(int(0.01 * sr) + 2), mode="same") / (
            np.hanning(int(0.01 * sr) + 2).sum())
    return y + 0.02 * _bandpass(rng.standard_normal(n), sr, 300, 6000)


def _engine(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    f0 = rng.uniform(25.0, 60.0) * (1 + 0.08 * _smooth_random(rng, n, sr, 0.7))
    pulses = _pulse_train(f0, sr, rng)
    body = _bandpass(pulses, sr, 40.0, rng.uniform(1500.0, 3000.0), order=1)
    t = np.arange(n) / sr
    am = 1 + 0.5 * np.sin(2 * np.pi * np.cumsum(f0) / sr)
    hiss = _bandpass(rng.standard_normal(n), sr, 300.0, 6000.0) * am
    body = body / (np.std(body) + 1e-12)
    return body + 0.45 * hiss / (np.std(hiss) + 1e-12) * (1 + 0.1 * np.sin(t))


def _bark(n: int, sr: int, rng: np.random.Generator) -> np.ndarray:
    f_base = rng.uniform(350.0, 700.0)

    def bark() -> np.ndarray:
        m = int(rng.uniform(0.1, 0.25) * sr)
        u = np.arange(m) / m
        f0 = f_base * (1.15 - 0.35 * u) * rng.uniform(0.9, 1.1)
        src = _pulse_train(f0, sr, rng) + 0.25 * rng.standard_normal(m)
        v = _resonator(src, sr, rng.uniform(800, 1300), 250) + 0.6 * _resonator(
            src, sr, rng.uniform(1800, 3200), 400)
        env = np.minimum(u / 0.05, 1.0) * np.exp(-u * 3.0)
        return v * env

    starts = []
    t = rng.uniform(0.0, 0.1)
    while t < n / sr:
        for _ in range(int(rng.integers(1, 4))):
            starts.append(int(t * sr))
            t += rng.uniform(0.22, 0.35)
        t += rng.uniform(0.3, 1.2)
    starts = np.asarray([s for s in starts if s < n], dtype=int)
    return _place(n, starts, bark)


_FAMILIES: dict[str, Callable[[int, int, np.random.Generator], np.ndarray]] = {
    "speechlike": _speechlike,
    "harmonic": _harmonic,
    "bell": _bell,
    "impacts": _impacts,
    "chirp": _chirp,
    "noise": _noise,
    "alarm": _alarm,
    "engine": _engine,
    "bark": _bark,
}


def fit_dry_signal(x: Any, n: int, sample_rate: int, *, index: int = 0) -> np.ndarray:
    """A given dry signal (a recording) as :func:`foakit.synth.render_scene` places it: cut
    or zero-padded to the source's ``n`` samples, with :func:`apply_fades`, unit RMS over
    the ``n`` samples as :func:`source_signal`'s families are.

    Parameters
    ----------
    x : array_like [shape=(m,)]
        The signal at ``sample_rate``.
    n : int
        The source's samples.
    sample_rate : int
        Rate (Hz).
    index : int
        The source's index, for the error messages (``signals[index]``).

    Returns
    -------
    ndarray [shape=(n,)]
        float64.
    """
    y = np.asarray(x, dtype=float)
    if y.ndim != 1 or y.size == 0:
        raise ParameterError(f"signals[{index}] must be a non-empty 1-D array, got shape "
                             f"{y.shape}")
    if not np.all(np.isfinite(y)):
        raise ParameterError(f"signals[{index}] has non-finite samples")
    out = np.zeros(n)
    out[: min(n, y.size)] = y[:n]
    apply_fades(out[: min(n, y.size)], sample_rate)
    rms = float(np.sqrt(np.mean(out * out)))
    if not rms > 0:
        raise ParameterError(f"signals[{index}] is silent over the source's "
                             f"{n / sample_rate:.3f} s")
    return out / rms


def source_signal(kind: str, n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """A mono event signal of one family.

    Parameters
    ----------
    kind : str
        One of :data:`foakit.synth.KINDS`: ``"speechlike"`` (formant-filtered pulse train,
        ~4 Hz syllables, fricatives), ``"harmonic"`` (notes with vibrato or piano-like decay),
        ``"bell"`` (inharmonic strikes), ``"impacts"`` (decaying noise bursts: steps,
        knocks, claps), ``"chirp"`` (bird-like sweeps), ``"noise"`` (running water),
        ``"alarm"`` (two-tone siren or ring), ``"engine"`` (low pulse train plus noise),
        ``"bark"`` (short voiced barks in groups).
    n : int
        Number of samples (>= 1).
    sample_rate : int
        Rate (Hz).
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray [shape=(n,)]
        float64, unit RMS over the ``n`` samples, with 10 ms raised-cosine fades.
    """
    if kind not in _FAMILIES:
        raise ParameterError(f"{kind=!r} must be one of {KINDS}")
    if int(n) != n or n < 1:
        raise ParameterError(f"{n=!r} must be a positive integer")
    if sample_rate < 4000:
        raise ParameterError(f"{sample_rate=!r} must be at least 4000 Hz")
    y = np.asarray(_FAMILIES[kind](int(n), int(sample_rate), rng), dtype=float)
    y -= y.mean()
    apply_fades(y, sample_rate)
    rms = float(np.sqrt(np.mean(y * y)))
    if not rms > 0:  # a tiny event can fall between pulses: fall back to noise
        y = apply_fades(rng.standard_normal(int(n)), sample_rate)
        rms = float(np.sqrt(np.mean(y * y)))
    return y / rms
