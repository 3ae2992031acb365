"""Synthetic test scenes: plane-wave noise sources and an isotropic diffuse field."""

from __future__ import annotations

import numpy as np
import soundfile as sf


def plane_wave_scene(sources, *, sr=16000, duration=4.0, snr_db=None, seed=0):
    """ambiX scene of plane-wave noise sources ``[(az, el, onset, offset), ...]``."""
    from foakit.conventions import encode_plane_wave

    rng = np.random.default_rng(seed)
    n = int(duration * sr)
    x = np.zeros((4, n))
    t = np.arange(n) / sr
    for az, el, on, off in sources:
        s = np.zeros(n)
        a, b = int(on * sr), int(off * sr)
        s[a:b] = rng.normal(size=b - a) * 0.1 * (0.7 + 0.3 * np.sin(2 * np.pi * 4 * t[a:b]))
        x += encode_plane_wave(s, az, el)
    if snr_db is not None:
        x += diffuse_field(n, rng) * 0.1 * 10 ** (-snr_db / 20)
    return x.astype(np.float32)


def diffuse_field(n, rng, n_dirs=96):
    from foakit.conventions import encode_plane_wave, vector_to_direction

    v = rng.normal(size=(n_dirs // 2, 3))
    v = np.concatenate([v, -v])  # antipodal pairs: no net direction from the layout
    az, el = vector_to_direction(v)
    out = np.zeros((4, n))
    for a, e in zip(az, el, strict=True):
        out += encode_plane_wave(rng.normal(size=n), a, e)
    return out / np.sqrt(n_dirs)


def make_corpus(root, n=3, bad=True):
    """``n`` 1.5 s, 16 kHz plane-wave clips (and a broken file when ``bad``) under ``root``;
    returns file -> azimuth."""
    root.mkdir(parents=True, exist_ok=True)
    truth = {}
    for i in range(n):
        az = -150 + 300 * i / max(n - 1, 1)
        x = plane_wave_scene([(az, 10, 0.3, 1.2)], duration=1.5, snr_db=20, seed=i)
        sf.write(root / f"clip{i:03d}.wav", x.T, 16000, subtype="PCM_16")
        truth[f"clip{i:03d}.wav"] = az
    if bad:
        (root / "sub").mkdir()
        (root / "sub" / "broken.wav").write_bytes(b"RIFF....WAVEjunk")
    return truth
