"""Content fingerprints for duplicate audio across items, paths, formats and rates.

:func:`fingerprint` summarises a clip on a fixed grid: the mono signal at 8 kHz is cut into
``slices`` equal stretches of its duration, each stretch's power is measured in
``bands + 1`` log-spaced bands (250-3600 Hz), and one bit is kept per (stretch, band): whether
the band-energy difference between neighbouring bands grows or falls from the previous
stretch (the Haitsma-Kalker sign rule).  The bits survive a re-encode (MP3), resampling and
level changes; two different clips disagree on about half of them.  The string is
``"<duration in 0.1 s>:<hex bits>"``; :func:`fingerprint_distance` is the share of differing
bits, and :func:`find_duplicates` groups clips whose durations agree within 2 % and whose
distance is at most ``max_distance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import gcd

import numpy as np
from scipy import signal as sps

from ..errors import ParameterError

__all__ = ["fingerprint", "fingerprint_distance", "find_duplicates"]

_SR = 8000


def fingerprint(samples: np.ndarray, sr: int, *, slices: int = 33, bands: int = 8) -> str:
    """Fingerprint one clip.

    Parameters
    ----------
    samples : ndarray [shape=(channels, n)] or [shape=(n,)]
    sr : int
        Sample rate (Hz).
    slices, bands : int
        Grid size: ``(slices - 1) * bands`` bits.

    Returns
    -------
    str
        ``"<duration_ds>:<hex>"``; the hex part is empty for an all-zero clip.
    """
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim == 2:
        x = x.mean(axis=0) if x.shape[0] <= 2 else x[0]
    if x.ndim != 1 or sr <= 0:
        raise ParameterError(f"samples of shape {np.shape(samples)} at {sr=}: expected "
                             "(channels, n) or (n,) and sr > 0")
    if slices < 2 or bands < 1:
        raise ParameterError(f"{slices=} must be >= 2 and {bands=} >= 1")
    dur = len(x) / float(sr)
    head = f"{int(round(dur * 10))}:"
    if len(x) == 0 or not np.any(x):
        return head
    g = gcd(int(sr), _SR)
    y = sps.resample_poly(x, _SR // g, int(sr) // g) if sr != _SR else x
    nfft = 512
    hop = 128
    if len(y) < nfft:
        y = np.pad(y, (0, nfft - len(y)))
    f, t, z = sps.stft(y, fs=_SR, nperseg=nfft, noverlap=nfft - hop, boundary=None,
                       padded=False)
    p = np.abs(z) ** 2
    edges = np.geomspace(250.0, 3600.0, bands + 2)
    bp = np.stack([p[(f >= lo) & (f < hi)].sum(0) for lo, hi in zip(edges[:-1], edges[1:],
                                                                    strict=True)])
    cut = np.linspace(0, bp.shape[1], slices + 1).astype(int)
    grid = np.stack([bp[:, a:max(b, a + 1)].mean(1) for a, b in zip(cut[:-1], cut[1:],
                                                                    strict=True)], 1)
    e = np.log10(grid + 1e-12)
    d = e[:-1] - e[1:]  # band differences [bands, slices]
    bits = (d[:, 1:] - d[:, :-1]) > 0
    return head + np.packbits(bits.ravel()).tobytes().hex()


def _bits(fp: str) -> tuple[float, np.ndarray | None]:
    dur, _, hexpart = fp.partition(":")
    b = np.unpackbits(np.frombuffer(bytes.fromhex(hexpart), dtype=np.uint8)) if hexpart \
        else None
    return float(dur) / 10.0, b


def fingerprint_distance(a: str, b: str) -> float:
    """Share of differing bits of two fingerprints (1.0 when either is empty or their
    grids differ)."""
    _, ba = _bits(a)
    _, bb = _bits(b)
    if ba is None or bb is None or len(ba) != len(bb):
        return 1.0
    return float(np.mean(ba != bb))


def find_duplicates(fps: Mapping[str, str], *, max_distance: float = 0.1,
                    duration_tolerance: float = 0.02) -> list[list[str]]:
    """Groups of keys whose clips look like the same audio.

    Parameters
    ----------
    fps : mapping of key -> fingerprint
    max_distance : float
        Largest share of differing bits for a match.
    duration_tolerance : float
        Largest relative duration difference (durations within 0.15 s always agree).

    Returns
    -------
    list of list of str
        Each group sorted, groups by their first key; clips with empty fingerprints
        (digital silence) are never matched.
    """
    keys = [k for k, v in fps.items() if v and v.partition(":")[2]]
    if len(keys) < 2:
        return []
    parsed = [_bits(fps[k]) for k in keys]
    lens = {len(b) for _, b in parsed}
    groups: list[list[str]] = []
    parent = list(range(len(keys)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for n_bits in lens:
        idx = [i for i, (_, b) in enumerate(parsed) if len(b) == n_bits]
        durs = np.array([parsed[i][0] for i in idx])
        bits = np.stack([parsed[i][1] for i in idx]).astype(np.uint8)
        order = np.argsort(durs)
        durs, bits = durs[order], bits[order]
        idx = [idx[i] for i in order]
        for a in range(len(idx)):
            tol = max(duration_tolerance * durs[a], 0.15)
            b_end = int(np.searchsorted(durs, durs[a] + tol, side="right"))
            if b_end <= a + 1:
                continue
            dist = np.mean(bits[a + 1:b_end] != bits[a], axis=1)
            for j in np.flatnonzero(dist <= max_distance):
                ra, rb = root(idx[a]), root(idx[a + 1 + j])
                if ra != rb:
                    parent[rb] = ra
    members: dict[int, list[str]] = {}
    for i, k in enumerate(keys):
        members.setdefault(root(i), []).append(k)
    groups = sorted((sorted(m) for m in members.values() if len(m) > 1), key=lambda g: g[0])
    return groups
